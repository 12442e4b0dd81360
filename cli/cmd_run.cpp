// `tilecheck run`: the main job. Runs the suite's matrix (every catalogue case x applicable
// configuration x grid size, tilecheck/suite/cells.h) through a kernel plugin on the GPU, judges
// every cell with the comparator, prints the summary table, writes the error maps of failing
// cells, and exits non-zero on any failure. Without a GPU it says so and judges a committed
// recording of real kernel outputs (fixtures/recordings/) through the same comparator.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <thread>

#include <cuda_runtime.h>

#include "commands.h"
#include "data_paths.h"
#include "option_limits.h"
#include "schedule_option.h"
#include "output_paths.h"
#include "recorded_cells.h"
#include "tilecheck/suite/device_case.h"
#include "tilecheck/core/error.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/interrupt.h"
#include "tilecheck/suite/judge_pool.h"
#include "tilecheck/suite/kernel_workers.h"
#include "tilecheck/suite/library_cells.h"
#include "tilecheck/suite/recording.h"
#include "tilecheck/suite/run_matrix.h"
#include "tilecheck/suite/runner.h"
#include "tilecheck/suite/summary.h"

namespace tc::cli {
namespace {

struct RunOptions {
  std::string kernel;   // empty: default_kernel_library()
  DataOptions data;
  std::string filter;  // ECMAScript regex on cell names
  std::string json;
  std::string resume;   // a --json file of an earlier run: run only the cells it has no verdict for
  std::string error_maps = "tilecheck-errmaps";
  double errmap_budget_mb = 200;  // most megabytes of error maps one run writes
  std::string recording;  // judge this recording instead of running the kernel
  std::string record;     // write the outputs of the cells run here as a recording
  bool reduced = false;
  bool committed = false;  // only cases whose golden file is committed
  unsigned threads = 0;    // judging threads (0: one per hardware thread)
  std::string contract = "all";  // marlin | fp32 | all
  std::string devices = "0";     // CUDA ordinals "0,1", or "all"
  double cell_timeout = 0;       // the watchdog's cap, seconds from launch to result; 0: from the problem's size
  double time_budget = 0;        // seconds for the whole run; 0: none
  int fault_limit = 3;           // consecutive faults of a configuration before its cells are skipped
  int hang_limit = 2;            // hangs of a configuration before its cells are skipped
  std::string schedule;          // model | unknown; empty: what the library declares (unknown if nothing)
};

// One progress line every few seconds, so long runs show they are alive (from any thread).
class Progress {
 public:
  Progress() : start_(std::chrono::steady_clock::now()), last_(start_) {}
  void step(std::size_t done, std::size_t total, const Cell& cell) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    // The first verdict's line at once (the run is under way: a signal from now on keeps results),
    // then one every 3 s, and the 100 % line once.
    const bool first = done > 0 && !first_shown_;
    if (done == total ? ended_ : !first && now - last_ < std::chrono::seconds(3)) return;
    first_shown_ = first_shown_ || done > 0;
    ended_ = done == total;
    last_ = now;
    std::fprintf(stderr, "  [%zu/%zu] %3.0f%%  %.0f s  %s\n", done, total, 100.0 * done / std::max<std::size_t>(total, 1),
                 std::chrono::duration<double>(now - start_).count(), cell.name().c_str());
  }

