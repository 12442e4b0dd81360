// The tilecheck binary finds its data at run time (cli/data_paths.h): from the build tree, from
// TILECHECK_HOME or --fixtures when copied away, and with an error naming the places searched when
// nothing is found; no path of the source tree is compiled in or shown by --help.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "common/run_command.h"
#include "common/temp_dir.h"
#include "tilecheck/core/h5.h"
#include "tilecheck/fixtures/golden.h"

namespace tc {
namespace {

namespace fs = std::filesystem;
using test_support::CommandResult;

constexpr const char* kCase = "normal_m17_n128_k128_g128_marlin";

class DataPathsCli : public ::testing::Test {
 protected:
  // `tilecheck` here is a copy of the built binary in <dir>/bin, with nothing beside it.
  void SetUp() override {
    fs::create_directories(dir_.path() / "bin");
    copy_ = dir_.path() / "bin" / "tilecheck";
    fs::copy_file(TC_TILECHECK, copy_);
  }
  CommandResult run(const std::string& binary, const std::string& args, const std::string& env = "") const {
    return test_support::run_command("env -u TILECHECK_HOME " + env + " " + binary + " " + args, dir_.path());
  }
  CommandResult copied(const std::string& args, const std::string& env = "") const { return run(copy_.string(), args, env); }
  std::string fixtures() const { return std::string(TC_SOURCE_DIR) + "/fixtures"; }
  // The committed case's reference output as a kernel's output file (it passes).
  std::string passing_output() const {
    const std::string path = dir_.file("out.h5");
    const Fixture f = load_case(default_golden_paths(), kCase);
    h5::write_file_atomically(path, [&](h5::File& file) { h5::write_half_matrix(file, "C", f.ref.expected); });
    return path;
  }
  TempDir dir_;
  fs::path copy_;
};

TEST_F(DataPathsCli, HelpShowsSymbolicDefaultsAndNoPathOfThisTree) {
  for (const char* command : {"run", "compare", "tiles", "bench", "golden list", "golden regenerate", "golden check"}) {
    const CommandResult r = run(TC_TILECHECK, std::string(command) + " --help");
    EXPECT_EQ(r.code, 0) << command << r.err;
    EXPECT_EQ(r.out.find(TC_SOURCE_DIR), std::string::npos) << command << ":\n" << r.out;
    const bool reads_fixtures = std::string(command) != "bench";
    EXPECT_EQ(r.out.find("<data>/fixtures") != std::string::npos, reads_fixtures) << command << ":\n" << r.out;
  }
  EXPECT_NE(run(TC_TILECHECK, "run --help").out.find("<fixtures>/recordings/h200.h5"), std::string::npos);
  EXPECT_NE(run(TC_TILECHECK, "run --help").out.find("<bin>/../lib/tilecheck/libtc_kernel_upstream.so"),
            std::string::npos);
}

TEST_F(DataPathsCli, TheBinaryCarriesNoPathOfTheSourceTree) {
  std::ifstream in(TC_TILECHECK, std::ios::binary);
  const std::string bytes(std::istreambuf_iterator<char>(in), {});
  ASSERT_GT(bytes.size(), 100000u);
  EXPECT_EQ(bytes.find(TC_SOURCE_DIR), std::string::npos) << "strings " << TC_TILECHECK << " | grep " << TC_SOURCE_DIR;
}

TEST_F(DataPathsCli, TheBuildTreeUsesItsShareLinkToTheSourceFixtures) {
  const CommandResult r = run(TC_TILECHECK, "golden list");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(std::string(TC_BUILD_DIR) + "/share/tilecheck/fixtures/golden"), std::string::npos) << r.out;
}

TEST_F(DataPathsCli, ACopiedBinaryWithNoDataSaysWhereItLooked) {
  const std::string looked = (dir_.path() / "share" / "tilecheck" / "fixtures").string();
  for (const std::string& args : {std::string("golden list"), std::string("compare --fixture ") + kCase + " --output x.h5",
                                 std::string("tiles --case ") + kCase + " --config m1n8k8g8 --sms 3 --output x.h5"}) {
    const CommandResult r = copied(args);
    EXPECT_EQ(r.code, 2) << args << r.out;
    EXPECT_NE(r.err.find("no tilecheck data found"), std::string::npos) << args << ": " << r.err;
    EXPECT_NE(r.err.find(looked), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(r.err.find(TC_SOURCE_DIR), std::string::npos) << "never the original tree: " << r.err;
  }
}

TEST_F(DataPathsCli, ACopiedBinaryUsesTilecheckHome) {
  const CommandResult r = copied("golden list", std::string("TILECHECK_HOME=") + TC_SOURCE_DIR);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(fixtures() + "/golden"), std::string::npos) << r.out;
  const CommandResult wrong = copied("golden list", "TILECHECK_HOME=" + dir_.path().string());
  EXPECT_EQ(wrong.code, 2);
  EXPECT_NE(wrong.err.find("TILECHECK_HOME=" + dir_.path().string() + ": no fixtures/catalogue.txt"),
            std::string::npos)
      << wrong.err;
}

TEST_F(DataPathsCli, EveryCommandThatReadsFixturesTakesFixtures) {
  const std::string output = passing_output();
  const std::string f = " --fixtures " + fixtures();
  const CommandResult compare = copied("compare --fixture " + std::string(kCase) + " --output " + output + f);
  EXPECT_EQ(compare.code, 0) << compare.out << compare.err;
  const CommandResult tiles =
      copied("tiles --case " + std::string(kCase) + " --config m1n8k8g8 --sms 3 --output " + output + f);
  EXPECT_EQ(tiles.code, 0) << tiles.out << tiles.err;
  const CommandResult recorded =
      copied("run --errmaps '' --filter '^" + std::string(kCase) + "_' --recording " + fixtures() +
             "/recordings/h200.h5" + f);
  EXPECT_EQ(recorded.code, 0) << recorded.out << recorded.err;
  EXPECT_NE(recorded.out.find(" pass, 0 fail"), std::string::npos) << recorded.out;
  const CommandResult list = copied("golden list" + f);
  EXPECT_EQ(list.code, 0) << list.err;
  // Without a GPU, `run` judges <fixtures>/recordings/h200.h5; with one, the copy has no kernel
  // library beside it and says so.
  const CommandResult plain = copied("run --errmaps '' --filter '^" + std::string(kCase) + "_'" + f);
  if (plain.out.find("no GPU here") != std::string::npos) {
    EXPECT_EQ(plain.code, 0) << plain.out << plain.err;
    EXPECT_NE(plain.out.find("recording " + fixtures() + "/recordings/h200.h5"), std::string::npos) << plain.out;
  } else {
    EXPECT_EQ(plain.code, 2) << plain.out;
    EXPECT_NE(plain.err.find("no kernel library " + (dir_.path() / "lib/tilecheck").string()), std::string::npos)
        << plain.err;
  }
}

}  // namespace
}  // namespace tc
