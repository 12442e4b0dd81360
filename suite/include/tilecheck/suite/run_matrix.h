// `tilecheck run`'s live pipeline: the matrix's cells -> kernel workers (one feeder thread per
// device, taking whole cases from a shared queue) -> judges (JudgePool, the judge chain of
// tilecheck/suite/judge.h) -> every cell's outcome in matrix order. Results are streamed into the
// --json file as cells finish (tilecheck/suite/run_json.h), so a run that is stopped keeps them; the
// run stops launching when its time budget is spent or it is interrupted (tilecheck/suite/interrupt.h),
// and the cells it did not reach are "not run" with the reason.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/kernel_workers.h"
#include "tilecheck/suite/outcome.h"
#include "tilecheck/suite/recording.h"
#include "tilecheck/suite/run_json.h"

namespace tc {

struct MatrixRunOptions {
  std::string error_maps;                       // directory for failing cells' error maps; '' none
  std::uint64_t errmap_budget_bytes = 200000000;  // most bytes of error maps the run writes
  unsigned threads = 0;                         // judging threads (0: one per hardware thread)
  std::optional<ScheduleKind> schedule;         // --schedule: overrides what the library declares
  double time_budget = 0;                       // seconds after which no cell is launched; 0: none
  std::string json;                             // the results file, rewritten as cells finish; '' none
  RunHeader header;                             // what ran, for the results file
  bool record = false;                          // keep the outputs of the cells that ran (--record)
  std::map<std::string, std::string> families;  // case id -> case_family(), for cells never judged
  // Called after each cell's outcome (from judging threads): cells done, of how many, the cell.
  std::function<void(std::size_t, std::size_t, const Cell&)> progress;
};

struct MatrixRun {
  std::vector<CellOutcome> outcomes;   // every cell, in matrix order
  std::vector<RecordedCell> recorded;  // with `record`: the outputs of the cells that ran
  bool interrupted = false;            // SIGINT/SIGTERM stopped it
  bool out_of_time = false;            // the time budget stopped it
};

// Runs the cells of `cells` (in matrix order) that `done` holds no verdict for (--resume: those
// outcomes are kept as they are, and reported in their place; its "not run" cells run). A cell of
// `done` that is not in `cells` is ignored.
MatrixRun run_matrix(KernelWorkers& workers, const std::vector<Cell>& cells, const GoldenPaths& paths,
                     const MatrixRunOptions& options, const std::vector<CellOutcome>& done = {});

// The resume merge run_matrix makes: for each of `cells`, the verdict `done` holds for it (matched by
// cell name; a "not run" one is no verdict), or none where it is to be run.
std::vector<std::optional<CellOutcome>> verdicts_to_keep(const std::vector<Cell>& cells,
                                                         const std::vector<CellOutcome>& done);

}  // namespace tc
