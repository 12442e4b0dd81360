// `tilecheck perturb`: the perturbation tier (docs/perturb.md). Runs each cell of a matrix round
// after round in the library's worker processes, each round with a noise kernel beside it (a share
// of the SMs and their shared memory, DRAM traffic, sleeps), launched before or after the kernel on a
// stream of the other priority, all drawn from --seed; every round is judged by the judge chain
// `tilecheck run` uses. Prints the cells with failing rounds and a summary; --json has every cell.
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>
#include <string>

#include "commands.h"
#include "data_paths.h"
#include "option_limits.h"
#include "output_paths.h"
#include "schedule_option.h"
#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/core/error.h"
#include "tilecheck/suite/device_case.h"
#include "tilecheck/suite/interrupt.h"
#include "tilecheck/suite/kernel_workers.h"
#include "tilecheck/suite/library_cells.h"
#include "tilecheck/suite/perturb_report.h"
#include "tilecheck/suite/perturb_run.h"

namespace tc::cli {
namespace {

struct PerturbCliOptions {
  std::string kernel;  // empty: default_kernel_library()
  DataOptions data;
  std::string matrix = "reduced";  // reduced | committed | all
  std::string filter;              // ECMAScript regex on cell names
  std::string contract = "all";
  int rounds = 64;  // the reduced matrix in about 35 s on an H200; fewer missed mutant 2
  std::uint64_t seed = 1;
  double noise_limit_ms = 10;
  double time_budget = 120;
  int device = 0;
  double cell_timeout = 0;
  std::string json;
  std::string error_maps;
  std::string schedule;
};

// --noise-limit-ms: finite, more than 0, at most kMaxNoiseLimitMs.
CLI::Validator noise_limit() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && end == text.c_str() + text.size() && std::isfinite(v);
        if (number && v > 0 && v <= kMaxNoiseLimitMs) return "";
        return cat("'", text, "' is not a number of milliseconds in (0, ", kMaxNoiseLimitMs, "]");
      },
      cat("MS in (0 - ", kMaxNoiseLimitMs, "]"));
}

// The cells of --matrix for this library on this device, narrowed by --contract and --filter: the
// choice tilecheck run makes (library_cells), so a library that lists formats gets their cases'
// cells, and the cases of the formats it does not implement are reported once per format.
LibraryCells perturb_cells(const WorkerInfo& kernel, const GoldenPaths& paths, const std::regex& filter,
                           const PerturbCliOptions& o) {
  CellSelection s;
  s.reduced = o.matrix == "reduced";
  s.committed_only = o.matrix != "all";
  s.contract = o.contract;
  s.filter = filter;
  LibraryCells chosen = library_cells(load_catalogue(paths.catalogue()).entries, kernel, s);
  print_not_in_matrix(std::cerr, chosen);
  require(!chosen.cells.empty(), "no cell of the ", o.matrix, " matrix matches --filter '", o.filter,
          "' and --contract ", o.contract);
  return chosen;
}

// One progress line every few seconds on stderr.
class Progress {
 public:
  void step(std::size_t done, std::size_t total, const Cell& cell) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::seconds(3)) return;
    last_ = now;
    std::fprintf(stderr, "  [%zu/%zu rounds] %.0f s  %s\n", done, total,
                 std::chrono::duration<double>(now - start_).count(), cell.name().c_str());
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
};

int run_perturb(const std::regex& filter, const PerturbCliOptions& o) {
  const GoldenPaths paths = o.data.find().golden;
  KernelWorkersOptions w;
  w.executable = current_executable();
  w.kernel = o.kernel.empty() ? default_kernel_library() : o.kernel;
  w.devices = {o.device};
  w.cell_timeout = o.cell_timeout;
  KernelWorkers workers(w);
  const WorkerInfo& kernel = workers.info();
  PerturbOptions p;
  LibraryCells chosen = perturb_cells(kernel, paths, filter, o);
  const std::vector<Cell>& cells = chosen.cells;
  p.families = chosen.families;
  p.rounds = o.rounds;
  p.seed = o.seed;
  p.noise_limit_ms = o.noise_limit_ms;
  p.time_budget = o.time_budget;
  p.error_maps = o.error_maps;
  if (!o.schedule.empty()) p.schedule = parse_schedule_kind(o.schedule);
  Progress progress;
  p.progress = [&progress](std::size_t done, std::size_t total, const Cell& c) { progress.step(done, total, c); };
  const PerturbHeader header{
      {kernel.kernel_name, kernel.variant, w.kernel, kernel.device, current_provenance().generator_version},
      o.seed,
      o.rounds,
      o.noise_limit_ms,
      o.time_budget,
      chosen.not_in_matrix};
  std::cout << "tilecheck perturb: " << kernel.kernel_name << " (" << kernel.variant << ") from " << w.kernel
            << "\n  on " << kernel.device << " (a worker process); " << cells.size() << " cells of the " << o.matrix
            << " matrix x " << o.rounds << " rounds, seed " << o.seed << ", noise at most " << o.noise_limit_ms
            << " ms a round"
            << (o.time_budget > 0 ? cat(", time budget ", o.time_budget, " s") : std::string(", no time budget"))
            << "\n"
            << std::flush;
  PerturbRun run;
  {
    InterruptScope interruptible;  // SIGINT/SIGTERM: stop launching, report what ran
    run = run_perturbation(workers, cells, paths, p);
  }
  print_perturbation(std::cout, run, header);
  if (!o.json.empty()) {
    write_perturb_json(o.json, run, header);
    std::cout << "cells written to " << o.json << "\n";
  }
  if (run.out_of_time)
    std::cout << "tilecheck perturb: the time budget (" << o.time_budget << " s) was spent: the rounds not reached "
              << "did not run\n";
  const int code = perturbation_passed(run) ? 0 : 1;
  if (run.interrupted) {  // end as the signal would have, now that the report is out
    std::cout.flush();
    std::fflush(nullptr);
    std::raise(interrupt_signal());
  }
  return code;
}

}  // namespace

