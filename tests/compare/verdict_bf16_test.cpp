// The comparator's element rules in bf16 (tilecheck/compare/verdict.h with Dtype::bf16), over all
// 65,536 patterns. The oracle ranks every non-NaN pattern by its value as the top half of a binary32
// (memcpy, independent of bf16.cpp and dtype.h): the signed ULP distance of two patterns is the
// difference of their ranks (+0 and -0 one rank), NaN and Inf against a number are not comparable,
// and the bf16 sentinel (not fp16's, which is a finite bf16 number) is UNWRITTEN.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/compare/verdict.h"

namespace tc {
namespace {

float oracle_value(std::uint16_t b) {
  const std::uint32_t word = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
}

// Rank of each non-NaN pattern among the distinct values (-Inf first); -1 for NaN.
std::vector<int> oracle_ranks() {
  std::vector<float> values;
  for (int i = 0; i < 65536; ++i)
    if (!std::isnan(oracle_value(static_cast<std::uint16_t>(i)))) values.push_back(oracle_value(static_cast<std::uint16_t>(i)));
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());  // -0 == +0: one value
  std::vector<int> rank(65536, -1);
  for (int i = 0; i < 65536; ++i) {
    const float v = oracle_value(static_cast<std::uint16_t>(i));
    if (!std::isnan(v)) rank[i] = static_cast<int>(std::lower_bound(values.begin(), values.end(), v) - values.begin());
  }
  return rank;
}

// One representative of every edge class: zeros, the smallest and largest subnormals, the smallest
// normal, 1 and its neighbours, the largest finite values, infinities, NaNs (quiet, signalling,
// canonical), both signs.
const std::uint16_t kEdges[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x807F, 0x0080, 0x8080, 0x3F7F, 0x3F80,
                                0x3F81, 0xBF80, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FFF};

TEST(VerdictBf16, SignedUlpIsTheRankDifferenceForEveryPatternAgainstEveryEdgeClass) {
  const std::vector<int> rank = oracle_ranks();
  for (std::uint16_t e : kEdges) {
    for (int i = 0; i < 65536; ++i) {
      const std::uint16_t g = static_cast<std::uint16_t>(i);
      const std::int32_t got = signed_ulp(Dtype::bf16, g, e);
      const bool g_nan = rank[g] < 0, e_nan = rank[e] < 0;
      if (g_nan || e_nan) {
        ASSERT_EQ(got, g_nan && e_nan ? 0 : kNotComparable) << std::hex << i << " vs " << e;
      } else if (std::isinf(oracle_value(g)) != std::isinf(oracle_value(e))) {
        ASSERT_EQ(got, kNotComparable) << std::hex << i << " vs " << e;
      } else {
        ASSERT_EQ(got, rank[g] - rank[e]) << std::hex << i << " vs " << e;
      }
    }
  }
}

TEST(VerdictBf16, NeighboursAreOneUlpApartAcrossTheWholeRange) {
  const std::vector<int> rank = oracle_ranks();
  std::map<int, std::uint16_t> by_rank;  // one pattern per value (+0 for zero)
  for (int i = 0x7FFF; i >= 0; --i)
    if (rank[i] >= 0) by_rank[rank[i]] = static_cast<std::uint16_t>(i);
  for (int i = 0xFFFF; i >= 0x8001; --i)
    if (rank[i] >= 0) by_rank.emplace(rank[i], static_cast<std::uint16_t>(i));
  ASSERT_EQ(by_rank.size(), 2u * 0x7F80 + 1) << "every finite value, +-Inf, one zero";
  for (auto it = by_rank.begin(); std::next(it) != by_rank.end(); ++it) {
    const std::uint16_t lo = it->second, hi = std::next(it)->second;
    if (bf16_is_inf(lo) || bf16_is_inf(hi)) continue;  // not comparable with a number (above)
    ASSERT_EQ(signed_ulp(Dtype::bf16, hi, lo), 1) << std::hex << lo << " " << hi;
    ASSERT_EQ(key(Dtype::bf16, hi) - key(Dtype::bf16, lo), 1);
  }
  EXPECT_EQ(signed_ulp(Dtype::bf16, 0x8000, 0x0000), 0) << "-0 and +0 are one value";
  EXPECT_EQ(signed_ulp(Dtype::bf16, 0x0001, 0x8001), 2) << "through zero: -min, 0, +min";
}

TEST(VerdictBf16, ElementRulesReadBf16NotFp16) {
  // 0x7C00 is fp16's +Inf but the finite bf16 2^121; 0x7E00 fp16's NaN, bf16's 2^125.
  EXPECT_TRUE(is_inf(Dtype::fp16, 0x7C00));
  EXPECT_TRUE(is_finite(Dtype::bf16, 0x7C00));
  EXPECT_TRUE(is_nan(Dtype::fp16, 0x7E00));
  EXPECT_FALSE(is_nan(Dtype::bf16, 0x7E00));
  const Admissible around = admissible_output(Dtype::bf16, to_double(Dtype::bf16, 0x7C00), 0, 0x3F80, -1,
                                              Epilogue::round_then_scale);
  EXPECT_TRUE(admits(Dtype::bf16, around, 0x7C00));
  EXPECT_EQ(judge_element(Dtype::bf16, 0x7C00, 0x7C00, around).verdict, Verdict::pass);
  EXPECT_EQ(judge_element(Dtype::bf16, 0x7C01, 0x7C00, around).verdict, Verdict::fail_bound);
  EXPECT_EQ(judge_element(Dtype::bf16, 0x7F80, 0x7C00, around).verdict, Verdict::nonfinite);
  // The sentinels: fp16's is an ordinary (wrong) number in bf16, bf16's is UNWRITTEN.
  EXPECT_EQ(judge_element(Dtype::bf16, kPoison, 0x7C00, around).verdict, Verdict::fail_bound);
  EXPECT_EQ(judge_element(Dtype::bf16, kBf16Poison, 0x7C00, around).verdict, Verdict::unwritten);
  EXPECT_TRUE(bf16_is_nan(kBf16Poison));
  EXPECT_NE(kBf16Poison, kBf16CanonicalNan);
  // Bitwise exactness: +-0 equal, any NaN for an expected NaN.
  EXPECT_TRUE(exact_match(Dtype::bf16, 0x8000, 0x0000));
  EXPECT_TRUE(exact_match(Dtype::bf16, 0x7FFF, 0x7FC0));
  EXPECT_FALSE(exact_match(Dtype::bf16, 0x7E00, 0x7FC0)) << "0x7E00 is a number in bf16";
}

// Near bf16's overflow the admissible set reaches +Inf exactly when the interval crosses the
// threshold (2 - 2^-8) * 2^127, and a subnormal result is judged on bf16's subnormal grid.
TEST(VerdictBf16, AdmissibleSetsAtTheEndsOfTheRange) {
  const Admissible at_max = admissible_output(Dtype::bf16, kBf16Max, 0, 0x3F80, 64, Epilogue::scale_then_round);
  EXPECT_EQ(at_max.key_lo, 0x7F7F);
  EXPECT_EQ(at_max.key_hi, 0x7F7F);
  const Admissible crossing =
      admissible_output(Dtype::bf16, kBf16Max, kBf16Overflow - kBf16Max, 0x3F80, 64, Epilogue::scale_then_round);
  EXPECT_EQ(crossing.key_hi, kBf16InfKey);
  EXPECT_TRUE(admits(Dtype::bf16, crossing, kBf16PosInf));
  const Admissible tiny = admissible_output(Dtype::bf16, 3 * kBf16MinSubnormal, kBf16MinSubnormal, 0x3F80, 32,
                                            Epilogue::round_then_scale);
  EXPECT_EQ(tiny.key_lo, 2);
  EXPECT_EQ(tiny.key_hi, 4);
}

}  // namespace
}  // namespace tc
