// `tilecheck compare`: judges the output of any kernel, written to HDF5 (dataset `C`, float16,
// (M, N); format: docs/compare.md), against a golden fixture under a schedule, and prints the
// report. Given several outputs (repeated launches), it judges the first and checks that all are
// bitwise equal (T3). Exit code 0: every tier passed; 1: mismatch; 2: bad input (main.cpp prints
// the reason).
//   tilecheck compare --fixture F --output O.h5 [--output O2.h5 ...] [--tile NxK] [--m-blocks B]
//                     [--sms S] [--contract marlin|fp32] [--schedule model|unknown] [--report R.h5]
#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "commands.h"
#include "data_paths.h"
#include "option_limits.h"
#include "output_paths.h"
#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/determinism.h"
#include "tilecheck/reference/error.h"
#include "tilecheck/compare/errormap.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/fixtures/h5.h"
#include "tilecheck/compare/report.h"

namespace tc::cli {
namespace {

struct Options {
  std::string fixture;
  std::vector<std::string> outputs;
  std::string tile;  // "NxK", e.g. "256x64"; empty: the kernel's default choice
  int m_blocks = 0;  // 0: the kernel's default choice
  int sms = 1;
  std::string contract;  // empty: the fixture's
  std::string schedule = "model";  // or unknown: bounds for any split of K (k-slices of 16 rows or more)
  std::string report;
  std::string report_elements = "failing";  // failing | all
  DataOptions data;
};

// A fixture file, or the id of a catalogue case (made on demand if it is a generated one).
Fixture load(const std::string& fixture, const DataOptions& data) {
  std::error_code ec;
  const GoldenPaths paths = data.find().golden;
  if (std::filesystem::exists(fixture, ec)) return load_fixture_file(paths, fixture);
  const bool looks_like_id = fixture.find('/') == std::string::npos && fixture.find(".h5") == std::string::npos;
  require(looks_like_id && load_catalogue(paths.catalogue()).find(fixture) != nullptr, "fixture '", fixture,
          "': no such file, and not a case id of ", paths.catalogue());
  return load_case(paths, fixture);
}

TileConfig config_for(const Shape& shape, const Options& o) {
  TileConfig c = choose_config(shape);
  if (!o.tile.empty()) {
    int n = 0, k = 0, consumed = 0;
    const bool ok = std::sscanf(o.tile.c_str(), "%dx%d%n", &n, &k, &consumed) == 2 &&
                    consumed == static_cast<int>(o.tile.size()) && n > 0 && k > 0 && n % 64 == 0 && k % 16 == 0;
    require(ok, "--tile '", o.tile, "' is not NxK with N a multiple of 64 and K of 16 (e.g. 128x128, 256x64)");
    c.n_blocks = n / 16;
    c.k_blocks = k / 16;
  }
  if (o.m_blocks != 0) {
    require(o.m_blocks >= 1 && o.m_blocks <= 4, "--m-blocks ", o.m_blocks, " is not 1..4");
    c.m_blocks = o.m_blocks;
  }
  return c;
}

int run(const Options& o) {
  const GoldenPaths golden = o.data.find().golden;
  PathPlan paths;
  paths.input_case("--fixture", o.fixture, golden).fixtures(golden);
  paths.output_file("--report", o.report);
  for (const std::string& output : o.outputs) paths.input("--output", output);
  paths.check();
  const Fixture f = load(o.fixture, o.data);
  const Shape& shape = f.spec.shape;
  std::vector<HalfMatrix> outputs;
  for (const std::string& path : o.outputs) {
    const h5::File out = h5::File::open(path);
    outputs.push_back(h5::read_half_matrix(out, "C", shape.M, shape.N));
  }
  const HalfMatrix& got = outputs.front();
  require(o.sms >= 1, "--sms ", o.sms, " must be at least 1");
  const Contract contract = o.contract.empty() ? f.spec.contract : parse_contract(o.contract);
  KernelNumerics numerics = contract_default(contract);
  numerics.schedule = parse_schedule_kind(o.schedule);
  const Expectation e =
      make_expectation(f, contract, numerics, make_schedule(shape, config_for(shape, o), o.sms), o.fixture);
  const Comparison c = compare(e, got);
  ReportOptions report_options;
  if (!o.report.empty()) {
    write_error_map(o.report, e, c, {parse_error_map_elements(o.report_elements)});
    report_options.error_map = o.report;
  }
  std::fputs(report(e, c, report_options).c_str(), stdout);
  if (outputs.size() < 2) return c.passed() ? 0 : 1;
  const Determinism d = check_determinism(e.schedule, outputs);
  std::printf("T3 determinism over %zu outputs (repeat r is the r-th --output):\n", outputs.size());
  std::fputs(determinism_report(e.schedule, d).c_str(), stdout);
  return c.passed() && d.passed() ? 0 : 1;
}

}  // namespace

Command add_compare(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "compare", "Judge the output of any kernel (HDF5 dataset C, float16, M x N; docs/compare.md) against a "
                 "golden fixture and print the report. Exit 0 pass, 1 mismatch, 2 bad input");
  auto o = std::make_shared<Options>();
  app->add_option("--fixture", o->fixture, "Golden fixture file (schema v1), or a catalogue case id")->required();
  app->add_option("--output", o->outputs,
                  "The kernel's output: HDF5 file with dataset C, float16, (M, N). Repeat it for the outputs of "
                  "repeated launches: the first is judged, all must be bitwise equal (T3)")
      ->required()
      ->take_all();
  app->add_option("--tile", o->tile, "Tile N x K of the kernel's schedule, e.g. 256x64 (default: Marlin's choice)")
      ->check(library_tile());
  app->add_option("--m-blocks", o->m_blocks, "16-row blocks per tile, 1..4 (default: Marlin's choice)")
      ->check(library_m_blocks());
  app->add_option("--sms", o->sms, "Grid size the kernel ran with (Marlin: the SM count); sets the fp16 partial "
                                   "sums the marlin contract allows for")
      ->check(grid_size(1))
      ->capture_default_str();
  app->add_option("--contract", o->contract, "Numerics contract, marlin or fp32 (default: the fixture's)");
  app->add_option("--schedule", o->schedule,
                  "Bounds for Marlin's striped schedule (model, with --tile, --m-blocks and --sms) or for any split of "
                  "K into k-slices of 16 rows or more, in any order (unknown)")
      ->check(CLI::IsMember({"model", "unknown"}))
      ->capture_default_str();
  app->add_option("--report", o->report, "Write the error map (HDF5, docs/errormap-schema.md) here");
  app->add_option("--report-elements", o->report_elements, "Elements the error map keeps values for: 'failing' (the failing tiles) or 'all' (every "
                  "tile, as the numerics notebook wants)")
      ->check(CLI::IsMember({"failing", "all"}))
      ->capture_default_str();
  o->data.add_to(app);
  return {app, [o] { return run(*o); }};
}

}  // namespace tc::cli
