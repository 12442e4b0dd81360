#include "tilecheck/suite/library_cells.h"

#include <algorithm>
#include <iterator>

namespace tc {

MatrixOptions matrix_options(const WorkerInfo& library) {
  MatrixOptions m;
  m.kernel = library.kernel_name;
  m.variant = library.variant;
  m.all_sms = library.multiprocessors;
  m.formats = library.formats;
  m.lists_formats = library.lists_formats;
  return m;
}

LibraryCells library_cells(const std::vector<CatalogueEntry>& entries, const WorkerInfo& library,
                           const CellSelection& s) {
  MatrixOptions m = matrix_options(library);
  m.reduced = s.reduced;
  std::vector<CatalogueEntry> chosen;
  for (const CatalogueEntry& e : entries)
    if ((!s.committed_only || e.storage == Storage::committed) &&
        (s.contract == "all" || name(e.spec.contract) == s.contract))
      chosen.push_back(e);
  LibraryCells out;
  for (const CatalogueEntry& e : chosen) out.families[e.spec.id] = case_family(e.spec);
  // A case has no name of a cell yet where its format keeps it out: its id stands for its cells'.
  std::vector<CatalogueEntry> wanted;
  std::copy_if(chosen.begin(), chosen.end(), std::back_inserter(wanted),
               [&](const CatalogueEntry& e) { return std::regex_search(e.spec.id, s.filter); });
  out.not_in_matrix = excluded_formats(wanted, m);
  for (const Cell& c : suite_cells(chosen, library.configs, m))
    if (std::regex_search(c.name(), s.filter)) out.cells.push_back(c);
  return out;
}

void print_not_in_matrix(std::ostream& out, const LibraryCells& chosen) {
  for (const std::string& line : chosen.not_in_matrix) out << "n/a (not in the matrix): " << line << "\n";
  out.flush();
}

}  // namespace tc
