// The exact sum of any doubles (a long fixed-point accumulator: every finite double is an integer
// number of 2^-1152 below 2^1024, and 37 limbs of 64 bits hold 2^64 such summands), rounded once at
// the end to odd, so that the formats' later roundings (to fp32, to fp16 or bf16) are correct
// (docs/numerics.md). The fp16 reference (gemm.h) sums in 128 bits because fp16 products are a
// narrow window; bf16 products span 2^-266 .. 2^256, which only this covers. Non-finite summands
// follow IEEE: NaN, or +Inf plus -Inf, give NaN; otherwise an Inf wins.
#pragma once
#include <array>
#include <cstdint>

namespace tc {

class ExactSum {
 public:
  void add(double x);
  // The exact sum rounded to double with round-to-odd (exact when it fits). Sums below 2^-1022 in
  // magnitude are rounded to nearest instead (no reference sum comes near: products of fp16 or bf16
  // values are at least 2^-266 apart from zero).
  double round_to_odd() const;
  bool is_zero() const;

 private:
  static constexpr int kLsb = -1152;  // the weight of limb 0's bit 0
  static constexpr int kLimbs = 37;
  std::array<std::uint64_t, kLimbs> limbs_{};  // two's complement, limb 0 least significant
  bool nan_ = false, pos_inf_ = false, neg_inf_ = false;
};

}  // namespace tc
