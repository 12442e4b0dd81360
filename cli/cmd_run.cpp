// `tilecheck run`: the main job. Runs the suite's matrix (every catalogue case x applicable
// configuration x grid size, tilecheck/suite/cells.h) through a kernel plugin on the GPU, judges
// every cell with the comparator, prints the summary table, writes the error maps of failing
// cells, and exits non-zero on any failure. Without a GPU it says so and judges a committed
// recording of real kernel outputs (fixtures/recordings/) through the same comparator.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <unordered_map>

#include <cuda_runtime.h>

#include "commands.h"
#include "data_paths.h"
#include "option_limits.h"
#include "schedule_option.h"
#include "output_paths.h"
#include "recorded_cells.h"
#include "tilecheck/suite/device_case.h"
#include "tilecheck/reference/error.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/judge_pool.h"
#include "tilecheck/suite/kernel_workers.h"
#include "tilecheck/suite/recording.h"
#include "tilecheck/suite/summary.h"

namespace tc::cli {
namespace {

struct RunOptions {
  std::string kernel;   // empty: default_kernel_library()
  DataOptions data;
  std::string filter;  // ECMAScript regex on cell names
  std::string json;
  std::string error_maps = "tilecheck-errmaps";
  double errmap_budget_mb = 200;  // most megabytes of error maps one run writes
  std::string recording;  // judge this recording instead of running the kernel
  std::string record;     // write the outputs of the cells run here as a recording
  bool reduced = false;
  bool committed = false;  // only cases whose golden file is committed
  unsigned threads = 0;    // judging threads (0: one per hardware thread)
  std::string contract = "all";  // marlin | fp32 | all
  std::string devices = "0";     // CUDA ordinals "0,1", or "all"
  double cell_timeout = 0;       // seconds from launch to result; 0: from the problem's size
  int fault_limit = 3;           // consecutive faults of a configuration before its cells are skipped
  std::string schedule;          // model | unknown; empty: what the library declares (model if nothing)
};

// One progress line every few seconds, so long runs show they are alive (from any thread).
class Progress {
 public:
  explicit Progress(std::size_t total) : total_(total), start_(std::chrono::steady_clock::now()), last_(start_) {}
  void step(std::size_t done, const Cell& cell) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (done == total_ ? ended_ : now - last_ < std::chrono::seconds(3)) return;
    ended_ = done == total_;
    last_ = now;
    std::fprintf(stderr, "  [%zu/%zu] %3.0f%%  %.0f s  %s\n", done, total_, 100.0 * done / total_,
                 std::chrono::duration<double>(now - start_).count(), cell.name().c_str());
  }