 private:
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_, last_;
  bool first_shown_ = false;  // the line of the first cell with a verdict
  bool ended_ = false;        // the 100 % line is printed once
};

// --schedule: the judging override of the schedule the bounds assume.
std::optional<ScheduleKind> schedule_override(const RunOptions& o) {
  if (o.schedule.empty()) return std::nullopt;
  return parse_schedule_kind(o.schedule);
}

// The bounds that judged the library's cells, with how many cells each.
void print_judged_numerics(const std::string& library, const std::vector<CellOutcome>& outcomes) {
  std::map<std::string, int> cells;
  for (const CellOutcome& o : outcomes)
    if (!o.numerics.empty()) ++cells[o.numerics];
  for (const auto& [numerics, count] : cells)
    std::cout << "bounds for " << library << ": " << numerics << ": " << count << " cells\n";
}

// The table and the bounds; `json` names the results file, written here when `write` (a live run's
// pipeline has written it already).
int finish(const Summary& summary, const RunHeader& header, const std::string& json, bool write) {
  summary.print(std::cout);
  print_judged_numerics(header.kernel, summary.outcomes());
  if (!json.empty()) {
    if (write) summary.write_json(json, header);
    std::cout << "cells written to " << json << "\n";
  }
  return summary.passed() ? 0 : 1;
}

// --errmap-budget in bytes (MB are 10^6 bytes). The option's range keeps the product inside uint64.
std::uint64_t budget_bytes(const RunOptions& o) { return static_cast<std::uint64_t>(o.errmap_budget_mb * 1e6); }

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
  SuiteRunner fixtures(nullptr, golden);
  std::mutex hdf5;  // fixture loads here, error-map writes on the workers
  JudgePool pool(o.threads);
  ErrorMapBudget budget(budget_bytes(o));
  Progress progress;
  for (const RecordedCell* r : chosen) {
    std::shared_ptr<const Fixture> f;
    {
      std::lock_guard<std::mutex> lock(hdf5);
      f = fixtures.shared_fixture(r->cell.case_id);
    }
    const KernelNumerics numerics = judged_numerics(r->declared, r->cell.contract, schedule_override(o));
    pool.submit(r->cell, [f, r, numerics, &o, &hdf5, &budget] {
      return judge_cell(*f, r->cell, numerics, {r->C, r->guard, r->workspace}, o.error_maps, &hdf5, &budget);
    });
    progress.step(pool.completed(), chosen.size(), r->cell);
  }
  Summary summary;
  for (const CellOutcome& outcome : pool.finish()) summary.add(outcome);
  progress.step(chosen.size(), chosen.size(), chosen.back()->cell);
  return finish(summary, {recording.kernel, recording.variant, path, recording.device, recording.tilecheck_version},
                o.json, true);
}

