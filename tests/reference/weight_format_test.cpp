// The weight formats (reference/weight_format.h): every code of every type, with zero points, in both
// dtypes, against independent computations: fp16 against the original uint4b8 dequantization
// (contract.h) and a float product rounded by the compiler's _Float16; bf16 against a float product
// rounded to its top 16 bits with integer ties-to-even.
#include "tilecheck/reference/weight_format.h"

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "tilecheck/reference/bf16.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/fp16.h"

namespace tc {
namespace {

__extension__ typedef _Float16 oracle_half;

std::uint16_t oracle_fp16(float x) {
  const oracle_half h = static_cast<oracle_half>(x);
  std::uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

std::uint16_t oracle_bf16(float x) {  // binary32 -> bf16, ties to even, on the bit pattern
  std::uint32_t w;
  std::memcpy(&w, &x, sizeof w);
  if ((w & 0x7FFFFFFF) > 0x7F800000) return kBf16CanonicalNan;
  w += 0x7FFF + ((w >> 16) & 1);
  return static_cast<std::uint16_t>(w >> 16);
}

bool same(Dtype d, std::uint16_t a, std::uint16_t b) {
  const bool nan_a = d == Dtype::fp16 ? is_nan(a) : bf16_is_nan(a);
  const bool nan_b = d == Dtype::fp16 ? is_nan(b) : bf16_is_nan(b);
  return a == b || (nan_a && nan_b);
}

TEST(WeightFormat, CodeValuesOfEveryType) {
  for (int q = 0; q <= 15; ++q) {
    EXPECT_EQ(code_value(WeightType::uint4b8, q), q - 8);
    for (int z = 0; z <= 15; ++z) EXPECT_EQ(code_value(WeightType::uint4, q, z), q - z);
  }
  for (int q = 0; q <= 255; ++q) EXPECT_EQ(code_value(WeightType::uint8b128, q), q - 128);
  EXPECT_EQ(max_code(WeightType::uint8b128), 255);
  EXPECT_TRUE(has_zero_points(WeightType::uint4));
  EXPECT_FALSE(has_zero_points(WeightType::uint4b8));
}

TEST(WeightFormat, OutOfRangeCodesAndZeroPointsAreNamed) {
  try {
    code_value(WeightType::uint4b8, 16);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "code 16 is outside uint4b8's range 0..15");
  }
  try {
    code_value(WeightType::uint4, 3, 16);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "zero point 16 is outside uint4's range 0..15");
  }
  EXPECT_THROW(code_value(WeightType::uint8b128, -1), Error);
  EXPECT_THROW(parse_dtype("fp8"), Error);
  EXPECT_EQ(parse_weight_type("uint8b128"), WeightType::uint8b128);
  EXPECT_EQ(name(parse_dtype("bf16")), "bf16");
}

// uint4b8 in fp16 is the original format: bit for bit the contract's dequantization, every scale.
TEST(WeightFormat, Uint4b8InFp16IsTheOriginalDequantization) {
  for (int s = 0; s < 65536; ++s)
    for (int q = 0; q < 16; ++q) {
      const auto scale = static_cast<std::uint16_t>(s);
      ASSERT_TRUE(same(Dtype::fp16, dequantized_weight(Dtype::fp16, WeightType::uint4b8, q, 0, scale, false),
                       dequantized_weight(q, scale, 128)))
          << "q " << q << " scale 0x" << std::hex << s;
      ASSERT_EQ(dequantized_weight(Dtype::fp16, WeightType::uint4b8, q, 0, scale, true), dequantized_weight(q, scale, -1));
    }
}

// Every scale pattern of both dtypes, every 8-bit code and every uint4 code and zero point: v * s is
// exact in binary32 (at most 9 + 11 significant bits, in range), so rounding the float product is an
// independent oracle.
TEST(WeightFormat, GroupedWeightsAreTheProductRoundedOnceInTheDtype) {
  for (Dtype d : {Dtype::fp16, Dtype::bf16}) {
    for (int s = 0; s < 65536; ++s) {
      const auto scale = static_cast<std::uint16_t>(s);
      const double sv = to_double(d, scale);
      const auto check = [&](WeightType t, int q, int z) {
        const float product = static_cast<float>(code_value(t, q, z) * sv);
        const std::uint16_t expected = d == Dtype::fp16 ? oracle_fp16(product) : oracle_bf16(product);
        ASSERT_TRUE(same(d, dequantized_weight(d, t, q, z, scale, false), expected))
            << name(d) << " " << name(t) << " q " << q << " z " << z << " scale 0x" << std::hex << s;
      };
      for (int q = 0; q <= 255; q += 17) check(WeightType::uint8b128, q, 0);
      for (int q = 0; q <= 15; ++q) check(WeightType::uint4, q, (q * 7 + s) % 16);
    }
  }
}

TEST(WeightFormat, PerColumnWeightsAreTheExactValues) {
  for (Dtype d : {Dtype::fp16, Dtype::bf16}) {
    for (int q = 0; q <= 255; ++q)
      ASSERT_EQ(to_double(d, dequantized_weight(d, WeightType::uint8b128, q, 0, 0, true)), q - 128.0) << q;
    for (int q = 0; q <= 15; ++q)
      for (int z = 0; z <= 15; ++z)
        ASSERT_EQ(to_double(d, dequantized_weight(d, WeightType::uint4, q, z, 0, true)), double(q - z));
  }
  EXPECT_EQ(unit_roundoff(Dtype::bf16), 0x1p-8);
}

}  // namespace
}  // namespace tc
