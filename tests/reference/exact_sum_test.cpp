// tc::ExactSum: exact over the whole double range, rounded once to odd. Oracles: a 128-bit fixed-
// point sum where the summands share a narrow window, and sums whose exact value is known.
#include "tilecheck/reference/exact_sum.h"

#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/reference/rng.h"

namespace tc {
namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

bool same_sum_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// v * 2^exp2 rounded to odd: the independent oracle for summands in a 128-bit window.
double odd(i128 v, int exp2) {
  const bool negative = v < 0;
  u128 a = negative ? -static_cast<u128>(v) : static_cast<u128>(v);
  int shift = 0;
  while ((a >> shift) >= (static_cast<u128>(1) << 53)) ++shift;
  std::uint64_t mantissa = static_cast<std::uint64_t>(a >> shift);
  if (shift > 0 && (a & ((static_cast<u128>(1) << shift) - 1)) != 0) mantissa |= 1;
  const double r = std::ldexp(static_cast<double>(mantissa), exp2 + shift);
  return negative ? -r : r;
}

double sum_of(const std::vector<double>& xs) {
  ExactSum s;
  for (double x : xs) s.add(x);
  return s.round_to_odd();
}

TEST(ExactSum, KnownSums) {
  EXPECT_EQ(sum_of({}), 0.0);
  EXPECT_EQ(sum_of({1.0, -1.0}), 0.0);
  EXPECT_EQ(sum_of({0x1p100, 0x1p-100, -0x1p100}), 0x1p-100);  // nothing lost across 200 binades
  EXPECT_EQ(sum_of({0x1p1000, 0x1p-1000, -0x1p1000, 3.0}), std::nextafter(3.0, 4.0));  // 3 + 2^-1000: sticky
  EXPECT_EQ(sum_of({-2.5, -0.25}), -2.75);
  // 1 + 2^-60 is not a double: round to odd keeps the sticky bit (1 + 2^-52).
  EXPECT_EQ(sum_of({1.0, 0x1p-60}), 1.0 + 0x1p-52);
  EXPECT_EQ(sum_of({-1.0, -0x1p-60}), -(1.0 + 0x1p-52));
  EXPECT_EQ(sum_of({1.0, 0x1p-52}), 1.0 + 0x1p-52);  // exact
  // 2^1024 - 2^970 needs 54 bits: to odd it is the largest double (its last bit is already set) ...
  EXPECT_EQ(sum_of({0x1.fffffffffffffp1023, 0x1p970}), 0x1.fffffffffffffp1023);
  EXPECT_EQ(sum_of({0x1.fffffffffffffp1023, 0x1.fffffffffffffp1023}), INFINITY);  // ... 2^1025 - 2^972 is not
  EXPECT_EQ(sum_of({0x1.fffffffffffffp1023, -0x1.fffffffffffffp1023, 0x1p-1000}), 0x1p-1000);
  EXPECT_TRUE(std::isnan(sum_of({INFINITY, -INFINITY})));
  EXPECT_TRUE(std::isnan(sum_of({1.0, std::nan("")})));
  EXPECT_EQ(sum_of({INFINITY, 1e300, 1e300}), INFINITY);
  EXPECT_EQ(sum_of({-INFINITY, 5.0}), -INFINITY);
  ExactSum zero;
  zero.add(5.0);
  zero.add(-5.0);
  EXPECT_TRUE(zero.is_zero());
}

// Random summands with exponents in a 60-binade window and random signs, carries and borrows
// across limbs included: equal to the 128-bit oracle bit for bit.
TEST(ExactSum, RandomSumsEqualAFixedPointOracle) {
  const CounterRng rng(3, "exact-sum");
  for (int trial = 0; trial < 3000; ++trial) {
    const int base = static_cast<int>(rng.integer(trial * 1000, -1000, 950));
    const int count = static_cast<int>(rng.integer(trial * 1000 + 1, 1, 200));
    ExactSum s;
    i128 oracle = 0;
    for (int n = 0; n < count; ++n) {
      const std::uint64_t index = trial * 1000 + 2 + 2 * n;
      const std::int64_t m = static_cast<std::int64_t>(rng.integer(index, 0, (std::int64_t{1} << 20) - 1)) *
                             (rng.integer(index + 1, 0, 1) ? -1 : 1);
      const int shift = static_cast<int>(rng.integer(index, 0, 40));  // exponent base + shift
      s.add(std::ldexp(static_cast<double>(m), base + shift));
      oracle += static_cast<i128>(m) << shift;
    }
    ASSERT_TRUE(same_sum_bits(s.round_to_odd(), odd(oracle, base))) << "trial " << trial;
  }
}

// Rounding to odd then to float equals rounding the exact value once, where rounding to nearest
// double first would not: big + 1/2 + d (big in [2^23, 2^24), float's spacing 1) with |d| = 2^-60.
TEST(ExactSum, RoundToOddThenToFloatIsOneRounding) {
  const CounterRng rng(5, "exact-sum-float");
  for (int trial = 0; trial < 20000; ++trial) {
    const std::int64_t big = static_cast<std::int64_t>(rng.integer(trial, 1 << 23, (1 << 24) - 1));
    const int sign = static_cast<int>(rng.integer(trial + 100000, -1, 1));  // d < 0, d = 0, d > 0
    ExactSum s;
    s.add(static_cast<double>(big));
    s.add(0.5);
    if (sign != 0) s.add(sign * 0x1p-60);
    const double want = sign > 0 ? big + 1 : sign < 0 ? big : (big % 2 == 0 ? big : big + 1);
    ASSERT_EQ(static_cast<double>(static_cast<float>(s.round_to_odd())), want) << big << " + 1/2 + " << sign << " * 2^-60";
  }
}

}  // namespace
}  // namespace tc
