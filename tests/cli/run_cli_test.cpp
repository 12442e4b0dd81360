// `tilecheck run` judging a recording (the no-GPU path of the main job) and `tilecheck tiles` on
// the committed H200 recordings, end to end through the binary. Runs anywhere (label cpu). The
// recording format itself: tests/suite/recording_test.cpp.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "common/run_command.h"
#include "tilecheck/compare/expectation.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/recording.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

class RunCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tc_run_cli_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Two committed cases, output = the reference's own expected output (a correct kernel's).
  Recording passing() const {
    Recording r{"test device", "tilecheck-marlin", "upstream", "test", {}};
    const GoldenPaths paths = default_golden_paths();
    for (const char* id : {"normal_m17_n128_k128_g128_marlin", "normal_m2_n128_k128_gcol_fp32"}) {
      const Fixture f = load_case(paths, id);
      const TileConfig config = choose_config(f.spec.shape);
      RecordedCell c{{id, config, f.spec.contract, "upstream", 3}, f.ref.expected, {}};
      c.guard.cells = 2 * 64 * f.spec.shape.N;
      r.cells.push_back(c);
    }
    return r;
  }
  test_support::CommandResult tilecheck(const std::string& args) const {
    return test_support::run_command(std::string(TC_TILECHECK) + " " + args, dir_);
  }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(RunCli, JudgesACorrectRecordingAndPrintsTheTable) {
  write_recording(passing(), path("rec.h5"));
  const auto r = tilecheck("run --recording " + path("rec.h5") + " --json " + path("cells.json"));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("config \\ case"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 cells: 2 pass, 0 fail, 0 fault, 0 hang, 0 n/a, 0 error"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(path("cells.json")));
}

TEST_F(RunCli, AFailingCellExitsOneNamesTheCellAndWritesItsErrorMap) {
  Recording r = passing();
  r.cells[0].C.block(0, 0, 16, 128).setZero();  // one zeroed tile
  write_recording(r, path("rec.h5"));
  const auto out = tilecheck("run --recording " + path("rec.h5") + " --errmaps " + path("maps"));
  EXPECT_EQ(out.code, 1) << out.out << out.err;
  const std::string cell = r.cells[0].cell.name();
  EXPECT_NE(out.out.find("FAIL " + cell), std::string::npos) << out.out;
  EXPECT_TRUE(fs::exists(path("maps") + "/" + cell + ".errmap.h5")) << out.out;
}

// --errmap-budget: the H200 recording of mutant 1 has 3 failing cells; with room for none, every
// cell keeps its FAIL verdict, no map is written and the summary says how many were skipped.
TEST_F(RunCli, TheErrorMapBudgetCapsTheMapsNotTheVerdicts) {
  const std::string mutant = " --recording " + std::string(TC_SOURCE_DIR) +
                             "/fixtures/recordings/h200-mut01-scales-in-scratch.h5 --errmaps " + path("maps");
  const auto all = tilecheck("run" + mutant);
  EXPECT_EQ(all.code, 1) << all.out << all.err;
  EXPECT_NE(all.out.find("error maps: 3 written ("), std::string::npos) << all.out;
  EXPECT_EQ(std::distance(fs::directory_iterator(path("maps")), {}), 3);
  fs::remove_all(path("maps"));

  const auto none = tilecheck("run --errmap-budget 0" + mutant);
  EXPECT_EQ(none.code, 1) << none.out << none.err;
  EXPECT_NE(none.out.find("0 pass, 3 fail"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("error maps: 0 written (0.0 MB); 3 not written: the run's error-map budget was reached"),
            std::string::npos)
      << none.out;
  EXPECT_NE(none.out.find("[no error map: over the budget]"), std::string::npos) << none.out;
  EXPECT_FALSE(fs::exists(path("maps")) && !fs::is_empty(path("maps"))) << "no map written";

  for (const char* bad : {"-1", "nan", "2e9"}) {
    const auto r = tilecheck(std::string("run --errmap-budget ") + bad + mutant);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_NE(r.err.find("errmap-budget"), std::string::npos) << bad << ": " << r.err;
  }
}

TEST_F(RunCli, BadInputExitsTwoWithAReason) {
  write_recording(passing(), path("rec.h5"));
  auto r = tilecheck("run --recording " + path("rec.h5") + " --filter 'nothing-matches-this'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no recorded cell matches"), std::string::npos) << r.err;
  r = tilecheck("run --recording " + path("rec.h5") + " --filter '('");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not a valid regular expression"), std::string::npos) << r.err;
  r = tilecheck("run --recording " + path("nope.h5"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nope.h5"), std::string::npos) << r.err;
  r = tilecheck("run --no-such-option");
  EXPECT_EQ(r.code, 2);
}

// A library that declares nothing is judged with the bounds for any split of K (docs/numerics.md): an
// output at the edge of those bounds, beyond what the modelled schedule at sms=1 allows (no fp16
// partial sum), passes by default and with --schedule unknown, and fails with --schedule model, in
// `run` and in `tiles`.
TEST_F(RunCli, ScheduleUnknownJudgesWithTheBoundsForAnySplit) {
  const char* id = "normal_m17_n128_k128_g128_marlin";
  const Fixture f = load_case(default_golden_paths(), id);
  const TileConfig config = choose_config(f.spec.shape);
  const Schedule schedule = make_schedule(f.spec.shape, config, 1);
  const Expectation model = make_expectation(f, f.spec.contract, schedule, id);
  KernelNumerics unknown = contract_default(f.spec.contract);
  unknown.schedule = ScheduleKind::unknown;
  const Expectation any = make_expectation(f, f.spec.contract, unknown, schedule, id);
  EXPECT_EQ(any.max_slices, 128 / 16);
  HalfMatrix C = f.ref.expected;
  int moved = 0;  // a few elements only: T2 must not see a bias
  for (int i = 0; i < f.spec.shape.M && moved < 4; ++i) {
    for (int j = 0; j < f.spec.shape.N && moved < 4; j += 7) {
      if (any.bounds.key_hi(i, j) > model.bounds.key_hi(i, j) && any.bounds.flags(i, j) == 0) {
        C(i, j) = half_from_key(any.bounds.key_hi(i, j));
        ++moved;
      }
    }
  }
  ASSERT_EQ(moved, 4) << "the any-split bound should admit more than sms=1's";
  Recording r{"test device", "tilecheck-marlin", "upstream", "test", {}};
  RecordedCell c{{id, config, f.spec.contract, "upstream", 1}, C, {}};
  c.guard.cells = 2 * 64 * f.spec.shape.N;
  r.cells.push_back(c);
  write_recording(r, path("rec.h5"));

  const auto by_model = tilecheck("run --recording " + path("rec.h5") + " --errmaps '' --schedule model");
  EXPECT_EQ(by_model.code, 1) << by_model.out << by_model.err;
  EXPECT_NE(by_model.out.find("bounds for tilecheck-marlin: fp32 accumulator, fp16 partials, round-then-scale; "
                              "schedule model: 1 cells"),
            std::string::npos)
      << by_model.out;
  const auto by_default = tilecheck("run --recording " + path("rec.h5") + " --errmaps ''");
  EXPECT_EQ(by_default.code, 0) << by_default.out << by_default.err;
  EXPECT_NE(by_default.out.find("schedule unknown, k-slices >= 16: 1 cells"), std::string::npos) << by_default.out;
  const auto by_any = tilecheck("run --recording " + path("rec.h5") + " --schedule unknown --json " + path("c.json"));
  EXPECT_EQ(by_any.code, 0) << by_any.out << by_any.err;
  EXPECT_NE(by_any.out.find("schedule unknown, k-slices >= 16: 1 cells"), std::string::npos) << by_any.out;
  std::ifstream json(path("c.json"));
  const std::string text((std::istreambuf_iterator<char>(json)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"numerics\": \"fp32 accumulator, fp16 partials, round-then-scale; schedule unknown"),
            std::string::npos)
      << text;

  const std::string cell = std::string("tiles --case ") + id + " --config " + name(config) + " --sms 1 --recording " +
                           path("rec.h5");
  EXPECT_EQ(tilecheck(cell + " --schedule model").code, 1);
  EXPECT_EQ(tilecheck(cell).code, 0) << "undeclared: the bounds for any split";
  const auto tiles = tilecheck(cell + " --schedule unknown");
  EXPECT_EQ(tiles.code, 0) << tiles.out << tiles.err;
  EXPECT_NE(tiles.out.find("bounds for an unknown schedule: any split of K into at most 8 slices (k-slices >= 16)"),
            std::string::npos)
      << tiles.out;
  const auto bad = tilecheck("run --recording " + path("rec.h5") + " --schedule striped");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--schedule"), std::string::npos) << bad.err;
}

// The real outputs of the committed H200 recording stay within the bounds for an unknown schedule:
// those contain the modelled schedule's, since every slice of ours holds at least one 16-row step.
TEST_F(RunCli, TheCommittedRecordingPassesUnderTheBoundsForAnySplit) {
  const auto r = tilecheck("run --schedule unknown --threads 2 --errmaps '' --recording " + std::string(TC_SOURCE_DIR) +
                           "/fixtures/recordings/h200.h5");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("344 cells: 344 pass"), std::string::npos) << r.out;
}

// `tilecheck tiles` on the H200 recordings committed in fixtures/recordings/: the mutant whose
// per-column scale slot lies inside the reduction scratch fails; its worst tile is detailed and a
// repro fixture of it reproduces the failure through `tilecheck compare`, judged by the numerics the
// recording keeps (our kernel's declaration: the contract, Marlin's striped schedule).
TEST_F(RunCli, TilesDetailsTheWorstTileOfARecordedBrokenKernelAndWritesARepro) {
  const std::string cell = "--case normal_m16_n512_k128_gcol_marlin --config m1n8k8gcol --sms 3";
  const auto broken = tilecheck("tiles " + cell + " --recording " + std::string(TC_SOURCE_DIR) +
                                "/fixtures/recordings/h200-mut01-scales-in-scratch.h5 --repro " + path("repro"));
  EXPECT_EQ(broken.code, 1) << broken.out << broken.err;
  EXPECT_NE(broken.out.find("tile (0, 0): rows 0-15, cols 0-127"), std::string::npos) << broken.out;
  EXPECT_NE(broken.out.find("reduction order: block 0 k-tiles [0,1) (last, writes)"), std::string::npos) << broken.out;
  EXPECT_NE(broken.out.find("16 worst elements"), std::string::npos) << broken.out;
  const std::string repro = path("repro") + "/normal_m16_n512_k128_gcol_marlin_tile0_0";
  ASSERT_TRUE(fs::exists(repro + ".h5") && fs::exists(repro + "_output.h5") && fs::exists(repro + ".txt"));
  const auto judged = tilecheck("compare --fixture " + repro + ".h5 --output " + repro + "_output.h5 --sms 1");
  EXPECT_EQ(judged.code, 1) << judged.out << judged.err;
  EXPECT_NE(judged.out.find("Mismatched 2048 / 2048"), std::string::npos) << judged.out;

  const auto clean = tilecheck("tiles " + cell + " --tile 0,2 --recording " + std::string(TC_SOURCE_DIR) +
                               "/fixtures/recordings/h200.h5");
  EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
  EXPECT_NE(clean.out.find("tile (0, 2)"), std::string::npos) << clean.out;
}

TEST_F(RunCli, TilesRejectsBadInputWithAReason) {
  const std::string rec = " --recording " + std::string(TC_SOURCE_DIR) + "/fixtures/recordings/h200.h5";
  auto r = tilecheck("tiles --case normal_m16_n512_k128_gcol_marlin --config m1n8k8gcol --sms 3 --tile 0,9" + rec);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("outside the 1 x 4 tile grid"), std::string::npos) << r.err;
  r = tilecheck("tiles --case normal_m16_n512_k128_gcol_marlin --config m1n8k8gcol --sms 5" + rec);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("has no cell"), std::string::npos) << r.err;
  r = tilecheck("tiles --case normal_m16_n512_k128_gcol_marlin --config m1n8k8g8 --sms 3" + rec);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("group"), std::string::npos) << r.err;
  r = tilecheck("tiles --case no_such_case --config m1n8k8gcol --sms 3" + rec);
  EXPECT_EQ(r.code, 2);
}

}  // namespace
}  // namespace tc
