// The one judge chain every workflow uses (`tilecheck run`, `tiles`, `compare`, the GPU ctest
// matrix): a cell's expectation (its case under the numerics it is judged by, on the cell's
// schedule), the comparison of what the kernel left (output, guard band, workspace) with it, and
// the outcome those give. A cell gets one verdict whichever way it is judged.
#pragma once
#include <mutex>
#include <optional>
#include <string>

#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/expectation.h"
#include "tilecheck/compare/report.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/suite/cells.h"
#include "tilecheck/suite/device_case.h"
#include "tilecheck/suite/errmap_budget.h"
#include "tilecheck/suite/outcome.h"

namespace tc {

// What a launch left to judge: the output C (M, N), the poisoned rows around it, and what the
// workspace check found after it ("" when the locks were left zero).
struct KernelOutput {
  const HalfMatrix& C;
  const GuardBand& guard;
  const std::string& workspace;
};

struct Judgement {
  Expectation expectation;
  Comparison comparison;
  CellOutcome outcome;  // pass only if the comparison passed and the workspace was left clean
};

// The chain's first step: case `f` (which must be the cell's case and contract) under `numerics`, on
// the cell's schedule. Throws tc::Error when the cell cannot be judged (another contract than its
// case's, a grid size the schedule refuses, numerics the bounds cannot judge).
Expectation cell_expectation(const Fixture& f, const Cell& cell, const KernelNumerics& numerics);

// Judges `out` as cell `cell` of case `f` (which must be the cell's case and contract) under
// `numerics`; throws as cell_expectation does.
Judgement judge(const Fixture& f, const Cell& cell, const KernelNumerics& numerics, const KernelOutput& out);
// The chain from an expectation made otherwise (`tilecheck compare` and `tiles --contract`: a fixture
// file, or a case under another contract than its own): `family` names the outcome's table column.
Judgement judge(Expectation e, const Cell& cell, const std::string& family, const KernelOutput& out);

// The report of a judgement: the comparator's report, then the workspace check's finding.
std::string judgement_report(const Judgement& j, const ReportOptions& options = {});

// The same chain for `tilecheck run`: the outcome only, and the error map of a failing cell written
// into `error_map_dir` unless it is empty (and, given a `budget`, only if it has room for the map; a
// map that cannot be written is noted in the message, the verdict stands). A cell that cannot be
// judged is an ERROR outcome with its case's family and the reason, so the summary table shows it in
// its row. Safe to call from several threads at once, given `hdf5`: the HDF5 library is not
// thread-safe, and every thread that touches it must hold that mutex.
CellOutcome judge_cell(const Fixture& f, const Cell& cell, const KernelNumerics& numerics, const KernelOutput& out,
                       const std::string& error_map_dir, std::mutex* hdf5 = nullptr,
                       ErrorMapBudget* budget = nullptr);

// What a cell is judged under: the library's declaration for it; for a library that declares
// nothing, its contract's numerics with the bounds that hold for any split of K (k-slices of 16 rows
// or more: docs/numerics.md), never a model of a schedule it did not claim. `schedule`
// (tilecheck run|compare|tiles --schedule) overrides the schedule kind, keeping the declared
// min_k_slice (16 when nothing was declared).
KernelNumerics judged_numerics(const std::optional<KernelNumerics>& declared, Contract contract,
                               std::optional<ScheduleKind> schedule = std::nullopt);

// The outcome of a run that left nothing to judge: not run (interrupted), HANG, FAULT, n/a
// (TC_ERR_UNSUPPORTED) or ERROR.
CellOutcome unjudged_outcome(const Cell& cell, const KernelRun& r);
inline bool judgeable(const KernelRun& r) { return !r.fault && !r.interrupted && r.status.ok(); }

}  // namespace tc
