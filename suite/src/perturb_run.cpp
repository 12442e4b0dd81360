#include "tilecheck/suite/perturb_run.h"

#include <chrono>
#include <cstdio>
#include <mutex>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/interrupt.h"
#include "tilecheck/suite/judge.h"
#include "tilecheck/suite/runner.h"

namespace tc {
namespace {

using Clock = std::chrono::steady_clock;

bool is_failure(CellStatus s) {
  return s == CellStatus::fail || s == CellStatus::fault || s == CellStatus::hang || s == CellStatus::error;
}

// The round's outcome through the judge chain, or how its run ended; the error map only for the
// cell's first failure (`error_maps` empty otherwise).
CellOutcome round_outcome(const Fixture& f, const Cell& cell, const CellRun& r, const PerturbOptions& o,
                          const std::string& error_maps, std::mutex& hdf5) {
  if (judgeable(r.run)) {
    try {
      return judge_cell(f, cell, judged_numerics(r.run.declared, cell.contract, o.schedule),
                        {r.run.C, r.run.guard, r.run.workspace}, error_maps, &hdf5);
    } catch (const std::exception& e) {  // a cell the chain cannot judge: ERROR, as in tilecheck run
      CellOutcome out;
      out.cell = cell;
      out.status = CellStatus::error;
      out.message = e.what();
      out.family = case_family(f.spec);
      return out;
    }
  }
  CellOutcome out = unjudged_outcome(cell, r.run);
  out.family = case_family(f.spec);
  return out;
}

}  // namespace

std::string cell_verdict(const CellRounds& c) {
  if (c.rounds_failed > 0) return "failed";
  if (!c.not_applicable.empty()) return "n/a";
  if (c.rounds_run == 0) return "not run";
  return c.rounds_run < c.rounds_planned ? "incomplete" : "passed";
}

bool record_round(CellRounds& c, const PerturbRound& round, const CellOutcome& outcome) {
  if (outcome.status == CellStatus::not_applicable) {
    c.not_applicable = outcome.message;
    return false;
  }
  // Interrupted, or a configuration the workers stopped launching (KernelWorkers: its FAULT or
  // HANG says "not run: configuration ..."): nothing ran.
  if (outcome.status == CellStatus::not_run || outcome.message.rfind("not run", 0) == 0) {
    c.stopped = outcome.message;
    return false;
  }
  ++c.rounds_run;
  if (!is_failure(outcome.status)) return true;
  ++c.rounds_failed;
  ++c.failed_by[outcome.status];
  if (!c.first_failure)
    c.first_failure = FirstFailure{round, outcome.status, outcome.message, outcome.tiers, outcome.workspace,
                                   outcome.error_map};
  return true;
}

PerturbRun run_perturbation(KernelWorkers& workers, const std::vector<Cell>& cells, const GoldenPaths& paths,
                            const PerturbOptions& o) {
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(o.time_budget > 0 ? o.time_budget : 1e9));
  char budget_text[80];
  std::snprintf(budget_text, sizeof budget_text, "not run: the time budget (%.0f s) was spent", o.time_budget);
  PerturbRun run;
  SuiteRunner fixtures(nullptr, paths);
  std::mutex hdf5;  // judge_cell writes error maps under it
  const std::size_t total = cells.size() * static_cast<std::size_t>(o.rounds);
  std::size_t done = 0;
  for (const Cell& cell : cells) {
    CellRounds c;
    c.cell = cell;
    c.rounds_planned = o.rounds;
    const auto family = o.families.find(cell.case_id);
    if (family != o.families.end()) c.family = family->second;
    const auto cell_start = Clock::now();
    std::shared_ptr<const Fixture> f;
    for (const PerturbRound& round : plan_rounds(o.seed, cell.name(), o.rounds, o.noise_limit_ms)) {
      if (interrupt_requested()) {
        run.interrupted = true;
        c.stopped = "not run (interrupted)";
        break;
      }
      if (Clock::now() >= deadline) {
        run.out_of_time = true;
        c.stopped = budget_text;
        break;
      }
      if (!f) f = fixtures.shared_fixture(cell.case_id);
      const CellRun r = workers.run(0, cell, *f, round);
      const std::string first_map = c.first_failure ? "" : o.error_maps;
      const bool more = record_round(c, round, round_outcome(*f, cell, r, o, first_map, hdf5));
      ++done;
      if (o.progress) o.progress(done, total, cell);
      if (!more) break;
    }
    c.seconds = std::chrono::duration<double>(Clock::now() - cell_start).count();
    run.cells.push_back(std::move(c));
  }
  run.interrupted = run.interrupted || interrupt_requested();
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

}  // namespace tc
