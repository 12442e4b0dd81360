// bfloat16 rounding and inspection on raw bits. As for fp16 (fp16.cpp): the spacing at |x| is a
// power of two, so |x| / spacing is exact in double and its ties-to-even integer rounding is the
// bf16 significand. Every bf16 value, subnormals included, is a normal double.
#include "tilecheck/reference/bf16.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace tc {

bf16_bits round_to_bf16(double x) {
  const bf16_bits sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return kBf16CanonicalNan;
  const double a = std::fabs(x);
  if (a >= kBf16Overflow) return static_cast<bf16_bits>(sign | 0x7F80);
  if (a == 0.0) return sign;
  const int e = a < kBf16MinNormal ? -126 : std::ilogb(a);  // subnormals share the 2^-126 binade's spacing
  const double n = std::ldexp(a, 7 - e);  // significand in quanta, exact
  const double r = std::floor(n);
  const double frac = n - r;
  int q = static_cast<int>(r);  // 0..255
  if (frac > 0.5 || (frac == 0.5 && (q & 1) != 0)) ++q;  // 256 carries into the next binade
  const int bits = a < kBf16MinNormal ? q : ((e + 127) << 7) + q - 128;
  return static_cast<bf16_bits>(sign | bits);
}

double bf16_to_double(bf16_bits b) {
  const int exponent = (b >> 7) & 0xFF;
  const int mantissa = b & 0x7F;
  const double sign = (b & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0xFF) return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -133);
  return sign * std::ldexp(128 + mantissa, exponent - 127 - 7);
}

bf16_bits bf16_from_key(std::int32_t key) {
  return key < 0 ? static_cast<bf16_bits>(0x8000 | -key) : static_cast<bf16_bits>(key);
}

std::uint32_t bf16_ulp_distance(bf16_bits a, bf16_bits b) {
  return static_cast<std::uint32_t>(std::abs(bf16_key(a) - bf16_key(b)));
}

double bf16_ulp(double x) {
  const double a = std::fabs(x);
  if (a == 0.0 || !std::isfinite(a)) return a == 0.0 ? kBf16MinSubnormal : 0x1p120;
  const int e = std::min(std::max(std::ilogb(a), -126), 127);
  return std::ldexp(1.0, e - 7);
}

}  // namespace tc
