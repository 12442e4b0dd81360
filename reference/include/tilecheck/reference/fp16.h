// IEEE binary16 numerics on raw bits (uint16_t), host only: no CUDA or compiler half type needed.
// Rounding is correct (round to nearest, ties to even), subnormals included; |x| >= 65520 rounds to
// +-Inf; every NaN rounds to the canonical 0x7E00. The ordered key maps bits to integers so that ULP
// distance is a subtraction.
#pragma once
#include <cstdint>

namespace tc {

using half_bits = std::uint16_t;

constexpr double kHalfMax = 65504.0;       // largest finite binary16
constexpr double kHalfOverflow = 65520.0;  // round-to-nearest gives Inf from here on
constexpr double kHalfMinNormal = 1.0 / 16384.0;        // 2^-14
constexpr double kHalfMinSubnormal = 1.0 / 16777216.0;  // 2^-24
constexpr double kHalfUnitRoundoff = 1.0 / 2048.0;      // u16 = 2^-11
constexpr std::int32_t kHalfInfKey = 0x7C00;            // key of +Inf: one past the largest finite
constexpr half_bits kHalfPosInf = 0x7C00;
constexpr half_bits kHalfNegInf = 0xFC00;
constexpr half_bits kHalfCanonicalNan = 0x7E00;

enum class HalfClass { zero, subnormal, normal, infinite, nan };

half_bits round_to_half(double x);
double half_to_double(half_bits h);
float round_to_float(double x);  // correctly rounded binary32 (the host's RN conversion)

// The value's IEEE class. No numerics path needs it (they test is_nan / is_inf); it is the
// fp16 API's one statement of the five classes, which tests in several libraries use to say what
// an input holds (all 65,536 bits in fp16_test, the subnormal inputs in fixtures' generate_test)
// without decoding exponent fields themselves.
HalfClass classify(half_bits h);
inline bool is_nan(half_bits h) { return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0; }
inline bool is_inf(half_bits h) { return (h & 0x7FFF) == 0x7C00; }
inline bool is_finite(half_bits h) { return (h & 0x7C00) != 0x7C00; }
inline bool sign_bit(half_bits h) { return (h & 0x8000) != 0; }

// Ordered key: -31744 (-Inf) .. 0 (+-0) .. 31744 (+Inf). Undefined for NaN (callers check first).
inline std::int32_t half_key(half_bits h) {
  return (h & 0x8000) ? -static_cast<std::int32_t>(h & 0x7FFF) : static_cast<std::int32_t>(h);
}
half_bits half_from_key(std::int32_t key);  // inverse of half_key; key 0 gives +0

// |key(a) - key(b)|. Requires both non-NaN. Inf is one step past 65504; callers that must not count
// Inf as "1 ULP" check is_inf first.
std::uint32_t ulp_distance(half_bits a, half_bits b);

// Spacing of binary16 numbers at |x|: 2^(max(floor(log2|x|), -14) - 10); 2^-24 at zero; 32 above 65504.
double half_ulp(double x);

}  // namespace tc
