// The bounds of the scale-before-reduce epilogue (Epilogue::scale_before_reduce, vLLM's Marlin for
// 8-bit codes with per-column scales): each thread block multiplies its fp32 sum by the column's
// scale before the reduction between blocks, so a scaled partial can overflow fp32 (and two of them
// give Inf - Inf = NaN) where the scaled total does not, a stored partial in the dtype overflows at
// (S_j + E) * |s|, and the scaling adds a rounding and, for bf16, an underflow per slice
// (docs/numerics.md, "Declared numerics"). The element of the first test is one vLLM's kernel
// returned NaN for on an H200 (docs/case-study-vllm-marlin-formats.md).
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "tilecheck/reference/bf16.h"
#include "tilecheck/reference/bound.h"
#include "common/truncating_fp32.h"

namespace tc {
namespace {

using truncating_fp32::rn32;

constexpr std::uint16_t kBf16One = 0x3F80;
constexpr std::uint16_t kBf16Inf = 0x7F80;
constexpr std::uint16_t kBf16Nan = 0x7FC0;
constexpr Numerics kScaledPartials{Accumulator::fp32, Partials::fp32, Epilogue::scale_before_reduce};
constexpr Numerics kScaledAtTheEnd{Accumulator::fp32, Partials::fp32, Epilogue::scale_then_round};

// A (1, 64) per-column problem of depth 128: column 0 holds the element, the others y* = S = 0 with
// scale 1.
struct OneElement {
  Shape shape{1, 64, 128, -1};
  F64Matrix y = F64Matrix::Zero(1, 64);
  F64Matrix S = F64Matrix::Zero(1, 64);
  HalfMatrix scales = HalfMatrix::Constant(1, 64, kBf16One);
  OneElement(double y0, double S0, std::uint16_t scale) {
    y(0, 0) = y0;
    S(0, 0) = S0;
    scales(0, 0) = scale;
  }
  OutputBounds bounds(const Numerics& n, int max_slices, Dtype d = Dtype::bf16) const {
    return output_bounds_any_schedule(y, S, scales, d, n, shape, max_slices);
  }
};

// Row 1, column 3 of extremes_m8_n256_k128_gcol_marlin_bf16-uint8b128: y* = 903, S = 24539, the
// scale 0x7BFE (2.64e36, the largest with s * 128 finite). vLLM's two blocks of 64 rows summed -285
// and 1188; each times s overflows fp32, with its own sign.
TEST(ScaledPartials, AScaledFp32PartialThatMayOverflowLeavesTheElementUnbounded) {
  const OneElement e(903.0, 24539.0, 0x7BFE);
  const double s = bf16_to_double(0x7BFE);
  ASSERT_TRUE(std::isnan(rn32(rn32(-285.0 * s) + rn32(1188.0 * s)))) << "vLLM's arithmetic on this element";
  const OutputBounds two = e.bounds(kScaledPartials, 2);
  EXPECT_TRUE(two.at(0, 0).unbounded);
  EXPECT_TRUE(admits(Dtype::bf16, two.at(0, 0), kBf16Nan));
  // Scaled once, after the reduction, nothing but y* s can overflow: +Inf, and NaN fails.
  const OutputBounds at_end = e.bounds(kScaledAtTheEnd, 2);
  EXPECT_FALSE(at_end.at(0, 0).unbounded);
  EXPECT_TRUE(admits(Dtype::bf16, at_end.at(0, 0), kBf16Inf));
  EXPECT_FALSE(admits(Dtype::bf16, at_end.at(0, 0), kBf16Nan));
  // One slice: its scaling is the epilogue, which maps [y* - E, y* + E] exactly.
  const OutputBounds one = e.bounds(kScaledPartials, 1);
  EXPECT_FALSE(one.at(0, 0).unbounded);
  EXPECT_TRUE(admits(Dtype::bf16, one.at(0, 0), kBf16Inf));
  EXPECT_FALSE(admits(Dtype::bf16, one.at(0, 0), kBf16Nan));
  // Scale 1: scaling changes nothing, so neither does the declaration.
  for (int j = 1; j < 64; ++j) {
    EXPECT_EQ(two.E(0, j), at_end.E(0, j));
    EXPECT_EQ(two.at(0, j).key_lo, at_end.at(0, j).key_lo);
    EXPECT_EQ(two.at(0, j).key_hi, at_end.at(0, j).key_hi);
  }
}

// Below the threshold the element stays bounded: a scaled total far from overflow is judged.
TEST(ScaledPartials, AnElementWhoseScaledPartialsStayFiniteIsStillJudged) {
  const OneElement e(903.0, 24539.0, 0x7000);  // s = 2^97: (S + E) * s ~ 4e33
  const OutputBounds b = e.bounds(kScaledPartials, 4);
  EXPECT_FALSE(b.at(0, 0).unbounded);
  EXPECT_FALSE(admits(Dtype::bf16, b.at(0, 0), kBf16Nan));
  EXPECT_FALSE(admits(Dtype::bf16, b.at(0, 0), kBf16Inf));
}

// Partials stored in the dtype hold scaled sums: they overflow at (S + E) * |s|, not at S + E.
TEST(ScaledPartials, AStoredPartialOverflowsAtItsScaledValue) {
  OneElement e(1000.0, 20000.0, 0x4400);  // fp16 4.0: scaled S 80000 > 65520, unscaled below
  const Numerics fp16_scaled{Accumulator::fp32, Partials::fp16, Epilogue::scale_before_reduce};
  const Numerics fp16_at_end{Accumulator::fp32, Partials::fp16, Epilogue::scale_then_round};
  e.scales.setConstant(0x3C00);  // fp16 1.0
  e.scales(0, 0) = 0x4400;
  EXPECT_TRUE(e.bounds(fp16_scaled, 2, Dtype::fp16).at(0, 0).unbounded);
  EXPECT_FALSE(e.bounds(fp16_at_end, 2, Dtype::fp16).at(0, 0).unbounded);
}

TEST(ScaledPartials, PartialScaleIsTheColumnsScaleOnlyWhenSlicesAreScaled) {
  EXPECT_EQ(partial_scale(Dtype::bf16, 0x7BFE, -1, Epilogue::scale_before_reduce), bf16_to_double(0x7BFE));
  EXPECT_EQ(partial_scale(Dtype::bf16, 0xC000, -1, Epilogue::scale_before_reduce), 2.0) << "its magnitude";
  EXPECT_EQ(partial_scale(Dtype::bf16, 0x7BFE, -1, Epilogue::scale_then_round), 1.0);
  EXPECT_EQ(partial_scale(Dtype::bf16, 0x7BFE, 128, Epilogue::scale_before_reduce), 1.0) << "grouped";
  EXPECT_EQ(partial_scale(Dtype::bf16, kBf16Nan, -1, Epilogue::scale_before_reduce), 1.0);
  EXPECT_TRUE(scaled_partial_may_overflow(24539.0, 0.0, 2, bf16_to_double(0x7BFE)));
  EXPECT_FALSE(scaled_partial_may_overflow(24539.0, 0.0, 1, bf16_to_double(0x7BFE)));
  EXPECT_FALSE(scaled_partial_may_overflow(24539.0, 0.0, 2, 1.0));
}

// E: one more rounding per product's chain (its slice's scaling); for bf16 the scaled values'
// underflow, 2^-149 / |s| per scaling and cross-block addition; a stored partial's subnormal
// error divided by |s|. With one slice nothing changes.
TEST(ScaledPartials, ErrorBoundChargesTheScalingInAccumulatorUnits) {
  const double S = 100.0, tiny = 0x1p-133;
  EXPECT_EQ(error_bound(Dtype::bf16, S, 128, 0, {}, tiny), error_bound(Dtype::bf16, S, 128, 0, {}));
  const double unscaled = error_bound(Dtype::bf16, S, 128, 1, {});
  EXPECT_GE(error_bound(Dtype::bf16, S, 128, 1, {}, tiny) - unscaled, 3 * 0x1p-16);
  EXPECT_GT(error_bound(Dtype::bf16, S, 128, 1, {}, 2.0), unscaled) << "the scaling's rounding";
  const double fp16_stored = error_bound(Dtype::fp16, S, 128, 1, {S});
  EXPECT_GE(error_bound(Dtype::fp16, S, 128, 1, {S}, 0x1p-10) - fp16_stored, 0x1p-25 * (0x1p10 - 1));
  EXPECT_TRUE(std::isfinite(error_bound(Dtype::bf16, S, 128, 3, {S, S, S}, 0.0))) << "a zero scale: exact zeros";
}

}  // namespace
}  // namespace tc
