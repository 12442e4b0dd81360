// The per-element rules: verdicts, marks, signed ULP distances, allowances, the T0 rule.
#include "tilecheck/compare/verdict.h"

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"
#include "tilecheck/compare/poison.h"

namespace tc {
namespace {

const half_bits kOne = 0x3C00, kOneUp = 0x3C01, kOneUp2 = 0x3C02, kOneDown = 0x3BFF;

Admissible around(half_bits x, int below, int above) {
  return Admissible{half_key(x) - below, half_key(x) + above, false, false};
}

TEST(PoisonSentinel, IsAQuietNanNoArithmeticProduces) {
  EXPECT_TRUE(is_nan(kPoison));
  EXPECT_TRUE(kPoison & 0x0200) << "quiet bit";
  EXPECT_NE(kPoison, kHalfCanonicalNan);
  EXPECT_NE(kPoison, round_to_half(std::nan("")));
  EXPECT_NE(kPoison, 0x7FFF) << "the canonical NaN of NVIDIA hardware";
}

TEST(JudgeElement, PassMarksHowCloseItCame) {
  const Admissible adm = around(kOne, 1, 2);
  EXPECT_EQ(judge_element(kOne, kOne, adm).mark, Mark::exact);
  EXPECT_EQ(judge_element(kOneUp, kOne, adm).mark, Mark::one_ulp);
  EXPECT_EQ(judge_element(kOneDown, kOne, adm).mark, Mark::one_ulp);
  const ElementJudgement two = judge_element(kOneUp2, kOne, adm);
  EXPECT_EQ(two.verdict, Verdict::pass);
  EXPECT_EQ(two.mark, Mark::within_bound);
  EXPECT_EQ(two.ulp, 2);
  EXPECT_EQ(two.allowance, 2);
  EXPECT_EQ(judge_element(kOneDown, kOne, adm).allowance, 1);
  const ElementJudgement out = judge_element(0x3C03, kOne, adm);
  EXPECT_EQ(out.verdict, Verdict::fail_bound);
  EXPECT_EQ(out.mark, Mark::fail);
  EXPECT_EQ(out.ulp, 3);
}

TEST(JudgeElement, SignedZerosAreEqual) {
  const Admissible zero{0, 0, false, false};
  const ElementJudgement j = judge_element(0x8000, 0x0000, zero);
  EXPECT_EQ(j.verdict, Verdict::pass);
  EXPECT_EQ(j.mark, Mark::exact);
  EXPECT_EQ(j.ulp, 0);
  EXPECT_TRUE(exact_match(0x8000, 0x0000));
  EXPECT_TRUE(exact_match(0x0000, 0x8000));
  EXPECT_FALSE(exact_match(0x0001, 0x0000));
}

TEST(JudgeElement, ExpectedNanAcceptsAnyNanAndNothingElse) {
  const Admissible nan{0, 0, true, false};
  for (half_bits g : {half_bits(0x7E00), half_bits(0xFE01), half_bits(0x7FFF)}) {
    const ElementJudgement j = judge_element(g, kHalfCanonicalNan, nan);
    EXPECT_EQ(j.verdict, Verdict::pass) << std::hex << g;
    EXPECT_EQ(j.mark, Mark::exact);
    EXPECT_EQ(j.ulp, 0);
  }
  EXPECT_EQ(judge_element(kOne, kHalfCanonicalNan, nan).verdict, Verdict::fail_bound);
  EXPECT_EQ(judge_element(kOne, kHalfCanonicalNan, nan).ulp, kNotComparable);
  EXPECT_EQ(judge_element(kHalfPosInf, kHalfCanonicalNan, nan).verdict, Verdict::nonfinite);
}

// y* NaN is NaN in every summation order, so a partial sum that may overflow admits nothing more.
TEST(JudgeElement, ExpectedNanAcceptsOnlyNanEvenWhereAPartialSumMayOverflow) {
  const Admissible nan_unbounded{0, 0, true, true};
  EXPECT_TRUE(nan_only(kHalfCanonicalNan, nan_unbounded));
  EXPECT_EQ(judge_element(0xFE01, kHalfCanonicalNan, nan_unbounded).verdict, Verdict::pass);
  const ElementJudgement finite = judge_element(kOne, kHalfCanonicalNan, nan_unbounded);
  EXPECT_EQ(finite.verdict, Verdict::fail_bound);
  EXPECT_EQ(finite.allowance, 0) << "no allowance where only a NaN is admissible";
  EXPECT_EQ(judge_element(kHalfPosInf, kHalfCanonicalNan, nan_unbounded).verdict, Verdict::nonfinite);
}

// An expected NaN with an interval of numbers (a reference that contradicts its own bound): the
// expected value wins, as docs/compare.md says.
TEST(JudgeElement, ExpectedNanIsNotMetByANumberInsideTheInterval) {
  const Admissible numbers = around(kOne, 4, 4);
  EXPECT_TRUE(nan_only(kHalfCanonicalNan, numbers));
  EXPECT_EQ(judge_element(kOne, kHalfCanonicalNan, numbers).verdict, Verdict::fail_bound);
  EXPECT_EQ(judge_element(kHalfCanonicalNan, kHalfCanonicalNan, numbers).verdict, Verdict::pass);
  EXPECT_FALSE(nan_only(kOne, numbers));
}

// The exception: an interval at the fp16 overflow edge times a zero per-column scale (marlin) may
// round to Inf * 0 = NaN or 65504 * 0 = 0; the bound marks it unbounded without y* being NaN.
TEST(JudgeElement, IntervalEndingInANanEpilogueAdmitsZeroNextToAnExpectedNan) {
  const Admissible edge{0, 0, false, true};
  EXPECT_FALSE(nan_only(kHalfCanonicalNan, edge));
  EXPECT_EQ(judge_element(0x0000, kHalfCanonicalNan, edge).verdict, Verdict::pass);
  EXPECT_EQ(judge_element(kHalfCanonicalNan, kHalfCanonicalNan, edge).verdict, Verdict::pass);
}

TEST(JudgeElement, NonFiniteWhereFiniteExpected) {
  const Admissible adm = around(kOne, 4, 4);
  for (half_bits g : {kHalfCanonicalNan, kHalfPosInf, kHalfNegInf}) {
    const ElementJudgement j = judge_element(g, kOne, adm);
    EXPECT_EQ(j.verdict, Verdict::nonfinite) << std::hex << g;
    EXPECT_EQ(j.mark, Mark::nonfinite);
    EXPECT_EQ(j.ulp, kNotComparable) << "Inf is never 'one ULP' past 65504";
  }
  // 65504 expected, Inf got: the keys are adjacent, the verdict is not a 1-ULP pass.
  EXPECT_EQ(judge_element(kHalfPosInf, 0x7BFF, around(0x7BFF, 1, 0)).verdict, Verdict::nonfinite);
}

TEST(JudgeElement, InfFollowsTheInterval) {
  const Admissible inf{kHalfInfKey, kHalfInfKey, false, false};
  EXPECT_EQ(judge_element(kHalfPosInf, kHalfPosInf, inf).verdict, Verdict::pass);
  EXPECT_EQ(judge_element(kHalfNegInf, kHalfPosInf, inf).verdict, Verdict::nonfinite);
  EXPECT_EQ(judge_element(0x7BFF, kHalfPosInf, inf).verdict, Verdict::fail_bound);
  const Admissible straddle{half_key(0x7BFF), kHalfInfKey, false, false};  // interval reaches overflow
  EXPECT_EQ(judge_element(kHalfPosInf, 0x7BFF, straddle).verdict, Verdict::pass);
}

TEST(JudgeElement, PoisonIsUnwrittenEvenWhereAnythingGoes) {
  EXPECT_EQ(judge_element(kPoison, kOne, around(kOne, 0, 0)).verdict, Verdict::unwritten);
  EXPECT_EQ(judge_element(kPoison, kHalfCanonicalNan, Admissible{0, 0, true, false}).verdict, Verdict::unwritten);
  EXPECT_EQ(judge_element(kPoison, kOne, Admissible{0, 0, false, true}).verdict, Verdict::unwritten);
  EXPECT_EQ(judge_element(kPoison, kOne, around(kOne, 0, 0)).mark, Mark::unwritten);
}

TEST(JudgeElement, UnboundedAdmitsEverything) {
  const Admissible any{0, 0, false, true};
  const ElementJudgement j = judge_element(0x5000, kOne, any);
  EXPECT_EQ(j.verdict, Verdict::pass);
  EXPECT_EQ(j.allowance, kUnbounded);
  EXPECT_EQ(utilization(j.ulp, j.allowance), 0.0);
}

TEST(SignedUlp, CountsAcrossZeroAndSigns) {
  EXPECT_EQ(signed_ulp(0x0001, 0x8001), 2);  // smallest subnormals of both signs
  EXPECT_EQ(signed_ulp(0x8001, 0x0001), -2);
  EXPECT_EQ(signed_ulp(0x3C00, 0x3BFF), 1);
  EXPECT_EQ(signed_ulp(kHalfPosInf, kHalfPosInf), 0);
  EXPECT_EQ(signed_ulp(kHalfPosInf, 0x7BFF), kNotComparable);
  EXPECT_EQ(signed_ulp(0x7E00, 0x7C01), 0);
}

TEST(Allowance, IsTheReachOnTheSideOfTheError) {
  const Admissible adm = around(kOne, 3, 1);
  EXPECT_EQ(allowance_ulps(kOneUp2, kOne, adm), 1) << "above: key_hi - key(expected)";
  EXPECT_EQ(allowance_ulps(kOneDown, kOne, adm), 3) << "below: key(expected) - key_lo";
  EXPECT_EQ(allowance_ulps(kOne, kOne, adm), 3) << "on it: the farther side";
  EXPECT_EQ(allowance_ulps(kHalfCanonicalNan, kOne, adm), 3);
  EXPECT_EQ(allowance_ulps(kHalfPosInf, kOne, adm), 1);
  EXPECT_EQ(allowance_ulps(kOne, kOne, around(kOne, 0, 0)), 0);
  EXPECT_EQ(allowance_ulps(0x7E00, kHalfCanonicalNan, Admissible{0, 0, true, false}), 0);
  // Utilisation above 1 exactly when a comparable element is outside its bound.
  for (int d = -6; d <= 6; ++d) {
    const half_bits got = half_from_key(half_key(kOne) + d);
    const ElementJudgement j = judge_element(got, kOne, adm);
    EXPECT_EQ(utilization(j.ulp, j.allowance) > 1, j.verdict != Verdict::pass) << d;
  }
  EXPECT_EQ(utilization(3, 2), 1.5);
  EXPECT_EQ(utilization(-1, 0), 1.0) << "an allowance of 0 counts as 1";
  EXPECT_TRUE(std::isinf(utilization(kNotComparable, 4)));
}

}  // namespace
}  // namespace tc
