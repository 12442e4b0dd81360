// bfloat16 numerics on raw bits (uint16_t), host only, the counterpart of fp16.h for the bf16
// formats (docs/numerics.md, "Formats"). bf16 is the top half of a binary32: 8 exponent bits like
// fp32, 8 significant bits (unit roundoff 2^-8). Rounding is correct (to nearest, ties to even),
// subnormals included; |x| >= (2 - 2^-8) * 2^127 rounds to +-Inf; every NaN rounds to 0x7FC0.
#pragma once
#include <cstdint>

namespace tc {

using bf16_bits = std::uint16_t;

constexpr double kBf16Max = 0x1.fep127;         // largest finite bfloat16, 3.3895e38
constexpr double kBf16Overflow = 0x1.ffp127;    // round-to-nearest gives Inf from here on
constexpr double kBf16MinNormal = 0x1p-126;
constexpr double kBf16MinSubnormal = 0x1p-133;
constexpr double kBf16UnitRoundoff = 0x1p-8;    // u_bf16
constexpr std::int32_t kBf16InfKey = 0x7F80;    // key of +Inf: one past the largest finite
constexpr bf16_bits kBf16PosInf = 0x7F80;
constexpr bf16_bits kBf16NegInf = 0xFF80;
constexpr bf16_bits kBf16CanonicalNan = 0x7FC0;

bf16_bits round_to_bf16(double x);
double bf16_to_double(bf16_bits b);

inline bool bf16_is_nan(bf16_bits b) { return (b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0; }
inline bool bf16_is_inf(bf16_bits b) { return (b & 0x7FFF) == 0x7F80; }

// Ordered key, as half_key: -Inf .. +-0 (0) .. +Inf; undefined for NaN.
inline std::int32_t bf16_key(bf16_bits b) {
  return (b & 0x8000) ? -static_cast<std::int32_t>(b & 0x7FFF) : static_cast<std::int32_t>(b);
}
bf16_bits bf16_from_key(std::int32_t key);  // inverse of bf16_key; key 0 gives +0
std::uint32_t bf16_ulp_distance(bf16_bits a, bf16_bits b);  // both non-NaN

// Spacing of bfloat16 numbers at |x|: 2^(max(floor(log2|x|), -126) - 7).
double bf16_ulp(double x);

}  // namespace tc
