// `tilecheck compare`: judges the output of any kernel, written to HDF5 (dataset `C`, float16, or
// bf16 for a bf16 case (docs/fixtures-schema.md's bf16 type), (M, N), and optionally the guard band, the library's declared numerics and the workspace check, as
// `tilecheck tiles --save-output` writes them; format: docs/compare.md), against a golden fixture
// through the judge chain every workflow uses, and prints the report. Given several outputs
// (repeated launches), it judges the first and checks that all are bitwise equal (T3). Exit code 0:
// every tier passed; 1: mismatch; 2: bad input (main.cpp prints the reason).
//   tilecheck compare --fixture F --output O.h5 [--output O2.h5 ...] [--tile NxK] [--m-blocks B]
//                     [--sms S] [--contract marlin|fp32] [--schedule model|unknown] [--report R.h5]
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "commands.h"
#include "data_paths.h"
#include "option_limits.h"
#include "output_paths.h"
#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/determinism.h"
#include "tilecheck/compare/errormap.h"
#include "tilecheck/compare/report.h"
#include "tilecheck/core/error.h"
#include "tilecheck/core/h5.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/judge.h"
#include "tilecheck/suite/recording.h"

namespace tc::cli {
namespace {

struct Options {
  std::string fixture;
  std::vector<std::string> outputs;
  std::string tile;  // "NxK", e.g. "256x64"; empty: the kernel's default choice
  int m_blocks = 0;  // 0: the kernel's default choice
  int sms = 0;           // 0: the output file's, else 1
  std::string contract;  // empty: the output file's, else the fixture's
  std::string schedule;  // model | unknown; empty: what the output file declares, unknown if nothing
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

// --tile and --m-blocks over the configuration the output file names (tiles --save-output), else
// Marlin's choice for the shape.
TileConfig config_for(const Shape& shape, const Options& o, const h5::File& output) {
  TileConfig c = h5::has_attribute(output, "config") ? parse_config(h5::read_string_attribute(output, "config"))
                                                     : choose_config(shape);
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
  const h5::File first = h5::File::open(o.outputs.front());
  RecordedCell got;
  const Dtype dtype = f.spec.format.dtype;  // C is read in the case's dtype (bf16 for a bf16 case)
  read_cell_output(first, got, shape.M, shape.N, dtype);
  std::vector<HalfMatrix> outputs{got.C};
  for (std::size_t i = 1; i < o.outputs.size(); ++i)
    outputs.push_back(h5::read_half_matrix(h5::File::open(o.outputs[i]), "C",
                                           dtype == Dtype::bf16 ? h5::Element::bf16 : h5::Element::f16, shape.M,
                                           shape.N));
  Cell cell;
  cell.case_id = f.spec.id;
  cell.config = config_for(shape, o, first);
  cell.variant = "compare";
  cell.sms = o.sms > 0 ? o.sms : h5::has_attribute(first, "sms") ? static_cast<int>(h5::read_int_attribute(first, "sms")) : 1;
  require(cell.sms >= 1, o.outputs.front(), ": attribute sms=", cell.sms, " is not a grid size (at least 1)");
  const std::string contract = !o.contract.empty()                   ? o.contract
                               : h5::has_attribute(first, "contract") ? h5::read_string_attribute(first, "contract")
                                                                      : std::string(name(f.spec.contract));
  cell.contract = parse_contract(contract);
  const std::optional<ScheduleKind> schedule =
      o.schedule.empty() ? std::nullopt : std::optional<ScheduleKind>(parse_schedule_kind(o.schedule));
  const KernelNumerics numerics = judged_numerics(got.declared, cell.contract, schedule);
  const Judgement j = judge(make_expectation(f, cell.contract, numerics, make_schedule(shape, cell.config, cell.sms),
                                             o.fixture),
                            cell, case_family(f.spec), {got.C, got.guard, got.workspace});
  const Expectation& e = j.expectation;
  const Comparison& c = j.comparison;
  ReportOptions report_options;
  if (!o.report.empty()) {
    write_error_map(o.report, e, c, {parse_error_map_elements(o.report_elements)});
    report_options.error_map = o.report;
  }
  std::fputs(judgement_report(j, report_options).c_str(), stdout);
  const bool passed = j.outcome.status == CellStatus::pass;
  if (outputs.size() < 2) return passed ? 0 : 1;
  const Determinism d = check_determinism(e.schedule, outputs);
  std::printf("T3 determinism over %zu outputs (repeat r is the r-th --output):\n", outputs.size());
  std::fputs(determinism_report(e.schedule, d).c_str(), stdout);
  return passed && d.passed() ? 0 : 1;
}

}  // namespace

Command add_compare(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "compare", "Judge the output of any kernel (HDF5 dataset C, float16 or the case's bf16, M x N; docs/compare.md) against a "
                 "golden fixture and print the report. Exit 0 pass, 1 mismatch, 2 bad input");
  auto o = std::make_shared<Options>();
  app->add_option("--fixture", o->fixture, "Golden fixture file (schema v2 or v1), or a catalogue case id")->required();
  app->add_option("--output", o->outputs,
                  "The kernel's output: HDF5 file with dataset C, float16, (M, N). Repeat it for the outputs of "
                  "repeated launches: the first is judged, all must be bitwise equal (T3)")
      ->required()
      ->take_all();
  app->add_option("--tile", o->tile,
                  "Tile N x K of the kernel's schedule, e.g. 256x64 (default: the output file's config, else Marlin's "
                  "choice)")
      ->check(library_tile());
  app->add_option("--m-blocks", o->m_blocks, "16-row blocks per tile, 1..4 (default: the output file's config, else "
                                             "Marlin's choice)")
      ->check(library_m_blocks());
  app->add_option("--sms", o->sms, "Grid size the kernel ran with (Marlin: the SM count); sets the fp16 partial "
                                   "sums the marlin contract allows for (default: the output file's, else 1)")
      ->check(grid_size(1));
  app->add_option("--contract", o->contract,
                  "Numerics contract, marlin or fp32 (default: the output file's, else the fixture's)");
  app->add_option("--schedule", o->schedule,
                  "Bounds for Marlin's striped schedule (model, with --tile, --m-blocks and --sms) or for any split of "
                  "K into k-slices of 16 rows or more, in any order (unknown) (default: what the output file declares, "
                  "as tiles --save-output keeps it; unknown if it declares nothing)")
      ->check(CLI::IsMember({"model", "unknown"}));
  app->add_option("--report", o->report, "Write the error map (HDF5, docs/errormap-schema.md) here");
  app->add_option("--report-elements", o->report_elements, "Elements the error map keeps values for: 'failing' (the failing tiles) or 'all' (every "
                  "tile, as the numerics notebook wants)")
      ->check(CLI::IsMember({"failing", "all"}))
      ->capture_default_str();
  o->data.add_to(app);
  return {app, [o] { return run(*o); }};
}

}  // namespace tc::cli