// The matrix for this kernel library on this device, narrowed by --reduced, --committed, --contract
// and --filter (library_cells, shared with tilecheck perturb); `families` gets each case's summary
// column. The cases of formats the library does not implement are reported once per format.
std::vector<Cell> live_cells(const WorkerInfo& kernel, const GoldenPaths& paths, const std::regex& filter,
                             const RunOptions& o, std::map<std::string, std::string>& families) {
  CellSelection s;
  s.reduced = o.reduced;
  s.committed_only = o.committed;
  s.contract = o.contract;
  s.filter = filter;
  LibraryCells chosen = library_cells(load_catalogue(paths.catalogue()).entries, kernel, s);
  print_not_in_matrix(std::cerr, chosen);
  require(!chosen.cells.empty(), "no cell of the matrix matches --filter '", o.filter, "' and --contract ", o.contract);
  families = std::move(chosen.families);
  return std::move(chosen.cells);
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

// --resume FILE: the verdicts of an earlier run of the same library, checked to be of it.
RunFile resumed_run(const RunOptions& o, const WorkerInfo& kernel) {
  if (o.resume.empty()) return {};
  RunFile earlier = read_run_json(o.resume);
  require(earlier.header.kernel == kernel.kernel_name && earlier.header.variant == kernel.variant, "--resume ",
          o.resume, " holds a run of ", earlier.header.kernel.empty() ? "an unnamed library" : earlier.header.kernel,
          " (", earlier.header.variant, "), not of ", kernel.kernel_name, " (", kernel.variant, ")");
  return earlier;
}

int run_live(const std::regex& filter, const RunOptions& o) {
  const GoldenPaths paths = o.data.find().golden;  // before any worker starts: bad paths fail first
  KernelWorkersOptions w;
  w.executable = current_executable();
  w.kernel = o.kernel.empty() ? default_kernel_library() : o.kernel;
  w.devices = parse_devices(o.devices);
  w.cell_timeout = o.cell_timeout;
  w.fault_limit = o.fault_limit;
  w.hang_limit = o.hang_limit;
  KernelWorkers workers(w);
  const WorkerInfo& kernel = workers.info();
  MatrixRunOptions m;
  const std::vector<Cell> cells = live_cells(kernel, paths, filter, o, m.families);
  const RunFile earlier = resumed_run(o, kernel);
  m.error_maps = o.error_maps;
  m.errmap_budget_bytes = budget_bytes(o);
  m.threads = o.threads;
  m.schedule = schedule_override(o);
  m.time_budget = o.time_budget;
  m.json = o.json.empty() ? o.resume : o.json;  // a resumed file is completed in place unless --json says where
  m.header = {kernel.kernel_name, kernel.variant, w.kernel, kernel.device, current_provenance().generator_version};
  m.record = !o.record.empty();
  Progress progress;
  m.progress = [&progress](std::size_t done, std::size_t total, const Cell& cell) { progress.step(done, total, cell); };
  std::cout << "tilecheck run: " << kernel.kernel_name << " (" << kernel.variant << ") from " << w.kernel << "\n  on "
            << kernel.device << " x " << workers.slots() << " (worker processes); " << cells.size()
            << " cells, judged on " << (o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency()))
            << " threads\n  numerics: "
            << (kernel.declares_numerics ? "declared by the library per problem (tc_plugin_numerics)"
                                         : "not declared: each case's contract, with the bounds that hold for any "
                                           "split of K (--schedule model assumes Marlin's striped split)")
            << (o.schedule.empty() ? "" : "; judged with --schedule " + o.schedule) << "\n";
  if (!o.resume.empty()) {
    std::size_t kept = 0;
    for (const CellOutcome& c : earlier.outcomes) kept += c.status != CellStatus::not_run;
    std::cout << "  resuming " << o.resume << ": " << kept << " of its " << earlier.outcomes.size()
              << " cells have a verdict and are not run again\n";
  }
  std::cout << std::flush;
  MatrixRun run;
  {
    InterruptScope interruptible;  // SIGINT/SIGTERM: stop launching, keep what ran
    run = run_matrix(workers, cells, paths, m, earlier.outcomes);
  }
  Summary summary;
  for (const CellOutcome& outcome : run.outcomes) summary.add(outcome);
  if (run.interrupted)
    std::cout << "tilecheck run: interrupted (signal " << interrupt_signal() << "): the cells not reached are "
              << "\"not run\"; `tilecheck run --resume " << (m.json.empty() ? "<--json file>" : m.json)
              << "` runs them\n";
  if (run.out_of_time)
    std::cout << "tilecheck run: the time budget (" << o.time_budget << " s) was spent: the cells not reached are "
              << "\"not run\"\n";
  if (!o.record.empty()) {
    Recording recording;
    recording.cells = std::move(run.recorded);
    recording.device = kernel.device;
    recording.kernel = kernel.kernel_name;
    recording.variant = kernel.variant;
    recording.tilecheck_version = current_provenance().generator_version;
    write_recording(recording, o.record);
    std::cout << "recorded " << recording.cells.size() << " outputs to " << o.record << "\n";
  }
  const int code = finish(summary, m.header, m.json, false);
  if (run.interrupted) {  // end as the signal would have, now that the results are kept
    std::cout.flush();
    std::fflush(nullptr);
    std::raise(interrupt_signal());
  }
  return code;
}

}  // namespace

