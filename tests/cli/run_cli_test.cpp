// `tilecheck run` judging a recording (the no-GPU path of the main job) and `tilecheck tiles` on
// the committed H200 recordings, end to end through the binary. Runs anywhere (label cpu). The
// recording format itself: tests/suite/recording_test.cpp.
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "common/run_command.h"
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

// `tilecheck tiles` on the H200 recordings committed in fixtures/recordings/: the mutant whose
// per-column scale slot lies inside the reduction scratch fails; its worst tile is detailed and a
// repro fixture of it reproduces the failure through `tilecheck compare`.
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
