// weight_table against dequantized_weight for every fp16 scale (all 65,536 bit patterns) and code;
// the grids of the exactness proof against the values they promise to divide.
#include "tilecheck/reference/gemm_weight_table.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

#include "tilecheck/reference/contract.h"

namespace tc {
namespace {

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

TEST(WeightTable, EqualsTheRoundingFunctionForEveryScaleAndCode) {
  int checked = 0;
  for (int group : {32, 64, 128, kPerColumn}) {
    for (int i = 0; i < 65536; ++i) {
      const half_bits s = static_cast<half_bits>(i);
      const WeightTable t = weight_table(s, group);
      bool finite = true;
      for (int q = 0; q < 16; ++q) {
        const double want = half_to_double(dequantized_weight(q, s, group));
        finite = finite && std::isfinite(want);
        ASSERT_EQ(bits(t.value[q]), bits(want)) << "scale 0x" << std::hex << i << std::dec << " code " << q
                                                << " group " << group << ": " << t.value[q] << " vs " << want;
        ++checked;
      }
      ASSERT_EQ(t.finite, finite) << "scale 0x" << std::hex << i;
    }
  }
  EXPECT_EQ(checked, 4 * 65536 * 16);
}

TEST(WeightGrid, DividesEveryFiniteWeightOfItsScaleAndIsTightForSomeScales) {
  int tight = 0, overflowing = 0;
  for (int i = 0; i < 65536; ++i) {
    const half_bits s = static_cast<half_bits>(i);
    if (!is_finite(s)) continue;
    const WeightTable t = weight_table(s, 64);
    const int grid = weight_grid(s, 64);
    bool odd_multiple = false;
    for (double v : t.value) {
      if (!std::isfinite(v) || v == 0.0) continue;
      const double units = std::ldexp(v, -grid);
      ASSERT_EQ(units, std::nearbyint(units)) << "scale 0x" << std::hex << i << ": " << v << " not on 2^" << grid;
      odd_multiple = odd_multiple || std::fmod(units, 2.0) != 0.0;
    }
    tight += odd_multiple ? 1 : 0;
    overflowing += t.finite ? 0 : 1;
  }
  EXPECT_GT(tight, 30000);       // an odd significand: the scale itself is an odd multiple
  EXPECT_GT(overflowing, 1000);  // the largest scales overflow at code 0 (-8 * s)
  EXPECT_EQ(weight_grid(round_to_half(1.0), kPerColumn), 0);
  EXPECT_EQ(weight_grid(round_to_half(1.0), 32), -10);
  EXPECT_EQ(weight_grid(0x0001, 128), -24);
}

TEST(WeightTable, PerColumnTablesAreTheCentredCodes) {
  const WeightTable t = weight_table(kHalfPosInf, kPerColumn);  // the scale is applied in the epilogue
  for (int q = 0; q < 16; ++q) EXPECT_EQ(t.value[q], q - kZeroPoint);
  EXPECT_TRUE(t.finite);
}

TEST(HalfGrid, IsTheLowestSetBitOfTheValue) {
  EXPECT_EQ(half_grid(0x0001), -24);  // smallest subnormal
  EXPECT_EQ(half_grid(0x3C00), 0);    // 1.0
  EXPECT_EQ(half_grid(0x3E00), -1);   // 1.5
  EXPECT_EQ(half_grid(0x7BFF), 5);    // 65504 = 2047 * 2^5
  EXPECT_EQ(half_grid(0x8000), kNoGrid);
  for (int i = 1; i < 0x7C00; ++i) {
    const double units = std::ldexp(half_to_double(static_cast<half_bits>(i)), -half_grid(static_cast<half_bits>(i)));
    ASSERT_EQ(std::fmod(units, 2.0), 1.0) << std::hex << i;  // an odd integer
  }
}

}  // namespace
}  // namespace tc
