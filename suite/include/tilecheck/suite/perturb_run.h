// The perturbation tier (`tilecheck perturb`, ctest label perturb; docs/perturb.md): races made to
// show in numbers, for any kernel library, without a sanitizer. Every cell runs round after round in
// the library's worker processes, each round with its own noise beside the launch (perturb_plan.h,
// noise.h), and every round's output goes through the one judge chain (judge.h). A round fails when
// its verdict is FAIL (which takes in the non-finite, guard and workspace checks), FAULT, HANG or
// ERROR. The result is, per cell, how many rounds ran and failed, with the first failing round's
// values and the judge's message.
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
#include "tilecheck/suite/perturb_plan.h"

namespace tc {

struct PerturbOptions {
  int rounds = 64;                       // per cell
  std::uint64_t seed = 1;                // the plan's (plan_rounds)
  double noise_limit_ms = 10;            // the most a round's noise runs
  double time_budget = 0;                // seconds after which no round is launched; 0: none
  std::string error_maps;                // each cell's first failing round's error map goes here; '' none
  std::optional<ScheduleKind> schedule;  // --schedule: overrides what the library declares
  std::map<std::string, std::string> families;  // case id -> case_family(), also for cells never run
  // Called after each round (on the calling thread): rounds done, of how many, the cell.
  std::function<void(std::size_t, std::size_t, const Cell&)> progress;
};

// The first failing round of a cell: its values and what the judge (or the run) said.
struct FirstFailure {
  PerturbRound round;
  CellStatus status = CellStatus::fail;
  std::string message;    // the outcome's message: the report's header line, or the fault's text
  TierStatuses tiers;     // judged rounds
  std::string workspace;  // what the workspace check found ("" clean)
  std::string error_map;  // written when PerturbOptions::error_maps is set
};

// One cell's rounds.
struct CellRounds {
  Cell cell;
  std::string family;
  int rounds_planned = 0;
  int rounds_run = 0;     // launched and ended (judged, FAULT, HANG or ERROR)
  int rounds_failed = 0;
  std::map<CellStatus, int> failed_by;  // fail, fault, hang, error
  std::optional<FirstFailure> first_failure;
  std::string not_applicable;  // the library's reason when it does not implement the cell: no round ran
  std::string stopped;         // why rounds stopped before the plan's end ("" when they did not)
  double seconds = 0;          // running and judging its rounds
};

// "failed" (a round failed), "passed" (every planned round ran and passed), "n/a", "not run" (no
// round ran: out of time, interrupted, its configuration given up) or "incomplete" (some ran, none
// failed, the rest did not run).
std::string cell_verdict(const CellRounds& c);

// Folds one round's outcome into its cell's tally; returns whether the cell's next round should run
// (not after n/a, an interruption, or a configuration the workers gave up: their "not run: ..."
// FAULT or HANG, which launched nothing, counts as no round).
bool record_round(CellRounds& c, const PerturbRound& round, const CellOutcome& outcome);

struct PerturbRun {
  std::vector<CellRounds> cells;  // in the order given
  bool interrupted = false;       // SIGINT/SIGTERM stopped it
  bool out_of_time = false;       // the time budget stopped it
  double seconds = 0;
};

// Runs `cells` (matrix order: a case's cells together, so that its inputs go to the worker once),
// each through the rounds plan_rounds(o.seed, cell name, o.rounds, o.noise_limit_ms) gives it, on the
// workers' first slot.
PerturbRun run_perturbation(KernelWorkers& workers, const std::vector<Cell>& cells, const GoldenPaths& paths,
                            const PerturbOptions& o);

}  // namespace tc