Command add_run(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "run",
      "Main job: the catalogue x configurations x grid sizes through a kernel plugin on the GPU, judged "
      "against the golden fixtures; without a GPU, a committed recording of real outputs judged the same way");
  auto o = std::make_shared<RunOptions>();
  app->add_option("--kernel", o->kernel, "Kernel plugin library (tilecheck/plugin/plugin.h)")->default_str(kDefaultKernelHelp);
  o->data.add_to(app);
  app->add_option("--filter", o->filter, "Only cells whose name matches this regex, e.g. 'm2n16k4g8_.*_sms7$'");
  app->add_option("--json", o->json,
                  "Write every cell's outcome to this JSON file, rewritten as cells finish (an interrupted run keeps "
                  "what ran; cells without a verdict say \"not run\")");
  app->add_option("--resume", o->resume,
                  "Run only the cells this earlier --json file has no verdict for, and report them all together "
                  "(the file is completed in place unless --json names another)");
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
                  "Most seconds a cell may run from launch to result before it is a HANG (0: 30 s plus the "
                  "multiply-adds at 0.1 TFLOP/s). The watchdog adapts below it: max(5 s, 20 x what the "
                  "configuration's completed cells predict at the cell's size)")
      ->check(timeout_seconds(true))
      ->capture_default_str();
  app->add_option("--time-budget", o->time_budget,
                  "Seconds for the whole run: no cell is launched after them, and those left are \"not run: the time "
                  "budget ... was spent\" (0: no budget)")
      ->check(timeout_seconds(true))
      ->capture_default_str();
  add_schedule_option(app, &o->schedule);
  app->add_option("--fault-limit", o->fault_limit,
                  "Consecutive FAULT/HANG cells of one configuration after which its other cells are not run")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app->add_option("--hang-limit", o->hang_limit,
                  "HANG cells of one configuration (consecutive or not) after which its other cells are not run")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app->footer(
      "Each kernel runs in worker processes: a cell that faults, crashes or hangs is FAULT or HANG and the run goes "
      "on. A cell the library does not implement (TC_ERR_UNSUPPORTED) is n/a, never a failure. After every cell the "
      "workspace's locks must be zero again (docs/plugin.md).\n"
      "SIGINT/SIGTERM stop the run cleanly: the summary of what ran is printed, --json keeps it, --resume finishes it.\n"
      "Exit status: 0 every cell ran and passed; 1 any FAIL, FAULT, HANG, ERROR or cell not run; 2 bad input; "
      "killed by the signal after an interruption.");
  return {app, [o] {
            require(o->errmap_budget_mb >= 0, "--errmap-budget ", o->errmap_budget_mb,
                    ": expected megabytes from 0 to 1e9");
            const DataPaths data = o->data.find();
            PathPlan paths;
            paths.input("--recording", o->recording).input("--kernel", o->kernel)
                .input("the committed recording", data.recordings_dir + "/h200.h5");
            paths.fixtures(data.golden);
            paths.input("--resume", o->resume);
            if (o->resume.empty() || (!o->json.empty() && o->json != o->resume)) paths.output_file("--json", o->json);
            paths.output_file("--record", o->record).output_dir("--errmaps", o->error_maps);
            paths.check();
            if (!o->resume.empty() && (o->json.empty() || o->json == o->resume)) {  // completed in place
              const std::string dir = std::filesystem::path(o->resume).parent_path().string();
              require_writable_directory("--resume", o->resume, dir.empty() ? "." : dir);
            }
            std::regex filter;
            try {
              filter = std::regex(o->filter);
            } catch (const std::regex_error& e) {
              throw Error(cat("--filter '", o->filter, "' is not a valid regular expression: ", e.what()));
            }
            if (!o->recording.empty()) {
              require(o->resume.empty(), "--resume continues a live run; it does not apply to --recording");
              return judge_recording(o->recording, filter, *o);
            }
            const std::string why = gpu_unavailable_reason();
            if (!why.empty()) {
              require(o->record.empty(), "--record needs a GPU (", why, ")");
              require(o->resume.empty(), "--resume needs a GPU to run the cells left (", why, ")");
              std::cout << "tilecheck run: no GPU here (" << why << ").\n"
                        << "Judging the committed recording of an H200 run instead, through the same comparator.\n";
              return judge_recording(o->data.find().recordings_dir + "/h200.h5", filter, *o);
            }
            return run_live(filter, *o);
          }};
}

}  // namespace tc::cli
