#include "tilecheck/suite/judge.h"

#include <algorithm>
#include <filesystem>

#include "tilecheck/compare/errormap.h"
#include "tilecheck/core/error.h"

namespace tc {

Expectation cell_expectation(const Fixture& f, const Cell& cell, const KernelNumerics& numerics) {
  // A suite cell runs its case under the contract the case was generated for, so a cell naming
  // another contract is a mistake, not a request. (cell.name() formats a string: only on failure.)
  if (f.spec.contract != cell.contract)
    throw Error(cat("cell ", cell.name(), " asks for contract ", name(cell.contract), " but case ", cell.case_id,
                    " was generated for ", name(f.spec.contract)));
  return make_expectation(f, cell.contract, numerics, make_schedule(f.spec.shape, cell.config, cell.sms),
                          cell.case_id);
}

Judgement judge(const Fixture& f, const Cell& cell, const KernelNumerics& numerics, const KernelOutput& out) {
  return judge(cell_expectation(f, cell, numerics), cell, case_family(f.spec), out);
}

Judgement judge(Expectation e, const Cell& cell, const std::string& family, const KernelOutput& out) {
  Judgement j{std::move(e), {}, {}};
  j.comparison = compare(j.expectation, out.C, out.guard);
  const Comparison& c = j.comparison;
  CellOutcome& o = j.outcome;
  o.cell = cell;
  o.family = family;
  o.numerics = name(j.expectation.numerics);
  for (const TileSummary& t : c.tiles) {
    o.worst_ulp = std::max(o.worst_ulp, t.max_abs_ulp);
    o.worst_utilization = std::max(o.worst_utilization, t.max_utilization);
  }
  o.workspace = out.workspace;
  o.status = c.passed() && out.workspace.empty() ? CellStatus::pass : CellStatus::fail;
  o.message = out.workspace.empty() ? header_line(c.counts) : cat(out.workspace, "; ", header_line(c.counts));
  // Every element within its bound, yet a tier failed (T0 bitwise, T2 statistics): say which.
  for (const TierResult& t : c.tiers)
    if (t.status == TierStatus::fail && t.key != "t1") o.message += cat("; ", t.title, " FAIL: ", t.detail);
  o.counts = c.counts;
  o.tiers = tier_statuses(c);
  for (const Hint& h : c.hints) o.hints.emplace_back(name(h.kind));
  return j;
}

std::string judgement_report(const Judgement& j, const ReportOptions& options) {
  std::string text = report(j.expectation, j.comparison, options);
  if (!j.outcome.workspace.empty()) text += cat("FAIL ", j.outcome.workspace, "\n");
  return text;
}

CellOutcome judge_cell(const Fixture& f, const Cell& cell, const KernelNumerics& numerics, const KernelOutput& out,
                       const std::string& error_map_dir, std::mutex* hdf5, ErrorMapBudget* budget) {
  std::optional<Judgement> j;
  try {
    j.emplace(judge(f, cell, numerics, out));
  } catch (const std::exception& e) {  // with its family, so the summary table shows it too
    CellOutcome o;
    o.cell = cell;
    o.family = case_family(f.spec);
    o.numerics = name(numerics);
    o.status = CellStatus::error;
    o.message = e.what();
    return o;
  }
  CellOutcome& o = j->outcome;
  if (j->comparison.passed() || error_map_dir.empty()) return o;
  const std::uint64_t bound = budget ? error_map_size_bound(j->expectation, j->comparison) : 0;
  if (budget && !budget->reserve(bound)) {
    o.error_map_skipped = true;
    return o;
  }
  const std::string path = error_map_dir + "/" + cell.name() + ".errmap.h5";
  try {  // a map that cannot be written does not change the verdict
    std::filesystem::create_directories(error_map_dir);
    std::unique_lock<std::mutex> lock;
    if (hdf5) lock = std::unique_lock<std::mutex>(*hdf5);
    write_error_map(path, j->expectation, j->comparison);
    o.error_map = path;
    o.error_map_bytes = std::filesystem::file_size(path);
  } catch (const std::exception& error) {
    o.message += cat(" (error map not written: ", error.what(), ")");
  }
  if (budget) budget->settle(bound, o.error_map_bytes);
  return o;
}

KernelNumerics judged_numerics(const std::optional<KernelNumerics>& declared, Contract contract,
                               std::optional<ScheduleKind> schedule) {
  KernelNumerics n = contract_default(contract);
  n.schedule = ScheduleKind::unknown;  // undeclared: sound for any split of K
  if (declared) n = *declared;
  if (schedule) n.schedule = *schedule;
  return n;
}

CellOutcome unjudged_outcome(const Cell& cell, const KernelRun& r) {
  CellOutcome out;
  out.cell = cell;
  out.message = r.status.message;
  if (r.interrupted) {
    out.status = CellStatus::not_run;
  } else if (r.hang) {
    out.status = CellStatus::hang;
  } else if (r.fault) {
    out.status = CellStatus::fault;
  } else if (r.status.status == TC_ERR_UNSUPPORTED) {
    out.status = CellStatus::not_applicable;
  } else {
    out.status = CellStatus::error;
    out.message = cat(status_name(r.status.status), ": ", r.status.message);
  }
  return out;
}

}  // namespace tc
