// Which cells a kernel library gets: the one choice `tilecheck run` and `tilecheck perturb` share.
// The catalogue narrowed by storage, contract and a regex on cell names; the library's
// configurations, variant, grid size and formats (suite_cells, tilecheck/suite/cells.h); and the
// cases of the formats it does not implement, reported once per format with the library's list
// (excluded_formats) instead of as cells.
#pragma once
#include <map>
#include <ostream>
#include <regex>
#include <string>
#include <vector>

#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/suite/cells.h"
#include "tilecheck/suite/worker.h"

namespace tc {

struct CellSelection {
  bool reduced = false;          // the reduced matrix (the sanitizer tier's cells)
  bool committed_only = false;   // only cases whose golden file is committed
  std::string contract = "all";  // marlin | fp32 | all
  std::regex filter{""};         // on cell names (the n/a lines: on case ids); "" matches every cell
};

struct LibraryCells {
  std::vector<Cell> cells;                      // in matrix order
  std::vector<std::string> not_in_matrix;       // excluded_formats' lines for the cases the filter matches
  std::map<std::string, std::string> families;  // case id -> case_family(), every case of the selection
};

// The matrix options of the library a worker described: its name, variant, the device's SMs and
// the formats it implements (whether it lists them).
MatrixOptions matrix_options(const WorkerInfo& library);

LibraryCells library_cells(const std::vector<CatalogueEntry>& entries, const WorkerInfo& library,
                           const CellSelection& selection);

// "n/a (not in the matrix): 3 cases: kernel library ... does not list format bf16-uint4 (it lists
// ...)", one line each, as both commands print them before they launch anything.
void print_not_in_matrix(std::ostream& out, const LibraryCells& chosen);

}  // namespace tc