 private:
  std::mutex mutex_;
  std::size_t total_;
  std::chrono::steady_clock::time_point start_, last_;
  bool ended_ = false;  // the 100 % line is printed once
};

// --schedule: the judging override of the schedule the bounds assume.
std::optional<ScheduleKind> schedule_override(const RunOptions& o) {
  if (o.schedule.empty()) return std::nullopt;
  return parse_schedule_kind(o.schedule);
}

// The numerics the cells were judged under, with how many cells each.
void print_judged_numerics(const std::vector<CellOutcome>& outcomes) {
  std::map<std::string, int> cells;
  for (const CellOutcome& o : outcomes)
    if (!o.numerics.empty()) ++cells[o.numerics];
  for (const auto& [numerics, count] : cells) std::cout << "bounds: " << numerics << ": " << count << " cells\n";
}

int finish(const Summary& summary, const std::vector<CellOutcome>& outcomes, const RunOptions& o) {
  summary.print(std::cout);
  print_judged_numerics(outcomes);
  if (!o.json.empty()) {
    summary.write_json(o.json);
    std::cout << "cells written to " << o.json << "\n";
  }
  return summary.passed() ? 0 : 1;
}

// --errmap-budget in bytes (MB are 10^6 bytes). The option's range keeps the product inside uint64.
std::uint64_t budget_bytes(const RunOptions& o) { return static_cast<std::uint64_t>(o.errmap_budget_mb * 1e6); }

// The fixture of `case_id`, loaded (or kept) under the HDF5 lock: judges on the workers may be
// writing error maps meanwhile.
std::shared_ptr<const Fixture> fixture_for(SuiteRunner& runner, const std::string& case_id, std::mutex& hdf5) {
  std::lock_guard<std::mutex> lock(hdf5);
  return runner.shared_fixture(case_id);
}

int judge_recording(const std::string& path, const std::regex& filter, const RunOptions& o) {
  const Recording recording = read_recording(path);
  std::cout << "recording " << path << ": " << recording.cells.size() << " cells of " << recording.kernel << " ("
            << recording.variant << ") on " << recording.device << ", tilecheck " << recording.tilecheck_version
            << "\n";
  std::vector<const RecordedCell*> chosen;
  for (const RecordedCell& r : recording.cells)
    if (std::regex_search(r.cell.name(), filter)) chosen.push_back(&r);
  require(!chosen.empty(), "no recorded cell matches --filter '", o.filter, "'");
  const GoldenPaths golden = o.data.find().golden;
  const Catalogue catalogue = load_catalogue(golden.catalogue());
  for (const RecordedCell* r : chosen) check_recorded_cell(*r, catalogue, path);
  SuiteRunner runner(nullptr, golden);
  std::mutex hdf5;  // fixture loads here, error-map writes on the workers
  JudgePool pool(o.threads);
  ErrorMapBudget budget(budget_bytes(o));
  Progress progress(chosen.size());
  for (const RecordedCell* r : chosen) {
    const std::shared_ptr<const Fixture> f = fixture_for(runner, r->cell.case_id, hdf5);
    const KernelNumerics numerics = judged_numerics(r->declared, r->cell.contract, schedule_override(o));
    pool.submit(r->cell, [f, r, numerics, &o, &hdf5, &budget] {
      return judge_cell(*f, r->cell, numerics, r->C, r->guard, o.error_maps, &hdf5, &budget);
    });
    progress.step(pool.completed(), r->cell);
  }
  Summary summary;
  const std::vector<CellOutcome> outcomes = pool.finish();
  for (const CellOutcome& outcome : outcomes) summary.add(outcome);
  progress.step(chosen.size(), chosen.back()->cell);
  return finish(summary, outcomes, o);
}

// The matrix for this kernel library on this device, narrowed by --reduced, --committed and --filter.
std::vector<Cell> live_cells(const WorkerInfo& kernel, const GoldenPaths& paths, const std::regex& filter,
                             const RunOptions& o) {
  MatrixOptions m;
  m.kernel = kernel.kernel_name;
  m.variant = kernel.variant;
  m.all_sms = kernel.multiprocessors;
  m.reduced = o.reduced;
  std::vector<CatalogueEntry> entries = load_catalogue(paths.catalogue()).entries;
  if (o.committed)
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [](const CatalogueEntry& e) { return e.storage != Storage::committed; }),
                  entries.end());
  if (o.contract != "all")
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const CatalogueEntry& e) { return name(e.spec.contract) != o.contract; }),
                  entries.end());
  std::vector<Cell> cells;
  for (const Cell& c : suite_cells(entries, kernel.configs, m))
    if (std::regex_search(c.name(), filter)) cells.push_back(c);
  require(!cells.empty(), "no cell of the matrix matches --filter '", o.filter, "' and --contract ", o.contract);
  return cells;
}

// A live run's outcome (on a pool worker): judged, or FAULT / ERROR when the run left nothing to
// judge; its seconds are the kernel's run and the judging together.
CellOutcome live_outcome(const Fixture& f, const Cell& cell, const KernelRun& r, double run_seconds,
                         const RunOptions& o, std::mutex& hdf5, ErrorMapBudget& budget) {
  const auto judged = std::chrono::steady_clock::now();
  CellOutcome outcome;
  if (judgeable(r)) {
    outcome = judge_cell(f, cell, judged_numerics(r.declared, cell.contract, schedule_override(o)), r.C, r.guard,
                         o.error_maps, &hdf5, &budget);
  } else {
    outcome = unjudged_outcome(cell, r);
    outcome.family = case_family(f.spec);
  }
  outcome.seconds = run_seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - judged).count();
  return outcome;
}

// --devices: "all", or a comma-separated list of CUDA ordinals that exist here.
std::vector<int> parse_devices(const std::string& text) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  require(e == cudaSuccess, "cudaGetDeviceCount: ", cudaGetErrorString(e));
  std::vector<int> devices;
  if (text == "all") {
    for (int d = 0; d < count; ++d) devices.push_back(d);
    return devices;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    require(!item.empty() && item.find_first_not_of("0123456789") == std::string::npos && item.size() < 4,
            "--devices '", text, "': '", item, "' is not a device ordinal (expected 'all' or e.g. '0,1')");
    const int d = std::stoi(item);
    require(d < count, "--devices '", text, "': device ", d, " does not exist (this machine has ", count, ")");
    require(std::find(devices.begin(), devices.end(), d) == devices.end(), "--devices '", text, "' names device ",
            d, " twice");
    devices.push_back(d);
    start = comma + 1;
  }
  return devices;
}

