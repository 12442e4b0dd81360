// Exhaustive checks of the binary16 helpers over all 65,536 bit patterns, with the compiler's own
// _Float16 conversion (libgcc, correctly rounded) as an independent oracle for rounding.
#include "tilecheck/reference/fp16.h"

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "tilecheck/reference/rng.h"

namespace tc {
namespace {

__extension__ typedef _Float16 oracle_half;

half_bits oracle_round(double x) {
  const oracle_half h = static_cast<oracle_half>(x);
  half_bits bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

bool same_rounding(half_bits a, half_bits b) { return a == b || (is_nan(a) && is_nan(b)); }

TEST(Fp16, ClassifyMatchesTheDecodedValueForEveryPattern) {
  for (int i = 0; i < 65536; ++i) {
    const half_bits h = static_cast<half_bits>(i);
    const double v = half_to_double(h);
    HalfClass expected = HalfClass::normal;
    if (std::isnan(v)) expected = HalfClass::nan;
    else if (std::isinf(v)) expected = HalfClass::infinite;
    else if (v == 0.0) expected = HalfClass::zero;
    else if (std::fabs(v) < kHalfMinNormal) expected = HalfClass::subnormal;
    ASSERT_EQ(classify(h), expected) << "bits 0x" << std::hex << i;
    ASSERT_EQ(is_nan(h), expected == HalfClass::nan);
    ASSERT_EQ(is_inf(h), expected == HalfClass::infinite);
    ASSERT_EQ(is_finite(h), expected != HalfClass::nan && expected != HalfClass::infinite);
    ASSERT_EQ(std::signbit(v), sign_bit(h)) << "bits 0x" << std::hex << i;
  }
}

TEST(Fp16, DecodingMatchesTheOracleForEveryPattern) {
  for (int i = 0; i < 65536; ++i) {
    const half_bits h = static_cast<half_bits>(i);
    oracle_half o;
    std::memcpy(&o, &h, sizeof o);
    const double expected = static_cast<double>(o);
    const double got = half_to_double(h);
    if (std::isnan(expected)) {
      ASSERT_TRUE(std::isnan(got)) << i;
    } else {
      ASSERT_EQ(got, expected) << "bits 0x" << std::hex << i;
    }
  }
}

TEST(Fp16, EveryPatternRoundTripsThroughDouble) {
  for (int i = 0; i < 65536; ++i) {
    const half_bits h = static_cast<half_bits>(i);
    if (is_nan(h)) {
      ASSERT_TRUE(is_nan(round_to_half(half_to_double(h))));
      continue;
    }
    ASSERT_EQ(round_to_half(half_to_double(h)), h) << "bits 0x" << std::hex << i;
  }
}

// Between every pair of adjacent finite values: the midpoint goes to the even significand, anything
// just below or above it to the nearer neighbour, exactly as the oracle rounds.
TEST(Fp16, MidpointsTieToEvenAndNeighboursRoundToNearest) {
  for (std::int32_t key = -kHalfInfKey; key < kHalfInfKey; ++key) {
    const half_bits lo = half_from_key(key), hi = half_from_key(key + 1);
    const double a = half_to_double(lo), b = half_to_double(hi);
    ASSERT_LT(a, b) << "key " << key;
    double mid = (a + b) / 2;
    if (is_inf(hi)) mid = kHalfOverflow;  // the overflow threshold plays the midpoint's role
    if (is_inf(lo)) mid = -kHalfOverflow;
    const half_bits even = (lo & 1) == 0 ? lo : hi;
    const double below = std::nextafter(mid, -INFINITY), above = std::nextafter(mid, INFINITY);
    ASSERT_EQ(half_key(round_to_half(below)), key) << "key " << key;  // keys: -0 and +0 are one value
    ASSERT_EQ(half_key(round_to_half(above)), key + 1) << "key " << key;
    if (!is_inf(hi) && !is_inf(lo)) {
      ASSERT_EQ(half_key(round_to_half(mid)), half_key(even)) << "key " << key;
    }
    ASSERT_TRUE(same_rounding(round_to_half(mid), oracle_round(mid))) << "key " << key;
    ASSERT_TRUE(same_rounding(round_to_half(below), oracle_round(below))) << "key " << key;
    ASSERT_TRUE(same_rounding(round_to_half(above), oracle_round(above))) << "key " << key;
  }
}

TEST(Fp16, OverflowThresholdIs65520) {
  EXPECT_EQ(round_to_half(65504.0), 0x7BFF);
  EXPECT_EQ(round_to_half(std::nextafter(kHalfOverflow, 0.0)), 0x7BFF);
  EXPECT_EQ(round_to_half(kHalfOverflow), kHalfPosInf);
  EXPECT_EQ(round_to_half(-kHalfOverflow), kHalfNegInf);
  EXPECT_EQ(round_to_half(INFINITY), kHalfPosInf);
  EXPECT_EQ(round_to_half(1e300), kHalfPosInf);
  EXPECT_TRUE(is_nan(round_to_half(std::nan(""))));
  EXPECT_EQ(round_to_half(-0.0), 0x8000);
  EXPECT_EQ(round_to_half(kHalfMinSubnormal / 2), 0x0000);  // tie to even (zero)
  EXPECT_EQ(round_to_half(std::nextafter(kHalfMinSubnormal / 2, 1.0)), 0x0001);
}

TEST(Fp16, RandomDoublesRoundLikeTheOracle) {
  const CounterRng rng(7, "fp16-random");
  for (std::uint64_t i = 0; i < 2000000; ++i) {
    // Random significand and an exponent spanning below the subnormals to beyond overflow.
    const double significand = std::ldexp(double(rng.bits(2 * i) >> 11), -53);
    const int exponent = static_cast<int>(rng.integer(2 * i + 1, -30, 17));
    const double x = (i % 2 ? -1 : 1) * std::ldexp(1.0 + significand, exponent);
    ASSERT_TRUE(same_rounding(round_to_half(x), oracle_round(x))) << std::hexfloat << x;
  }
}

TEST(Fp16, KeysAreOrderedAndDistancesCountRepresentableSteps) {
  for (int i = 0; i < 65536; ++i) {
    const half_bits h = static_cast<half_bits>(i);
    if (is_nan(h)) continue;
    ASSERT_EQ(half_key(half_from_key(half_key(h))), half_key(h));
  }
  EXPECT_EQ(half_key(0x0000), 0);
  EXPECT_EQ(half_key(0x8000), 0);
  EXPECT_EQ(ulp_distance(0x0000, 0x8000), 0u);
  EXPECT_EQ(ulp_distance(0x0001, 0x8001), 2u);
  EXPECT_EQ(ulp_distance(0x3C00, 0x3C01), 1u);
  EXPECT_EQ(ulp_distance(0x7BFF, kHalfPosInf), 1u);
  EXPECT_EQ(half_key(kHalfPosInf), kHalfInfKey);
  EXPECT_EQ(half_key(kHalfNegInf), -kHalfInfKey);
}

TEST(Fp16, UlpIsTheSpacingAboveEveryPositiveFiniteValue) {
  for (std::int32_t key = 0; key < 0x7BFF; ++key) {
    const double v = half_to_double(half_from_key(key));
    const double next = half_to_double(half_from_key(key + 1));
    ASSERT_EQ(half_ulp(v), next - v) << "key " << key;
    ASSERT_EQ(half_ulp(-v), next - v) << "key " << key;
  }
  EXPECT_EQ(half_ulp(0.0), kHalfMinSubnormal);
  EXPECT_EQ(half_ulp(1.0), 1.0 / 1024);
}

}  // namespace
}  // namespace tc
