// Hints from what the failing values and the tiers' statistics say (compare/src/hints_values.cpp):
// NaN and Inf, an overflow before the per-column scale, a directed rounding, last-bit differences.
#include "tilecheck/compare/hints.h"

#include <cstdio>

#include <gtest/gtest.h>

#include "hint_checks.h"
#include "synthetic.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

TEST(Hints, NanAndInfInjected) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  got(3, 4) = kHalfCanonicalNan;
  got(30, 200) = kHalfPosInf;
  const Comparison c = compare(e, got);
  EXPECT_HINT(c, HintKind::nonfinite);
  EXPECT_NE(find(c.hints, HintKind::nonfinite)->text.find("1 NaN and 1 Inf where the reference is finite, first at (3, 4)"),
            std::string::npos);
  EXPECT_HINT(c, HintKind::isolated);
  EXPECT_NO_HINT(c, HintKind::bit_flip);
}

TEST(Hints, OverflowBeforeScalingUnderTheFp32Contract) {
  // Per-column scales: a kernel that rounds the unscaled sum to fp16 first (the marlin epilogue)
  // overflows where the fp32 contract does not.
  Expectation big = synthetic_expectation(grid_problem(Contract::fp32, -1));
  HalfMatrix got = big.ref.expected;
  big.ref.y_exact(5, 6) = 70000.0;  // pretend the unscaled sum left the fp16 range
  got(5, 6) = kHalfPosInf;
  const Comparison c = compare(big, got);
  EXPECT_HINT(c, HintKind::nonfinite);
  EXPECT_NE(find(c.hints, HintKind::nonfinite)->text.find("rounds to fp16 before applying the per-column scale"),
            std::string::npos)
      << kinds(c.hints);
}

TEST(Hints, TruncatingEpilogueIsARoundingBias) {
  const Expectation e = synthetic_expectation(Problem{{16, 1024, 4096, 128}, {1, 8, 8, 8}, 1, Contract::fp32});
  Faults f;
  f.epilogue_toward_zero = true;
  const Comparison c = compare(e, model_kernel(e, f));
  EXPECT_HINT(c, HintKind::rounding_bias);
  EXPECT_NE(find(c.hints, HintKind::rounding_bias)->text.find("lean toward zero"), std::string::npos);
}

TEST(Hints, Fp16AccumulationUsesMuchOfTheAllowance) {
  const Expectation e = synthetic_expectation(Problem{{16, 512, 512, 128}, {1, 8, 8, 8}, 1, Contract::fp32});
  Faults f;
  f.fp16_accumulation = true;
  const Comparison c = compare(e, model_kernel(e, f));
  ASSERT_EQ(c.tier("t2").status, TierStatus::fail) << c.tier("t2").detail;
  EXPECT_HINT(c, HintKind::wide_errors);
  char rms[64];
  std::snprintf(rms, sizeof rms, "(rms %.3f > 0.5)", c.stats.rms);
  EXPECT_NE(find(c.hints, HintKind::wide_errors)->text.find(rms),
            std::string::npos)
      << kinds(c.hints);
}

TEST(Hints, LastBitDifferencesInAnExactCase) {
  const Expectation e = synthetic_expectation(Problem{{24, 256, 128, 64}, {2, 8, 8, 4}, 2, Contract::marlin, "exact"});
  HalfMatrix got = e.ref.expected;
  int changed = 0;
  for (int i = 0; i < e.M() && changed < 3; ++i)
    for (int j = 0; j < e.N() && changed < 3; ++j) {
      const half_bits up = half_from_key(half_key(got(i, j)) + 1);
      if (!admits(e.bounds.at(i, j), up)) continue;
      got(i, j) = up;
      ++changed;
    }
  ASSERT_EQ(changed, 3) << "no element of the exact case allows one ULP";
  const Comparison c = compare(e, got);
  ASSERT_EQ(c.tier("t0").status, TierStatus::fail);
  ASSERT_EQ(c.tier("t1").status, TierStatus::pass);
  EXPECT_HINT(c, HintKind::not_exact);
  EXPECT_NE(find(c.hints, HintKind::not_exact)->text.find("3 element(s) of an exact case differ while all are within the bound"),
            std::string::npos);
  // Out of bound, the same difference is T1's failure, not a rounding hint.
  push_out(e, got, 0, 0);
  EXPECT_NO_HINT(compare(e, got), HintKind::not_exact);
}

}  // namespace
}  // namespace tc