// The cells of one case, in matrix order: a worker uploads a case's inputs once for all of them.
std::vector<std::pair<std::size_t, std::size_t>> case_runs(const std::vector<Cell>& cells) {
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (runs.empty() || cells[runs.back().first].case_id != cells[i].case_id) runs.push_back({i, i});
    runs.back().second = i + 1;
  }
  return runs;
}

int run_live(const std::regex& filter, const RunOptions& o) {
  const GoldenPaths paths = o.data.find().golden;  // before any worker starts: bad paths fail first
  KernelWorkersOptions w;
  w.executable = current_executable();
  w.kernel = o.kernel.empty() ? default_kernel_library() : o.kernel;
  w.devices = parse_devices(o.devices);
  w.cell_timeout = o.cell_timeout;
  w.fault_limit = o.fault_limit;
  KernelWorkers workers(w);
  const WorkerInfo& kernel = workers.info();
  const std::vector<Cell> cells = live_cells(kernel, paths, filter, o);
  std::mutex hdf5;  // fixture loads on the feeders, error-map writes on the judges
  JudgePool pool(o.threads);
  ErrorMapBudget budget(budget_bytes(o));
  std::cout << "tilecheck run: " << kernel.kernel_name << " (" << kernel.variant << ") from " << w.kernel << "\n  on "
            << kernel.device << " x " << workers.slots() << " (worker processes); " << cells.size()
            << " cells, judged on " << pool.threads() << " threads\n  numerics: "
            << (kernel.declares_numerics ? "declared by the library per problem (tc_plugin_numerics)"
                                         : "not declared: each case's contract, Marlin's striped schedule")
            << (o.schedule.empty() ? "" : "; judged with --schedule " + o.schedule) << "\n";
  Recording recording;
  std::mutex recording_mutex;
  Progress progress(cells.size());
  const auto runs = case_runs(cells);
  std::atomic<std::size_t> next_run{0};
  // One feeder thread per device: it takes the next case, runs its cells in its worker, and hands
  // each output to the judges.
  const auto feed = [&](int slot) {
    SuiteRunner fixtures(nullptr, paths);
    for (std::size_t r = next_run++; r < runs.size(); r = next_run++) {
      for (std::size_t i = runs[r].first; i < runs[r].second; ++i) {
        const Cell& cell = cells[i];
        const std::shared_ptr<const Fixture> f = fixture_for(fixtures, cell.case_id, hdf5);
        auto run = std::make_shared<const CellRun>(workers.run(slot, cell, *f));
        if (!o.record.empty() && run->run.status.ok()) {
          std::lock_guard<std::mutex> lock(recording_mutex);
          recording.cells.push_back({cell, run->run.C, run->run.guard, run->run.declared});
        }
        pool.submit(cell, [f, run, &cell, &o, &hdf5, &budget] {
          return live_outcome(*f, cell, run->run, run->seconds, o, hdf5, budget);
        });
        progress.step(pool.completed(), cell);
      }
    }
  };
  std::vector<std::thread> feeders;
  for (int slot = 0; slot < workers.slots(); ++slot) feeders.emplace_back(feed, slot);
  for (std::thread& t : feeders) t.join();
  std::vector<CellOutcome> outcomes = pool.finish();
  // Several feeders submit in any order: report in matrix order.
  std::unordered_map<std::string, std::size_t> order;
  for (std::size_t i = 0; i < cells.size(); ++i) order[cells[i].name()] = i;
  std::sort(outcomes.begin(), outcomes.end(),
            [&](const CellOutcome& a, const CellOutcome& b) { return order[a.cell.name()] < order[b.cell.name()]; });
  Summary summary;
  for (const CellOutcome& outcome : outcomes) summary.add(outcome);
  progress.step(cells.size(), cells.back());
  if (!o.record.empty()) {
    recording.device = kernel.device;
    recording.kernel = kernel.kernel_name;
    recording.variant = kernel.variant;
    recording.tilecheck_version = current_provenance().generator_version;
    write_recording(recording, o.record);
    std::cout << "recorded " << recording.cells.size() << " outputs to " << o.record << "\n";
  }
  return finish(summary, outcomes, o);
}

}  // namespace

