// The predicate-formatters: pass quietly, fail with the report, write the error map on failure.
#include "tilecheck/compare/compare_gtest.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include "synthetic.h"
#include "tilecheck/compare/errormap.h"
#include "tilecheck/compare/poison.h"

namespace tc {
namespace {

namespace fs = std::filesystem;
using namespace synthetic;  // the kernel model and its problems (synthetic.h)

class PredicateFormatter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tc_gtest_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    setenv("TC_ERRMAP_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("TC_ERRMAP_DIR");
    fs::remove_all(dir_);
  }
  fs::path dir_;
  const Expectation e_ = synthetic_expectation(Problem{{16, 256, 256, 64}, {1, 8, 8, 4}, 3, Contract::fp32});
};

TEST_F(PredicateFormatter, PassesQuietly) {
  EXPECT_PRED_FORMAT2(MatchesReference, e_, e_.ref.expected);
  EXPECT_TRUE(MatchesReference("e", "C", e_, e_.ref.expected));
  EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(PredicateFormatter, FailsWithTheReportAndWritesTheErrorMap) {
  HalfMatrix bad = e_.ref.expected;
  bad(2, 3) = kPoison;
  const ::testing::AssertionResult r = MatchesReference("e_", "bad", e_, bad);
  ASSERT_FALSE(r);
  const std::string message = r.message();
  EXPECT_EQ(message.rfind("bad does not match e_:\nMismatched 1 / 4096 (0.024%) [bound=0 nonfinite=0 unwritten=1 guard=0]", 0), 0u)
      << message;
  const fs::path map = dir_ / error_map_name(e_);
  EXPECT_TRUE(fs::exists(map));
  EXPECT_NE(message.find("error map: " + map.string()), std::string::npos) << message;
  EXPECT_NONFATAL_FAILURE(EXPECT_PRED_FORMAT2(MatchesReference, e_, bad), "unwritten=1");
}

TEST_F(PredicateFormatter, GuardAndOptionsAndOff) {
  GuardBand guard;
  guard.cells = 10;
  guard.written.push_back({-1, 0, 0});
  EXPECT_FALSE(MatchesReferenceWithGuard("e", "C", "g", e_, e_.ref.expected, guard));
  EXPECT_TRUE(fs::exists(dir_ / error_map_name(e_)));
  fs::remove_all(dir_);
  setenv("TC_ERRMAP_DIR", "off", 1);
  HalfMatrix bad = e_.ref.expected;
  bad(0, 0) ^= 0x4000;
  EXPECT_FALSE(Matches(CompareOptions{}, true)("e", "C", e_, bad));
  EXPECT_FALSE(fs::exists(dir_)) << "TC_ERRMAP_DIR=off writes nothing";
  EXPECT_FALSE(MatchesReference("e", "C", e_, HalfMatrix::Zero(3, 3)));  // a shape error is a failure, not a throw
}

TEST_F(PredicateFormatter, Determinism) {
  HalfMatrix other = e_.ref.expected;
  other(9, 9) ^= 1;
  EXPECT_PRED_FORMAT2(Deterministic, e_.schedule, (std::vector<HalfMatrix>{e_.ref.expected, e_.ref.expected}));
  const ::testing::AssertionResult r = Deterministic("s", "runs", e_.schedule, {e_.ref.expected, other});
  ASSERT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("Nondeterministic: 1 / 4096"), std::string::npos) << r.message();
}

}  // namespace
}  // namespace tc