Command add_perturb(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "perturb",
      "Perturbation tier: every cell round after round with a noise kernel beside it (SMs, shared memory, DRAM "
      "traffic, sleeps; launched before or after; stream priorities), drawn from a seed; reports per cell how "
      "often it failed (GPU)");
  auto o = std::make_shared<PerturbCliOptions>();
  app->add_option("--kernel", o->kernel, "Kernel plugin library (tilecheck/plugin/plugin.h)")
      ->default_str(kDefaultKernelHelp);
  o->data.add_to(app);
  app->add_option("--matrix", o->matrix,
                  "Cells: reduced (the sanitizer tier's cells of the committed cases), committed (every cell of the "
                  "committed cases) or all (on-demand cases too: tilecheck golden regenerate --all first)")
      ->check(CLI::IsMember({"reduced", "committed", "all"}))
      ->capture_default_str();
  app->add_option("--filter", o->filter, "Only cells whose name matches this regex, e.g. 'm1n16k4g8_.*_sms1$'");
  app->add_option("--contract", o->contract, "Only cases of this numerics contract")
      ->check(CLI::IsMember({"marlin", "fp32", "all"}))
      ->capture_default_str();
  app->add_option("--rounds", o->rounds, "Rounds per cell, each with its own noise")
      ->check(CLI::Range(1, kMaxRounds))
      ->capture_default_str();
  app->add_option("--seed", o->seed, "Seed of the rounds' noise (and of a delay variant's delays)")
      ->check(CLI::NonNegativeNumber)  // CLI11 would wrap -3 into a large unsigned seed
      ->capture_default_str();
  app->add_option("--noise-limit-ms", o->noise_limit_ms,
                  "The most a round's noise runs, in ms, whatever happens (it stops when the kernel has ended)")
      ->check(noise_limit())
      ->capture_default_str();
  app->add_option("--time-budget", o->time_budget,
                  "Seconds for the whole tier: no round is launched after them (0: no budget)")
      ->check(timeout_seconds(true))
      ->capture_default_str();
  app->add_option("--device", o->device, "The GPU to run on (CUDA ordinal)")
      ->check(CLI::Range(0, 1023))
      ->capture_default_str();
  app->add_option("--cell-timeout", o->cell_timeout,
                  "Most seconds a round may run from launch to result before it is a HANG (0: as tilecheck run)")
      ->check(timeout_seconds(true))
      ->capture_default_str();
  app->add_option("--json", o->json, "Write every cell's rounds to this JSON file (docs/perturb.md)");
  app->add_option("--errmaps", o->error_maps, "Directory for each failing cell's first failing round's error map");
  add_schedule_option(app, &o->schedule);
  app->footer(
      "A round fails on FAIL (bounds, non-finite values, the guard band, the workspace check), FAULT, HANG or ERROR. "
      "Libraries that export tc_kernel_set_delay_seed (our *_delay variants) get each round's seed for their "
      "delays.\nExit status: 0 every round of every cell ran and passed (n/a cells fail nothing); 1 any round "
      "failed or did not run; 2 bad input or no GPU.");
  return {app, [o] {
            const DataPaths data = o->data.find();
            PathPlan paths;
            paths.input("--kernel", o->kernel).fixtures(data.golden);
            paths.output_file("--json", o->json).output_dir("--errmaps", o->error_maps);
            paths.check();
            require(o->kernel.empty() || std::filesystem::is_regular_file(o->kernel), "--kernel ", o->kernel,
                    ": no such file (expected a kernel plugin library, docs/plugin.md)");
            std::regex filter;
            try {
              filter = std::regex(o->filter);
            } catch (const std::regex_error& e) {
              throw Error(cat("--filter '", o->filter, "' is not a valid regular expression: ", e.what()));
            }
            const std::string why = gpu_unavailable_reason();
            require(why.empty(), "tilecheck perturb runs kernels on a GPU, and there is none here: ", why);
            return run_perturb(filter, *o);
          }};
}

}  // namespace tc::cli
