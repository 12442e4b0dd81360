// `tilecheck compare` end to end: the binary on fixture and output files written here (and, where
// the project's .venv has h5py, an output written exactly as docs/compare.md shows). Exit codes:
// 0 pass, 1 mismatch, 2 bad input with a one-line reason.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/run_command.h"
#include "tilecheck/compare/expectation.h"
#include "tilecheck/compare/poison.h"
#include "tilecheck/core/error.h"
#include "tilecheck/core/h5.h"
#include "tilecheck/fixtures/fixture.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

using CliRun = test_support::CommandResult;

CliRun tilecheck(const std::string& args, const fs::path& dir) {
  return test_support::run_command(std::string(TC_TILECHECK) + " " + args, dir);
}

class CliCompare : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // One directory per process: ctest runs each test of this suite as its own process, in parallel.
    dir_ = new fs::path(fs::temp_directory_path() / ("tc_cli_compare_test_" + std::to_string(getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    fixture_ = new Fixture(make_fixture(CaseSpec{"normal_cli", Shape{16, 256, 256, -1}, Contract::fp32,
                                                 Distribution::normal, 11}));
    write_fixture(*fixture_, path("fixture.h5"));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    delete fixture_;
  }
  static std::string path(const std::string& name) { return (*dir_ / name).string(); }
  static void write_output(const std::string& name, const HalfMatrix& C, const char* dataset = "C") {
    h5::write_file_atomically(path(name), [&](h5::File& f) { h5::write_half_matrix(f, dataset, C); });
  }
  CliRun compare(const std::string& output, const std::string& extra = "") {
    return tilecheck("compare --fixture " + path("fixture.h5") + " --output " + path(output) + " " + extra, *dir_);
  }
  static void expect_bad_input(const CliRun& r, const std::string& reason) {
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    const std::string first = r.err.substr(0, r.err.find('\n'));
    EXPECT_NE(first.find(reason), std::string::npos) << "the reason is on the first line: " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  static fs::path* dir_;
  static Fixture* fixture_;
};
fs::path* CliCompare::dir_ = nullptr;
Fixture* CliCompare::fixture_ = nullptr;

TEST_F(CliCompare, ExpectedOutputPassesWithExitCodeZero) {
  write_output("good.h5", fixture_->ref.expected);
  const CliRun r = compare("good.h5");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("Mismatched 0 / 4096 (0.000%) [bound=0 nonfinite=0 unwritten=0 guard=0]\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("contract fp32 | config m1n8k8gcol | sms 1"), std::string::npos) << r.out;
  const CliRun other = compare("good.h5", "--tile 256x64 --m-blocks 1 --sms 5");
  EXPECT_EQ(other.code, 0) << other.out << other.err;
  EXPECT_NE(other.out.find("config m1n16k4gcol | sms 5"), std::string::npos) << other.out;
}

TEST_F(CliCompare, MismatchExitsOneWithTheReportAndTheErrorMap) {
  HalfMatrix C = fixture_->ref.expected;
  C(3, 130) ^= 0x2000;
  C.block(0, 192, 16, 64).setConstant(kPoison);
  write_output("bad.h5", C);
  const CliRun r = compare("bad.h5", "--report " + path("bad.errmap.h5"));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("Mismatched 1025 / 4096 (25.0%) [bound=1 nonfinite=0 unwritten=1024 guard=0]\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("tile map"), std::string::npos);
  EXPECT_NE(r.out.find("[unwritten]"), std::string::npos);
  EXPECT_NE(r.out.find("error map: " + path("bad.errmap.h5")), std::string::npos);
  const h5::File map = h5::File::open(path("bad.errmap.h5"));
  EXPECT_EQ(h5::read_int_attribute(map, "unwritten"), 1024);
  EXPECT_EQ(h5::read_string_attribute(map, "case_id"), "normal_cli");
}

TEST_F(CliCompare, RepeatedOutputsMustBeBitwiseEqual) {
  HalfMatrix C = fixture_->ref.expected;
  write_output("r0.h5", C);
  write_output("r1.h5", C);
  C(9, 200) ^= 1;  // still within the bound: only T3 can see it
  write_output("r2.h5", C);
  const CliRun same = compare("r0.h5", "--output " + path("r1.h5"));
  EXPECT_EQ(same.code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("Deterministic: 0 / 4096"), std::string::npos) << same.out;
  const CliRun differ = compare("r0.h5", "--output " + path("r1.h5") + " --output " + path("r2.h5"));
  EXPECT_EQ(differ.code, 1) << differ.out << differ.err;
  EXPECT_EQ(differ.out.rfind("Mismatched 0 / 4096", 0), 0u) << differ.out;
  EXPECT_NE(differ.out.find("Nondeterministic: 1 / 4096 elements (0.024%) differ across 3 repeats"), std::string::npos)
      << differ.out;
  EXPECT_NE(differ.out.find("first difference (9, 200)"), std::string::npos);
  EXPECT_NE(differ.out.find("[race]"), std::string::npos);
}

TEST_F(CliCompare, AnotherContractRecomputesTheReference) {
  const ReferenceOutput marlin = reference_gemm(fixture_->A, fixture_->weights, Contract::marlin, GemmPath::exact);
  ASSERT_NE(marlin.expected, fixture_->ref.expected) << "per-column scales: the contracts round differently";
  write_output("marlin.h5", marlin.expected);
  const CliRun r = compare("marlin.h5", "--contract marlin");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("contract marlin"), std::string::npos);
}

// --schedule unknown (the default for an output that declares no numerics): bounds for any split of
// K. Under the marlin contract at --sms 1 the modelled schedule stores no fp16 partial sum; any split
// of K = 256 into up to 16 slices stores 15. An output at the edge of the wider bound fails the first
// and passes the second, and the error map says which.
TEST_F(CliCompare, ScheduleUnknownJudgesWithTheBoundsForAnySplit) {
  const Shape& shape = fixture_->spec.shape;
  const Schedule schedule = make_schedule(shape, choose_config(shape), 1);
  const Expectation model = make_expectation(*fixture_, Contract::marlin, schedule);
  KernelNumerics unknown = contract_default(Contract::marlin);
  unknown.schedule = ScheduleKind::unknown;
  const Expectation any = make_expectation(*fixture_, Contract::marlin, unknown, schedule);
  HalfMatrix C = model.ref.expected;
  int moved = 0;
  for (int i = 0; i < shape.M && moved < 4; ++i) {
    for (int j = 0; j < shape.N && moved < 4; j += 5) {
      if (any.bounds.key_lo(i, j) < model.bounds.key_lo(i, j) && any.bounds.flags(i, j) == 0) {
        C(i, j) = half_from_key(any.bounds.key_lo(i, j));
        ++moved;
      }
    }
  }
  ASSERT_EQ(moved, 4);
  write_output("edge.h5", C);
  const CliRun by_model = compare("edge.h5", "--contract marlin --schedule model");
  EXPECT_EQ(by_model.code, 1) << by_model.out << by_model.err;
  const CliRun by_default = compare("edge.h5", "--contract marlin");
  EXPECT_EQ(by_default.code, 0) << by_default.out << by_default.err;
  const CliRun by_any = compare("edge.h5", "--contract marlin --schedule unknown --report " + path("any.h5"));
  EXPECT_EQ(by_any.code, 0) << by_any.out << by_any.err;
  EXPECT_NE(by_any.out.find("numerics fp32 accumulator, fp16 partials, round-then-scale | bounds for an unknown "
                            "schedule: any split of K into at most 16 slices (k-slices >= 16)"),
            std::string::npos)
      << by_any.out;
  const h5::File map = h5::File::open(path("any.h5"));
  EXPECT_EQ(h5::read_string_attribute(map, "schedule_bounds"), "unknown");
  EXPECT_EQ(h5::read_int_attribute(map, "max_slices"), 16);
  EXPECT_EQ(h5::read_string_attribute(map, "numerics"), "fp32 accumulator, fp16 partials, round-then-scale");
  expect_bad_input(compare("edge.h5", "--schedule any"), "--schedule");
}

TEST_F(CliCompare, BadInputExitsTwoWithAOneLineReason) {
  write_output("good.h5", fixture_->ref.expected);
  write_output("transposed.h5", HalfMatrix(fixture_->ref.expected.transpose()));
  write_output("other_name.h5", fixture_->ref.expected, "D");
  h5::write_file_atomically(path("f64.h5"), [&](h5::File& f) { h5::write_matrix(f, "C", F64Matrix(F64Matrix::Zero(16, 256))); });
  std::ofstream(path("text.h5")) << "not hdf5\n";
  expect_bad_input(compare("missing.h5"), "missing.h5");
  expect_bad_input(compare("text.h5"), "text.h5");
  expect_bad_input(compare("other_name.h5"), "/C");
  expect_bad_input(compare("transposed.h5"), "/C");
  expect_bad_input(compare("f64.h5"), "float64");
  expect_bad_input(compare("good.h5", "--tile 100x7"), "--tile: '100x7' is not a tile of the kernel library");
  expect_bad_input(compare("good.h5", "--tile 512x64"), "expected one of 128x128, 256x64");
  expect_bad_input(compare("good.h5", "--m-blocks 7"), "--m-blocks: 7 is out of range (expected 1..4");
  expect_bad_input(compare("good.h5", "--m-blocks 0"), "--m-blocks: 0 is out of range");
  expect_bad_input(compare("good.h5", "--sms 0"), "--sms: 0 is out of range (expected 1..65535");
  expect_bad_input(compare("good.h5", "--contract bf16"), "unknown contract 'bf16'");
  expect_bad_input(compare("good.h5", "--bogus"), "--bogus");
  expect_bad_input(tilecheck("compare --fixture " + path("nope.h5") + " --output " + path("good.h5"), path("")),
                   "nope.h5");
  expect_bad_input(tilecheck("compare --output " + path("good.h5"), path("")), "--fixture");
}

// The documented recipe, run by h5py: a float16 numpy array written as dataset C.
TEST_F(CliCompare, OutputWrittenByH5pyAsDocumented) {
  const fs::path python = fs::path(TC_SOURCE_DIR) / ".venv" / "bin" / "python";
  if (!fs::exists(python) || std::system((python.string() + " -c 'import h5py' 2>/dev/null").c_str()) != 0)
    GTEST_SKIP() << "no h5py in " << python << " (scripts/bootstrap builds .venv)";
  const std::string script = path("write.py");
  std::ofstream(script) << "import sys, h5py, numpy as np\n"
                           "with h5py.File(sys.argv[1]) as g:\n"
                           "    out = g['ref/expected'][()]          # stands in for the kernel's float16 result\n"
                           "out[5, 7] = np.float16(np.inf) if sys.argv[3] == 'inf' else out[5, 7]\n"
                           "C = out if sys.argv[3] != 'f32' else out.astype(np.float32)\n"
                           "with h5py.File(sys.argv[2], 'w') as f:\n"
                           "    f.create_dataset('C', data=C, compression='gzip' if sys.argv[3] == 'gzip' else None)\n";
  for (const char* variant : {"plain", "gzip", "inf", "f32"}) {
    const std::string out = path(std::string("py_") + variant + ".h5");
    ASSERT_EQ(std::system((python.string() + " " + script + " " + path("fixture.h5") + " " + out + " " + variant).c_str()), 0);
    const CliRun r = compare(std::string("py_") + variant + ".h5");
    if (std::string(variant) == "inf") {
      EXPECT_EQ(r.code, 1) << r.out << r.err;
      EXPECT_NE(r.out.find("nonfinite=1"), std::string::npos) << r.out;
    } else if (std::string(variant) == "f32") {
      expect_bad_input(r, "float32");
    } else {
      EXPECT_EQ(r.code, 0) << variant << "\n" << r.out << r.err;
    }
  }
}

}  // namespace
}  // namespace tc
