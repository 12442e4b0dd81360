// The perturbation tier's report (docs/perturb.md): per cell, how many rounds ran and how many
// failed, with the first failing round's values and the judge's message. Printed as text (the
// failing cells, then a one-line summary) and written as JSON (every cell; format in docs/perturb.md).
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "tilecheck/suite/perturb_run.h"
#include "tilecheck/suite/run_json.h"

namespace tc {

// What ran, for both forms: the library and device (tilecheck run's header) and the tier's options.
struct PerturbHeader {
  RunHeader run;
  std::uint64_t seed = 1;
  int rounds = 0;
  double noise_limit_ms = 0;
  double time_budget = 0;  // 0: none
  // The cases left out for their format, one line per format (library_cells' not_in_matrix): the
  // JSON keeps them; the command prints them before its rounds, as tilecheck run does.
  std::vector<std::string> not_in_matrix;
};

// Counts over a run's cells, by cell_verdict.
struct PerturbCounts {
  int cells = 0, failed = 0, passed = 0, not_applicable = 0, incomplete = 0, not_run = 0;
  long rounds_planned = 0, rounds_run = 0, rounds_failed = 0;
};
PerturbCounts count(const PerturbRun& run);

// True when every cell either ran all its rounds without a failure or is n/a (the exit status 0).
bool perturbation_passed(const PerturbRun& run);

// The failing cells, each with its failure count by verdict, its first failing round and the first
// line of the judge's message; the reasons cells stopped early, each once; then the summary line
// "perturb: 96 cells, 768 of 768 rounds run in 41.2 s (seed 1): 3 cells failed in 9 rounds, ...".
void print_perturbation(std::ostream& out, const PerturbRun& run, const PerturbHeader& header);

// Every cell, atomically (a reader sees the old file or the new one).
void write_perturb_json(const std::string& path, const PerturbRun& run, const PerturbHeader& header);

}  // namespace tc
