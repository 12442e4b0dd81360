// `tilecheck tiles`: debug one cell tile by tile. Gets the kernel's output (an HDF5 output file of
// any kernel, a cell of a recording, or a live run on the GPU), prints the comparator's report
// (tile map, hints), then for one tile (--tile R,C; default the worst) its attribution and its 16
// worst elements with the magnitudes of their A row and dequantized W column, y*, S, the allowed
// range and the value got; --repro writes a minimal fixture of that tile (its rows of A, its columns
// of W, all of K) and the tile's output, which `tilecheck compare` accepts; --bisect runs the dump
// variant of the kernel and names the first k-tile, slice or reduction step that departs.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "data_paths.h"
#include "option_limits.h"
#include "output_paths.h"
#include "schedule_option.h"
#include "tilecheck/compare/bisect.h"
#include "tilecheck/compare/errormap.h"
#include "tilecheck/compare/report.h"
#include "tilecheck/core/atomic_write.h"
#include "tilecheck/core/error.h"
#include "tilecheck/core/h5.h"
#include "tilecheck/fixtures/cut.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/device_case.h"
#include "tilecheck/suite/dump_run.h"
#include "tilecheck/suite/kernel_workers.h"
#include "tilecheck/suite/recording.h"
#include "tilecheck/suite/runner.h"