Command add_run(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "run",
      "Main job: the catalogue x configurations x grid sizes through a kernel plugin on the GPU, judged "
      "against the golden fixtures; without a GPU, a committed recording of real outputs judged the same way");
  auto o = std::make_shared<RunOptions>();
  app->add_option("--kernel", o->kernel, "Kernel plugin library (tilecheck/kernel/plugin.h)")->default_str(kDefaultKernelHelp);
  o->data.add_to(app);
  app->add_option("--filter", o->filter, "Only cells whose name matches this regex, e.g. 'm2n16k4g8_.*_sms7$'");
  app->add_option("--json", o->json, "Write every cell's outcome to this JSON file");
  app->add_option("--errmaps", o->error_maps, "Directory for the error maps of failing cells ('' for none)")
      ->capture_default_str();
  app->add_option("--errmap-budget", o->errmap_budget_mb,
                  "Most megabytes of error maps this run writes; failing cells past it keep their verdicts, without "
                  "a map, and the summary counts them")
      ->check(CLI::Range(0.0, 1e9))  // NaN passes Range: refused when the command starts
      ->capture_default_str();
  app->add_option("--recording", o->recording,
                  cat("Judge this recording instead of running a kernel (default without a GPU: ", kDefaultRecordingHelp, ")"));
  app->add_option("--record", o->record, "Also write the outputs of the cells run as a recording (HDF5)");
  app->add_flag("--reduced", o->reduced, "Only the reduced matrix (the sanitizer tier's cells)");
  app->add_option("--threads", o->threads, "Threads judging cells, one cell each (0: one per hardware thread)")
      ->check(judge_threads())
      ->capture_default_str();
  app->add_flag("--committed", o->committed, "Only cases whose golden file is committed (no large on-demand ones)");
  app->add_option("--contract", o->contract, "Only cases of this numerics contract")
      ->check(CLI::IsMember({"marlin", "fp32", "all"}))
      ->capture_default_str();
  app->add_option("--devices", o->devices, "GPUs to run on, one worker process each: 'all' or ordinals like '0,1'")
      ->capture_default_str();
  app->add_option("--cell-timeout", o->cell_timeout,
                  "Seconds a cell may run from launch to result before it is a HANG (0: 30 s plus the multiply-adds "
                  "at 0.1 TFLOP/s)")
      ->check(timeout_seconds(true))
      ->capture_default_str();
  add_schedule_option(app, &o->schedule);
  app->add_option("--fault-limit", o->fault_limit,
                  "Consecutive FAULT/HANG cells of one configuration after which its other cells are not run")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app->footer(
      "Each kernel runs in worker processes: a cell that faults, crashes or hangs is FAULT or HANG and the run goes "
      "on. A cell the library does not implement (TC_ERR_UNSUPPORTED) is n/a, never a failure.\n"
      "Exit status: 0 every cell that ran passed; 1 any FAIL, FAULT, HANG or ERROR; 2 bad input.");
  return {app, [o] {
            require(o->errmap_budget_mb >= 0, "--errmap-budget ", o->errmap_budget_mb,
                    ": expected megabytes from 0 to 1e9");
            const DataPaths data = o->data.find();
            PathPlan paths;
            paths.input("--recording", o->recording).input("--kernel", o->kernel)
                .input("the committed recording", data.recordings_dir + "/h200.h5");
            paths.fixtures(data.golden);
            paths.output_file("--json", o->json).output_file("--record", o->record).output_dir("--errmaps", o->error_maps);
            paths.check();
            std::regex filter;
            try {
              filter = std::regex(o->filter);
            } catch (const std::regex_error& e) {
              throw Error(cat("--filter '", o->filter, "' is not a valid regular expression: ", e.what()));
            }
            if (!o->recording.empty()) return judge_recording(o->recording, filter, *o);
            const std::string why = gpu_unavailable_reason();
            if (!why.empty()) {
              require(o->record.empty(), "--record needs a GPU (", why, ")");
              std::cout << "tilecheck run: no GPU here (" << why << ").\n"
                        << "Judging the committed recording of an H200 run instead, through the same comparator.\n";
              return judge_recording(o->data.find().recordings_dir + "/h200.h5", filter, *o);
            }
            return run_live(filter, *o);
          }};
}

}  // namespace tc::cli
