// Exhaustive checks of the bfloat16 helpers over all 65,536 bit patterns. Oracles independent of
// bf16.cpp: decoding is the binary32 whose top half the pattern is (memcpy), and rounding a double
// is checked against the neighbours' midpoints (ties to even) and, for random doubles, against an
// integer rounding of the binary64 pattern to binary32's layout truncated to 16 bits.
#include "tilecheck/reference/bf16.h"

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "tilecheck/reference/rng.h"

namespace tc {
namespace {

double oracle_decode(bf16_bits b) {
  const std::uint32_t word = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
}

bool same(bf16_bits a, bf16_bits b) { return a == b || (bf16_is_nan(a) && bf16_is_nan(b)); }

TEST(Bf16, DecodingMatchesTheBinary32TopHalfForEveryPattern) {
  for (int i = 0; i < 65536; ++i) {
    const bf16_bits b = static_cast<bf16_bits>(i);
    const double expected = oracle_decode(b), got = bf16_to_double(b);
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(got)) << i;
      ASSERT_TRUE(bf16_is_nan(b)) << i;
    } else {
      ASSERT_EQ(got, expected) << "bits 0x" << std::hex << i;
      ASSERT_EQ(std::signbit(got), (b & 0x8000) != 0) << i;
      ASSERT_EQ(bf16_is_inf(b), std::isinf(expected)) << i;
    }
  }
}

TEST(Bf16, EveryPatternRoundTripsThroughDouble) {
  for (int i = 0; i < 65536; ++i) {
    const bf16_bits b = static_cast<bf16_bits>(i);
    if (bf16_is_nan(b)) {
      ASSERT_EQ(round_to_bf16(bf16_to_double(b)), kBf16CanonicalNan);
      continue;
    }
    ASSERT_EQ(round_to_bf16(bf16_to_double(b)), b) << "bits 0x" << std::hex << i;
  }
}

// Between every pair of adjacent finite values the midpoint goes to the even significand and
// anything just below or above it to the nearer neighbour; past the largest, the overflow threshold.
TEST(Bf16, MidpointsTieToEvenAndNeighboursRoundToNearest) {
  for (std::int32_t key = -kBf16InfKey; key < kBf16InfKey; ++key) {
    const bf16_bits lo = bf16_from_key(key), hi = bf16_from_key(key + 1);
    const double a = bf16_to_double(lo), b = bf16_to_double(hi);
    ASSERT_LT(a, b) << "key " << key;
    double mid = (a + b) / 2;
    if (bf16_is_inf(hi)) mid = kBf16Overflow;
    if (bf16_is_inf(lo)) mid = -kBf16Overflow;
    const double below = std::nextafter(mid, -INFINITY), above = std::nextafter(mid, INFINITY);
    ASSERT_EQ(bf16_key(round_to_bf16(below)), key) << "key " << key;
    ASSERT_EQ(bf16_key(round_to_bf16(above)), key + 1) << "key " << key;
    if (!bf16_is_inf(hi) && !bf16_is_inf(lo)) {
      const bf16_bits even = (lo & 1) == 0 ? lo : hi;
      ASSERT_EQ(bf16_key(round_to_bf16(mid)), bf16_key(even)) << "key " << key;
    }
  }
}

// Rounds a double to bfloat16 from its bit pattern alone: to binary32's exponent range first is
// not allowed (double rounding), so the significand is rounded with integers at bf16's precision.
bf16_bits oracle_round_bf16(double x) {
  if (std::isnan(x)) return kBf16CanonicalNan;
  const bf16_bits sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a == 0) return sign;
  int e;
  const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  // bf16 keeps 8 significant bits in the normal range; below 2^-126 the last bit is 2^-133.
  const int keep = e - 1 >= -126 ? 8 : 8 - (-126 - (e - 1));
  if (keep <= 0) {  // below half the smallest subnormal, or at most a tie with zero
    const double half = 0x1p-134;
    return static_cast<bf16_bits>(sign | (a > half ? 1 : 0));
  }
  const double scaled = std::ldexp(m, keep);  // in [2^(keep-1), 2^keep): exact
  std::uint64_t q = static_cast<std::uint64_t>(scaled);
  const double rest = scaled - static_cast<double>(q);
  if (rest > 0.5 || (rest == 0.5 && (q & 1))) ++q;
  const double value = std::ldexp(static_cast<double>(q), e - keep);
  if (value >= kBf16Overflow || value > kBf16Max) return static_cast<bf16_bits>(sign | 0x7F80);
  float f = static_cast<float>(value);  // exact: at most 8 significant bits, in binary32's range
  std::uint32_t word;
  std::memcpy(&word, &f, sizeof word);
  return static_cast<bf16_bits>(sign | ((word >> 16) & 0x7FFF));
}

TEST(Bf16, RandomDoublesRoundLikeTheIntegerOracle) {
  const CounterRng rng(11, "bf16-random");
  for (std::uint64_t i = 0; i < 2000000; ++i) {
    const double significand = std::ldexp(double(rng.bits(2 * i) >> 11), -53);
    const int exponent = static_cast<int>(rng.integer(2 * i + 1, -140, 129));
    const double x = (i % 2 ? -1 : 1) * std::ldexp(1.0 + significand, exponent);
    ASSERT_TRUE(same(round_to_bf16(x), oracle_round_bf16(x))) << std::hexfloat << x;
  }
}

TEST(Bf16, TheEnds) {
  EXPECT_EQ(round_to_bf16(kBf16Max), 0x7F7F);
  EXPECT_EQ(round_to_bf16(std::nextafter(kBf16Overflow, 0.0)), 0x7F7F);
  EXPECT_EQ(round_to_bf16(kBf16Overflow), kBf16PosInf);
  EXPECT_EQ(round_to_bf16(-kBf16Overflow), kBf16NegInf);
  EXPECT_EQ(round_to_bf16(-0.0), 0x8000);
  EXPECT_EQ(round_to_bf16(kBf16MinSubnormal), 0x0001);
  EXPECT_EQ(round_to_bf16(kBf16MinSubnormal / 2), 0x0000);  // tie to even (zero)
  EXPECT_EQ(round_to_bf16(std::nextafter(kBf16MinSubnormal / 2, 1.0)), 0x0001);
  EXPECT_EQ(round_to_bf16(1.0), 0x3F80);
  EXPECT_EQ(round_to_bf16(1.0 + 0x1p-8), 0x3F80);  // tie: to even
  EXPECT_EQ(round_to_bf16(1.0 + 3 * 0x1p-8), 0x3F82);
  EXPECT_EQ(round_to_bf16(std::nan("")), kBf16CanonicalNan);
}

TEST(Bf16, UlpIsTheSpacingAboveEveryPositiveFiniteValue) {
  for (std::int32_t key = 0; key < 0x7F7F; ++key) {
    const double v = bf16_to_double(bf16_from_key(key)), next = bf16_to_double(bf16_from_key(key + 1));
    ASSERT_EQ(bf16_ulp(v), next - v) << "key " << key;
  }
  EXPECT_EQ(bf16_ulp_distance(0x0000, 0x8000), 0u);
  EXPECT_EQ(bf16_ulp_distance(0x3F80, 0x3F81), 1u);
  EXPECT_EQ(bf16_ulp_distance(0x7F7F, kBf16PosInf), 1u);
}

}  // namespace
}  // namespace tc