namespace tc::cli {
namespace {

struct TilesOptions {
  std::string case_id;
  std::string config;
  std::string contract;  // empty: the case's
  int sms = 0;           // required unless it comes from a live run (0: all SMs)
  std::string tile;      // "R,C"; empty: the worst tile
  std::string output;    // an output file of any kernel (dataset C)
  std::string recording; // or a recording holding the cell
  std::string save_output;  // write the cell's output (C, guard band, declaration, workspace) for `compare`
  std::string kernel;      // empty: default_kernel_library()
  std::string repro;     // directory for the tile's repro fixture
  std::string report;    // error map of the whole comparison
  std::string report_elements = "failing";  // failing | all
  bool bisect = false;   // run the dump variant on the tile and find where it departs
  std::string dump_kernel; // empty: default_dump_kernel_library()
  DataOptions data;
  double cell_timeout = 0;  // live runs: seconds from launch to result (0: from the problem's size)
  std::string schedule;     // model | unknown; empty: what the library declared (model if nothing)
};

std::pair<int, int> parse_tile(const std::string& text) {
  int r = -1, c = -1, consumed = 0;
  const bool ok = std::sscanf(text.c_str(), "%d,%d%n", &r, &c, &consumed) == 2 &&
                  consumed == static_cast<int>(text.size()) && r >= 0 && c >= 0;
  require(ok, "--tile '", text, "' is not R,C (tile row and column, from 0)");
  return {r, c};
}

RecordedCell recorded_cell(const std::string& path, const Cell& want) {
  const Recording r = read_recording(path);
  for (const RecordedCell& c : r.cells)
    if (c.cell.case_id == want.case_id && c.cell.config == want.config && c.cell.sms == want.sms) {
      RecordedCell found = c;
      found.cell = want;
      return found;
    }
  throw Error(cat(path, " has no cell for case ", want.case_id, ", config ", name(want.config), ", sms ", want.sms,
                  " (", r.cells.size(), " cells recorded)"));
}

// The tile with the most failing elements (ties: the highest utilisation).
int worst_tile(const Comparison& c) {
  int best = 0;
  long long best_failures = -1;
  double best_utilization = -1;
  for (int t = 0; t < static_cast<int>(c.tiles.size()); ++t) {
    const TileSummary& s = c.tiles[t];
    const long long failures = s.verdicts[1] + s.verdicts[2] + s.verdicts[3] + s.verdicts[4];
    if (failures > best_failures || (failures == best_failures && s.max_utilization > best_utilization)) {
      best = t, best_failures = failures, best_utilization = s.max_utilization;
    }
  }
  return best;
}

void print_tile(const Expectation& e, const Comparison& c, const TileInfo& t, const F64Matrix& w_hat) {
  const TileSummary& s = c.tiles[t.tile_row * e.grid.cols + t.tile_col];
  std::printf("\ntile (%d, %d): rows %d-%d, cols %d-%d%s; launch %d, schedule column %d\n", t.tile_row, t.tile_col,
              t.row0, t.row0 + t.rows - 1, t.col0, t.col0 + t.cols - 1, t.partial ? " (partial M tile)" : "",
              t.launch, t.column);
  std::printf("  reduction order: %s\n", reduction_order_text(t.slices).c_str());
  std::printf("  verdicts: pass %lld, fail_bound %lld, nonfinite %lld, unwritten %lld; worst |ulp| %d, utilisation %.2f\n",
              s.verdicts[0], s.verdicts[1], s.verdicts[2], s.verdicts[3], s.max_abs_ulp, s.max_utilization);
  // The tile's elements, worst first: failing before passing, then by utilisation.
  std::vector<std::pair<double, std::pair<int, int>>> order;
  for (int r = t.row0; r < t.row0 + t.rows; ++r) {
    for (int col = t.col0; col < t.col0 + t.cols; ++col) {
      const bool failed = c.verdict(r, col) != static_cast<std::uint8_t>(Verdict::pass);
      const double ulp = c.ulp(r, col) == kNotComparable ? 1e9 : std::abs(double(c.ulp(r, col)));
      const double allowance = c.allowance(r, col) == kUnbounded ? 1e9 : std::max(1, c.allowance(r, col));
      order.push_back({(failed ? 1e12 : 0.0) + ulp / allowance, {r, col}});
    }
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::printf("  16 worst elements (|a| and |w^|: max and sum over k of the element's A row and W column):\n");
  std::printf("  %5s %6s %-10s %9s %10s %9s %10s %12s %12s %-24s %10s %10s\n", "row", "col", "verdict", "max|a|",
              "sum|a|", "max|w^|", "sum|w^|", "y*", "S", "allowed", "expected", "got");
  for (std::size_t n = 0; n < std::min<std::size_t>(16, order.size()); ++n) {
    const auto [r, col] = order[n].second;
    double a_max = 0, a_sum = 0, w_max = 0, w_sum = 0;
    for (int k = 0; k < e.shape().K; ++k) {
      const double a = std::fabs(half_to_double(e.A(r, k))), w = std::fabs(w_hat(k, col));
      a_max = std::max(a_max, a), a_sum += a, w_max = std::max(w_max, w), w_sum += w;
    }
    const Admissible adm = e.bounds.at(r, col);
    char allowed[64];
    if (adm.unbounded) {
      std::snprintf(allowed, sizeof allowed, "anything");
    } else if (adm.nan_expected) {
      std::snprintf(allowed, sizeof allowed, "NaN");
    } else {
      std::snprintf(allowed, sizeof allowed, "[%.6g, %.6g]", half_to_double(half_from_key(adm.key_lo)),
                    half_to_double(half_from_key(adm.key_hi)));
    }
    std::printf("  %5d %6d %-10s %9.4g %10.4g %9.4g %10.4g %12.6g %12.6g %-24s %10.6g %10.6g\n", r, col,
                std::string(name(static_cast<Verdict>(c.verdict(r, col)))).c_str(), a_max, a_sum, w_max, w_sum,
                e.ref.y_exact(r, col), e.ref.S(r, col), allowed, half_to_double(e.ref.expected(r, col)),
                half_to_double(c.got(r, col)));
  }
}

// The tile's rows of A and columns of the weights (every K), with the reference recomputed: a case
// small enough to run under a debugger, and the tile's output to judge against it.
void write_repro(const std::string& dir, const Fixture& f, const Comparison& c, const TileInfo& t, int sms,
                 const TileConfig& config, const KernelNumerics& numerics) {
  std::filesystem::create_directories(dir);
  const Fixture repro =
      cut_fixture(f, {t.row0, t.rows, t.col0, t.cols}, cat(f.spec.id, "_tile", t.tile_row, "_", t.tile_col));
  const std::string& id = repro.spec.id;
  const std::string fixture = dir + "/" + id + ".h5", output = dir + "/" + id + "_output.h5";
  write_fixture(repro, fixture);
  RecordedCell tile;  // judged by `compare` under the numerics this cell was judged by
  tile.C = c.got.block(t.row0, t.col0, t.rows, t.cols);
  tile.declared = numerics;
  tile.dtype = f.spec.format.dtype;
  h5::write_file_atomically(output, [&](h5::File& file) { write_cell_output(file, tile); });
  const std::string command = cat("tilecheck compare --fixture ", fixture, " --output ", output, " --tile ",
                                  config.tile_n(), "x", config.tile_k(), " --m-blocks ", config.m_blocks, " --sms 1");
  std::ostringstream text;
  text << "Repro of tile (" << t.tile_row << ", " << t.tile_col << ") of case " << f.spec.id << ", config "
      << name(config) << ", grid size " << sms << ", seed " << f.spec.seed << ".\n"
      << "Its rows " << t.row0 << "-" << t.row0 + t.rows - 1 << " of A and columns " << t.col0 << "-"
      << t.col0 + t.cols - 1 << " of the weights, every K; the reference recomputed (exact path).\n"
      << "The output is the kernel's for those elements. Judge it (one tile, one block):\n  " << command << "\n"
      << "or run a kernel on the fixture with the same config to see whether the tile fails on its own.\n";
  write_text_atomically(dir + "/" + id + ".txt", text.str());
  std::printf("\nrepro: %s (fixture), %s (the tile's output)\n  %s\n", fixture.c_str(), output.c_str(), command.c_str());
}

// K-bisection: runs the dump variant of the kernel on the cell, records the tile's running sums
// after every k-tile and every reduction step, and finds where they first leave their bounds.
void run_bisect(const TilesOptions& o, const Fixture& f, const Expectation& e, const Cell& cell, const TileInfo& t) {
  const std::string dump_kernel = o.dump_kernel.empty() ? default_dump_kernel_library() : o.dump_kernel;
  const KernelPlugin dumper = KernelPlugin::load(dump_kernel);
  Launch l;
  l.config = cell.config;
  l.sms = cell.sms;
  const DumpRun d = record_accumulators(dumper, f, cell.contract, l, e.schedule, t);
  require(d.run.status.ok(), "the dump variant failed: ", d.run.status.message);
  bool output_failed = false;
  for (int r0 = t.row0; r0 < t.row0 + t.rows; ++r0)
    for (int c0 = t.col0; c0 < t.col0 + t.cols; ++c0) output_failed |= !admits(e.bounds.at(r0, c0), d.run.C(r0, c0));
  const Departure dep = bisect(e, t, d.dump, output_failed);
  std::printf("\nK-bisection of tile (%d, %d) with %s (the dump variant's own output %s):\n  %s\n", t.tile_row,
              t.tile_col, dump_kernel.c_str(), output_failed ? "fails" : "passes", dep.text.c_str());
}

int run_tiles(const TilesOptions& o) {
  const GoldenPaths paths = o.data.find().golden;
  PathPlan plan;
  plan.fixtures(paths).input("--output", o.output).input("--recording", o.recording);
  plan.output_file("--report", o.report).output_file("--save-output", o.save_output).output_dir("--repro", o.repro);
  plan.check();
  if (o.bisect) {
    const std::string why = gpu_unavailable_reason();
    require(why.empty(), "--bisect runs the dump variant of the kernel and needs a GPU (", why, ")");
  }
  std::unique_ptr<KernelWorkers> workers;  // a live run: the kernel in a worker process
  Cell cell;
  cell.case_id = o.case_id;
  cell.config = parse_config(o.config);
  cell.variant = "tiles";
  const bool live = o.output.empty() && o.recording.empty();
  if (live) {
    const std::string why = gpu_unavailable_reason();
    require(why.empty(), "no --output or --recording given, and no GPU to run the kernel on (", why, ")");
    KernelWorkersOptions w;
    w.executable = current_executable();
    w.kernel = o.kernel.empty() ? default_kernel_library() : o.kernel;
    w.devices = {0};
    w.cell_timeout = o.cell_timeout;
    workers = std::make_unique<KernelWorkers>(w);
    cell.sms = o.sms > 0 ? o.sms : workers->info().multiprocessors;
  } else {
    require(o.sms >= 1, "--sms ", o.sms, ": give the grid size the output was made with (at least 1)");
    cell.sms = o.sms;
  }
  SuiteRunner fixtures(nullptr, paths);
  const Fixture& f = fixtures.fixture(o.case_id);
  cell.contract = o.contract.empty() ? f.spec.contract : parse_contract(o.contract);
  validate_config(cell.config, f.spec.shape);

  RecordedCell got;  // what the kernel left: output, guard band, declaration, workspace finding
  got.cell = cell;
  if (!o.output.empty()) {
    read_cell_output(h5::File::open(o.output), got, f.spec.shape.M, f.spec.shape.N, f.spec.format.dtype);
  } else if (!o.recording.empty()) {
    got = recorded_cell(o.recording, cell);
    require(got.dtype == f.spec.format.dtype, o.recording, ": the recorded output of case ", o.case_id, " is ",
            name(got.dtype), "; the case's is ", name(f.spec.format.dtype));
  } else {
    // A fault, crash or hang ends only the worker, and is the cell's verdict (exit 1); a cell the
    // library does not implement is bad input (exit 2).
    KernelRun r = workers->run(0, cell, f).run;
    require(r.status.status != TC_ERR_UNSUPPORTED && r.status.status != TC_ERR_INVALID_ARGUMENT,
            "the kernel library refuses this cell (", name(cell.config), ", sms ", cell.sms, "): ", r.status.message);
    if (!judgeable(r)) {  // FAULT, HANG, or the library refused the launch
      const CellOutcome u = unjudged_outcome(cell, r);
      std::printf("%s %s: %s\n", name(u.status), name(cell.config).c_str(), u.message.c_str());
      return 1;
    }
    got = {cell, std::move(r.C), std::move(r.guard), r.declared, r.workspace, f.spec.format.dtype};
  }
  if (!o.save_output.empty()) {
    h5::write_file_atomically(o.save_output, [&](h5::File& file) {
      write_cell_output(file, got);
      h5::write_string_attribute(file, "config", name(cell.config));  // compare's defaults for the schedule
      h5::write_int_attribute(file, "sms", cell.sms);
      h5::write_string_attribute(file, "contract", std::string(name(cell.contract)));
    });
    std::printf("output saved to %s (judge it again: tilecheck compare --fixture %s --output %s)\n",
                o.save_output.c_str(), o.case_id.c_str(), o.save_output.c_str());
  }
  const std::optional<ScheduleKind> schedule =
      o.schedule.empty() ? std::nullopt : std::optional<ScheduleKind>(parse_schedule_kind(o.schedule));
  const KernelNumerics numerics = judged_numerics(got.declared, cell.contract, schedule);
  const Judgement j = judge(make_expectation(f, cell.contract, numerics,
                                             make_schedule(f.spec.shape, cell.config, cell.sms), o.case_id),
                            cell, case_family(f.spec), {got.C, got.guard, got.workspace});
  const Expectation& e = j.expectation;
  const Comparison& c = j.comparison;
  ReportOptions options;
  if (!o.report.empty()) {
    write_error_map(o.report, e, c, {parse_error_map_elements(o.report_elements)});
    options.error_map = o.report;
  }
  std::fputs(judgement_report(j, options).c_str(), stdout);

  int index = worst_tile(c);
  if (!o.tile.empty()) {
    const auto [r, col] = parse_tile(o.tile);
    require(r < e.grid.rows && col < e.grid.cols, "--tile ", o.tile, " is outside the ", e.grid.rows, " x ",
            e.grid.cols, " tile grid");
    index = r * e.grid.cols + col;
  }
  const TileInfo& tile = e.grid.tiles[index];
  print_tile(e, c, tile, to_double(dequantize(e.w)));
  if (!o.repro.empty()) write_repro(o.repro, f, c, tile, cell.sms, cell.config, e.numerics);
  if (o.bisect) run_bisect(o, f, e, cell, tile);
  return j.outcome.status == CellStatus::pass ? 0 : 1;
}

}  // namespace

Command add_tiles(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "tiles", "Debug one cell tile by tile: report, tile map, hints, the worst tile's elements with their A-row and "
               "W-column magnitudes, and a repro fixture of that tile. Exit 0 pass, 1 mismatch, 2 bad input");
  auto o = std::make_shared<TilesOptions>();
  app->add_option("--case", o->case_id, "Catalogue case id")->required();
  app->add_option("--config", o->config, "Kernel configuration, e.g. m1n8k8gcol")->required();
  app->add_option("--sms", o->sms, "Grid size (required with --output or --recording; live default: all SMs)")
      ->check(grid_size(0));
  app->add_option("--contract", o->contract, "marlin or fp32 (default: the case's)");
  app->add_option("--tile", o->tile, "Tile to detail, R,C (default: the worst)");
  CLI::Option* output =
      app->add_option("--output", o->output, "Output of any kernel: HDF5 dataset C, float16, (M, N) (docs/compare.md)");
  app->add_option("--recording", o->recording, "Take the cell's output from this recording (tilecheck run --record)")
      ->excludes(output);
  app->add_option("--cell-timeout", o->cell_timeout,
                  "Live run: seconds from launch to result before the cell is a HANG (0: from the problem's size)")
      ->check(timeout_seconds(true));
  app->add_option("--kernel", o->kernel, "Kernel plugin for a live run (no --output or --recording)")
      ->default_str(kDefaultKernelHelp);
  app->add_option("--repro", o->repro, "Write the tile's repro fixture, output and command into this directory");
  app->add_option("--report", o->report, "Write the error map of the whole comparison here");
  app->add_option("--save-output", o->save_output,
                  "Write the cell's output here (HDF5: C, the guard band, the library's declaration, the workspace "
                  "check), which `tilecheck compare --output` judges to the same verdict");
  app->add_option("--report-elements", o->report_elements, "Elements the error map keeps values for: 'failing' (the failing tiles) or 'all' (every "
                  "tile, as the numerics notebook wants)")
      ->check(CLI::IsMember({"failing", "all"}))
      ->capture_default_str();
  add_schedule_option(app, &o->schedule);
  app->add_flag("--bisect", o->bisect, "K-bisection of the tile: run the dump variant of the kernel (GPU) and report "
                                       "the first k-tile, slice or reduction step that departs from the reference");
  app->add_option("--dump-kernel", o->dump_kernel, "The dump variant for --bisect")
      ->default_str("<bin>/../lib/tilecheck/libtc_kernel_upstream_dump.so");
  o->data.add_to(app);
  return {app, [o] { return run_tiles(*o); }};
}

}  // namespace tc::cli
