// The kernel's arithmetic in the worst case the bounds model (docs/numerics.md): fp32 additions that
// truncate, the slices of an output tile combined in reduction order (fp16 partial sums under the
// marlin contract, or as declared), then the contract's (or the declared) epilogue. One implementation for the tests that emulate a
// kernel: the bound's (tests/reference/bound_test.cpp) and the comparator's kernel model
// (tests/compare/synthetic.cpp); each chooses how its slices sum their k-range.
#pragma once
#include <cmath>
#include <cstddef>

#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/fp16.h"
#include "tilecheck/reference/numerics.h"
#include "tilecheck/reference/shape.h"

namespace tc::truncating_fp32 {

// Round toward zero to binary32: the model of the MMA's adder.
inline double trunc32(double x) {
  float f = static_cast<float>(x);
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  return f;
}
inline double rn32(double x) { return static_cast<float>(x); }
inline double rn16(double x) { return half_to_double(round_to_half(x)); }
// Round toward zero to binary16: a truncating epilogue (__float2half_rz).
inline half_bits rz16(double x) {
  half_bits h = round_to_half(x);
  if (std::isfinite(x) && std::fabs(half_to_double(h)) > std::fabs(x)) --h;  // sign-magnitude: one step down
  return h;
}

// One element's slices in reduction order: slice_sum(n) is slice n's own sum (called once per slice,
// in order). Each later slice adds the partial stored before it, an fp32 addition that truncates;
// under the marlin contract every partial but the last is stored in fp16.
template <typename SliceSum>
double reduce_slices(std::size_t slices, Partials partials, SliceSum&& slice_sum) {
  double stored = 0;
  for (std::size_t n = 0; n < slices; ++n) {
    double acc = slice_sum(n);
    if (n > 0) acc = trunc32(acc + stored);
    stored = (partials == Partials::fp16 && n + 1 < slices) ? rn16(acc) : acc;
  }
  return stored;
}
template <typename SliceSum>
double reduce_slices(std::size_t slices, Contract contract, SliceSum&& slice_sum) {
  return reduce_slices(slices, contract_numerics(contract).partials, slice_sum);
}

enum class FinalRounding { nearest, toward_zero };

// The epilogue: grouped scales are inside the sum; a per-column scale multiplies it afterwards (the
// marlin contract first rounds the sum to fp16, fp32 multiplies in fp32), then one rounding to fp16.
inline half_bits epilogue(double acc, int group, double scale, Epilogue order,
                          FinalRounding rounding = FinalRounding::nearest) {
  const auto to_half = [&](double x) { return rounding == FinalRounding::toward_zero ? rz16(x) : round_to_half(x); };
  if (!is_per_column(group)) return to_half(acc);
  if (order == Epilogue::round_then_scale) return to_half(rn16(acc) * scale);
  return to_half(rn32(acc * scale));
}
inline half_bits epilogue(double acc, int group, double scale, Contract contract,
                          FinalRounding rounding = FinalRounding::nearest) {
  return epilogue(acc, group, scale, contract_numerics(contract).epilogue, rounding);
}

}  // namespace tc::truncating_fp32
