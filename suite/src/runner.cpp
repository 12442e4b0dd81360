#include "tilecheck/suite/runner.h"

#include <filesystem>

#include "tilecheck/reference/error.h"
#include "tilecheck/compare/errormap.h"
#include "tilecheck/compare/report.h"

namespace tc {

const char* name(CellStatus s) {
  switch (s) {
    case CellStatus::pass: return "pass";
    case CellStatus::fail: return "FAIL";
    case CellStatus::fault: return "FAULT";
    case CellStatus::hang: return "HANG";
    case CellStatus::not_applicable: return "n/a";
    case CellStatus::error: return "ERROR";
  }
  return "?";
}

SuiteRunner::SuiteRunner(const KernelPlugin* kernel, GoldenPaths paths) : kernel_(kernel), paths_(std::move(paths)) {}

std::shared_ptr<const Fixture> SuiteRunner::shared_fixture(const std::string& case_id) {
  if (!fixture_ || fixture_id_ != case_id) {
    device_.reset();
    fixture_.reset();  // the old case's memory goes before the new case loads (unless shared)
    fixture_ = std::make_shared<const Fixture>(load_case(paths_, case_id));
    fixture_id_ = case_id;
  }
  return fixture_;
}

const Fixture& SuiteRunner::fixture(const std::string& case_id) { return *shared_fixture(case_id); }

namespace {

// A suite cell runs its case under the contract the case was generated for (execute() launches the
// kernel with the fixture's contract), so a cell naming another contract is a mistake, not a request.
Expectation cell_expectation(const Fixture& f, const Cell& cell, const KernelNumerics& numerics) {
  if (f.spec.contract != cell.contract)  // (cell.name() formats a string: only on failure)
    throw Error(cat("cell ", cell.name(), " asks for contract ", name(cell.contract), " but case ", cell.case_id,
                    " was generated for ", name(f.spec.contract)));
  return make_expectation(f, cell.contract, numerics, make_schedule(f.spec.shape, cell.config, cell.sms),
                          cell.case_id);
}

}  // namespace

KernelNumerics judged_numerics(const std::optional<KernelNumerics>& declared, Contract contract,
                               std::optional<ScheduleKind> schedule) {
  KernelNumerics n = declared ? *declared : contract_default(contract);
  if (schedule) n.schedule = *schedule;
  return n;
}

Expectation SuiteRunner::expectation(const Cell& cell) {
  return cell_expectation(fixture(cell.case_id), cell, contract_default(cell.contract));
}

Expectation SuiteRunner::expectation(const Cell& cell, const KernelNumerics& numerics) {
  return cell_expectation(fixture(cell.case_id), cell, numerics);
}

KernelRun SuiteRunner::execute(const Cell& cell) {
  if (kernel_ == nullptr) throw Error(cat("no kernel library to run cell ", cell.name()));
  const Fixture& f = fixture(cell.case_id);
  if (!device_)
    device_ = std::make_unique<DeviceCase>(f.A, f.B_marlin, f.scales_marlin, f.spec.shape.group, f.spec.contract);
  Launch l;
  l.config = cell.config;
  l.sms = cell.sms;
  return device_->run(*kernel_, l, workspace_);
}

namespace {

void judge_into(CellOutcome& out, const Fixture& f, const Cell& cell, const KernelNumerics& numerics,
                const HalfMatrix& C, const GuardBand& guard, const std::string& error_map_dir, std::mutex* hdf5,
                ErrorMapBudget* budget) {
  const Expectation e = cell_expectation(f, cell, numerics);
  const Comparison c = compare(e, C, guard);
  for (const TileSummary& t : c.tiles) {
    out.worst_ulp = std::max(out.worst_ulp, t.max_abs_ulp);
    out.worst_utilization = std::max(out.worst_utilization, t.max_utilization);
  }
  out.status = c.passed() ? CellStatus::pass : CellStatus::fail;
  out.message = header_line(c.counts);
  out.counts = c.counts;
  out.tiers = cat("t0=", name(c.t0.status), " t1=", name(c.t1.status), " t2=", name(c.t2.status));
  for (const Hint& h : c.hints) out.hints.emplace_back(name(h.kind));
  if (c.passed() || error_map_dir.empty()) return;
  const std::uint64_t bound = budget ? error_map_size_bound(e, c) : 0;
  if (budget && !budget->reserve(bound)) {
    out.error_map_skipped = true;
    return;
  }
  const std::string path = error_map_dir + "/" + cell.name() + ".errmap.h5";
  try {  // a map that cannot be written does not change the verdict
    std::filesystem::create_directories(error_map_dir);
    std::unique_lock<std::mutex> lock;
    if (hdf5) lock = std::unique_lock<std::mutex>(*hdf5);
    write_error_map(path, e, c);
    out.error_map = path;
    out.error_map_bytes = std::filesystem::file_size(path);
  } catch (const std::exception& error) {
    out.message += cat(" (error map not written: ", error.what(), ")");
  }
  if (budget) budget->settle(bound, out.error_map_bytes);
}

}  // namespace

CellOutcome judge_cell(const Fixture& f, const Cell& cell, const HalfMatrix& C, const GuardBand& guard,
                       const std::string& error_map_dir, std::mutex* hdf5, ErrorMapBudget* budget) {
  return judge_cell(f, cell, contract_default(cell.contract), C, guard, error_map_dir, hdf5, budget);
}

CellOutcome judge_cell(const Fixture& f, const Cell& cell, const KernelNumerics& numerics, const HalfMatrix& C,
                       const GuardBand& guard, const std::string& error_map_dir, std::mutex* hdf5,
                       ErrorMapBudget* budget) {
  CellOutcome out;
  out.cell = cell;
  out.family = case_family(f.spec);
  out.numerics = name(numerics);
  try {
    judge_into(out, f, cell, numerics, C, guard, error_map_dir, hdf5, budget);
  } catch (const std::exception& e) {  // with its family, so the summary table shows it too
    out.status = CellStatus::error;
    out.message = e.what();
  }
  return out;
}

CellOutcome unjudged_outcome(const Cell& cell, const KernelRun& r) {
  CellOutcome out;
  out.cell = cell;
  if (r.hang) {
    out.status = CellStatus::hang;
    out.message = r.status.message;
  } else if (r.fault) {
    out.status = CellStatus::fault;
    out.message = r.status.message;
  } else if (r.status.status == TC_ERR_UNSUPPORTED) {
    out.status = CellStatus::not_applicable;
    out.message = r.status.message;
  } else {
    out.status = CellStatus::error;
    out.message = cat(status_name(r.status.status), ": ", r.status.message);
  }
  return out;
}

}  // namespace tc
