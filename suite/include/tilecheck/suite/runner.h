// Runs suite cells: loads each case's golden fixture once (verified against the manifest), keeps
// its device copies while consecutive cells use it, runs the kernel plugin and judges the output
// with the comparator. `tilecheck run` and the GPU ctest matrix share it.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "tilecheck/compare/compare.h"
#include "tilecheck/suite/device_case.h"
#include "tilecheck/compare/expectation.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/cells.h"
#include "tilecheck/suite/errmap_budget.h"

namespace tc {

// pass / fail: judged; fault: the kernel faulted, crashed its process or was not run after its
// configuration kept faulting; hang: the watchdog ended it; not_applicable: the library answered
// TC_ERR_UNSUPPORTED (never a failure); error: any other refusal, or a problem judging it.
enum class CellStatus { pass, fail, fault, hang, not_applicable, error };
const char* name(CellStatus s);

struct CellOutcome {
  Cell cell;
  std::string family;            // case_family() of the cell's case
  CellStatus status = CellStatus::error;
  std::int32_t worst_ulp = 0;    // largest |ulp| over comparable elements
  double worst_utilization = 0;  // largest share of its bound any element used
  std::string message;           // header line, or the fault / error text
  Counts counts;                 // per verdict (judged cells)
  std::string tiers;             // "t0=pass t1=fail t2=n/a" (judged cells)
  std::vector<std::string> hints;  // hint kinds the comparator found (tc::name(HintKind))
  std::string error_map;         // written for failing cells when an error-map directory is set
  std::uint64_t error_map_bytes = 0;
  bool error_map_skipped = false;  // failing, but the run's error-map budget had no room for its map
  std::string numerics;          // what the bounds assumed, name(KernelNumerics) (judged cells)
  double seconds = 0;
};

// Judges one output of `cell` against fixture `f` (which must be the cell's case): the comparator's
// verdicts, tiers, hints and worst values, and the error map of a failing cell written into
// `error_map_dir` unless it is empty (and, given a `budget`, only if it has room for the map; a map
// that cannot be written is noted in the message, the verdict stands). A cell that cannot be judged
// (e.g. a contract other than its case's, a grid size the schedule refuses) is an ERROR outcome with
// its case's family and the reason, so the summary table shows it in its row. Safe to call from
// several threads at once, given `hdf5`: the HDF5 library is not thread-safe, and every thread that
// touches it must hold that mutex.
CellOutcome judge_cell(const Fixture& f, const Cell& cell, const KernelNumerics& numerics, const HalfMatrix& C,
                       const GuardBand& guard, const std::string& error_map_dir, std::mutex* hdf5 = nullptr,
                       ErrorMapBudget* budget = nullptr);
// The same under the cell's contract's numerics and Marlin's schedule (a library that declares nothing).
CellOutcome judge_cell(const Fixture& f, const Cell& cell, const HalfMatrix& C, const GuardBand& guard,
                       const std::string& error_map_dir, std::mutex* hdf5 = nullptr,
                       ErrorMapBudget* budget = nullptr);

// What a cell is judged under: the library's declaration for it, else its contract's numerics under
// Marlin's schedule; `schedule` (tilecheck run|compare|tiles --schedule) overrides the schedule kind,
// keeping the declared min_k_slice (16 when nothing was declared).
KernelNumerics judged_numerics(const std::optional<KernelNumerics>& declared, Contract contract,
                               std::optional<ScheduleKind> schedule = std::nullopt);

// The outcome of a run that left nothing to judge: HANG, FAULT, n/a (TC_ERR_UNSUPPORTED) or ERROR.
CellOutcome unjudged_outcome(const Cell& cell, const KernelRun& r);
inline bool judgeable(const KernelRun& r) { return !r.fault && r.status.ok(); }

class SuiteRunner {
 public:
  // `kernel` may be null for judging recordings only.
  SuiteRunner(const KernelPlugin* kernel, GoldenPaths paths);

  const Fixture& fixture(const std::string& case_id);  // loaded and verified once
  // The same fixture, kept alive for work that outlives the runner's switch to the next case.
  std::shared_ptr<const Fixture> shared_fixture(const std::string& case_id);
  Expectation expectation(const Cell& cell);           // the case under the cell's schedule
  // ... and under the numerics a library declared for it (judged_numerics)
  Expectation expectation(const Cell& cell, const KernelNumerics& numerics);
  KernelRun execute(const Cell& cell);                 // the kernel's output for the cell

 private:
  const KernelPlugin* kernel_;
  GoldenPaths paths_;
  std::string fixture_id_;
  std::shared_ptr<const Fixture> fixture_;
  std::unique_ptr<DeviceCase> device_;
  Workspace workspace_;
};

}  // namespace tc
