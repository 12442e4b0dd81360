// `tilecheck run`: the main job. Runs the suite's matrix (every catalogue case x applicable
// configuration x grid size, tilecheck/suite_cells.h) through a kernel plugin on the GPU, judges
// every cell with the comparator, prints the summary table, writes the error maps of failing
// cells, and exits non-zero on any failure. Without a GPU it says so and judges a committed
// recording of real kernel outputs (fixtures/recordings/) through the same comparator.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <regex>
#include <string>

#include "commands.h"
#include "tilecheck/device_case.h"
#include "tilecheck/error.h"
#include "tilecheck/fixture.h"
#include "tilecheck/golden.h"
#include "tilecheck/recording.h"
#include "tilecheck/suite_summary.h"

namespace tc::cli {
namespace {

struct RunOptions {
  std::string kernel = TC_DEFAULT_KERNEL;
  std::string filter;  // ECMAScript regex on cell names
  std::string json;
  std::string error_maps = "tilecheck-errmaps";
  std::string recording;  // judge this recording instead of running the kernel
  std::string record;     // write the outputs of the cells run here as a recording
  bool reduced = false;
  bool committed = false;  // only cases whose golden file is committed
};

// One progress line every few seconds, so long runs show they are alive.
class Progress {
 public:
  explicit Progress(std::size_t total) : total_(total), start_(std::chrono::steady_clock::now()), last_(start_) {}
  void step(std::size_t done, const Cell& cell) {
    const auto now = std::chrono::steady_clock::now();
    if (done != total_ && now - last_ < std::chrono::seconds(3)) return;
    last_ = now;
    std::fprintf(stderr, "  [%zu/%zu] %3.0f%%  %.0f s  %s\n", done, total_, 100.0 * done / total_,
                 std::chrono::duration<double>(now - start_).count(), cell.name().c_str());
  }

 private:
  std::size_t total_;
  std::chrono::steady_clock::time_point start_, last_;
};

int finish(const Summary& summary, const RunOptions& o) {
  summary.print(std::cout);
  if (!o.json.empty()) {
    summary.write_json(o.json);
    std::cout << "cells written to " << o.json << "\n";
  }
  return summary.passed() ? 0 : 1;
}

int judge_recording(const std::string& path, const std::regex& filter, const RunOptions& o) {
  const Recording recording = read_recording(path);
  std::cout << "recording " << path << ": " << recording.cells.size() << " cells of " << recording.kernel << " ("
            << recording.variant << ") on " << recording.device << ", tilecheck " << recording.tilecheck_version
            << "\n";
  SuiteRunner runner(nullptr, default_golden_paths());
  Summary summary;
  Progress progress(recording.cells.size());
  std::size_t done = 0;
  for (const RecordedCell& r : recording.cells) {
    ++done;
    if (!std::regex_search(r.cell.name(), filter)) continue;
    CellOutcome outcome;
    try {
      outcome = runner.judge(r.cell, r.C, r.guard, o.error_maps);
    } catch (const Error& e) {
      outcome.cell = r.cell;
      outcome.status = CellStatus::error;
      outcome.message = e.what();
    }
    summary.add(outcome);
    progress.step(done, r.cell);
  }
  require(!summary.outcomes().empty(), "no recorded cell matches --filter '", o.filter, "'");
  return finish(summary, o);
}

int run_live(const std::regex& filter, const RunOptions& o) {
  const KernelPlugin kernel = KernelPlugin::load(o.kernel);
  MatrixOptions m;
  m.order = kernel.info().variant;
  m.all_sms = device_multiprocessors();
  m.reduced = o.reduced;
  const GoldenPaths paths = default_golden_paths();
  std::vector<CatalogueEntry> entries = load_catalogue(paths.catalogue()).entries;
  if (o.committed)
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [](const CatalogueEntry& e) { return e.storage != Storage::committed; }),
                  entries.end());
  std::vector<Cell> cells;
  for (const Cell& c : suite_cells(entries, kernel.configs(), m))
    if (std::regex_search(c.name(), filter)) cells.push_back(c);
  require(!cells.empty(), "no cell of the matrix matches --filter '", o.filter, "'");
  std::cout << "tilecheck run: " << kernel.info().name << " (" << kernel.info().variant << ") from " << o.kernel
            << "\n  on " << device_description() << "; " << cells.size() << " cells\n";
  SuiteRunner runner(&kernel, paths);
  Summary summary;
  Recording recording;
  Progress progress(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto start = std::chrono::steady_clock::now();
    const KernelRun r = runner.execute(cells[i]);
    if (!o.record.empty() && r.status.ok()) recording.cells.push_back({cells[i], r.C, r.guard});
    CellOutcome outcome = runner.outcome(cells[i], r, o.error_maps);
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    summary.add(outcome);
    progress.step(i + 1, cells[i]);
  }
  if (!o.record.empty()) {
    recording.device = device_description();
    recording.kernel = kernel.info().name;
    recording.variant = kernel.info().variant;
    recording.tilecheck_version = current_provenance().generator_version;
    write_recording(recording, o.record);
    std::cout << "recorded " << recording.cells.size() << " outputs to " << o.record << "\n";
  }
  return finish(summary, o);
}

}  // namespace

Command add_run(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "run",
      "Main job: the catalogue x configurations x grid sizes through a kernel plugin on the GPU, judged "
      "against the golden fixtures; without a GPU, a committed recording of real outputs judged the same way");
  auto o = std::make_shared<RunOptions>();
  app->add_option("--kernel", o->kernel, "Kernel plugin library (tilecheck/plugin.h)")->capture_default_str();
  app->add_option("--filter", o->filter, "Only cells whose name matches this regex, e.g. 'm2n16k4g8_.*_sms7$'");
  app->add_option("--json", o->json, "Write every cell's outcome to this JSON file");
  app->add_option("--errmaps", o->error_maps, "Directory for the error maps of failing cells ('' for none)")
      ->capture_default_str();
  app->add_option("--recording", o->recording,
                  "Judge this recording instead of running a kernel (default without a GPU: " TC_DEFAULT_RECORDING ")");
  app->add_option("--record", o->record, "Also write the outputs of the cells run as a recording (HDF5)");
  app->add_flag("--reduced", o->reduced, "Only the reduced matrix (the sanitizer tier's cells)");
  app->add_flag("--committed", o->committed, "Only cases whose golden file is committed (no large on-demand ones)");
  return {app, [o] {
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
              return judge_recording(TC_DEFAULT_RECORDING, filter, *o);
            }
            return run_live(filter, *o);
          }};
}

}  // namespace tc::cli
