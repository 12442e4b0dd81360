// binary16 rounding and inspection on raw bits. The rounding works on the exact double value: the
// quantum (spacing) at |x| is a power of two, so |x| / quantum is exact and its ties-to-even integer
// rounding is the fp16 significand.
#include "tilecheck/fp16.h"

#include <cmath>
#include <cstdlib>

namespace tc {

half_bits round_to_half(double x) {
  const half_bits sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return kHalfCanonicalNan;  // one NaN, whatever the sign: results do not
                                               // depend on how a CPU signs Inf * 0
  const double a = std::fabs(x);
  if (a >= kHalfOverflow) return static_cast<half_bits>(sign | 0x7C00);
  if (a == 0.0) return sign;
  const int e = std::max(std::ilogb(a), -14);      // binade; subnormals share the 2^-14 spacing
  const double n = std::ldexp(a, 10 - e);          // significand in quanta, exact
  double r = std::floor(n);
  const double frac = n - r;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(r, 2.0) != 0.0)) r += 1.0;
  const int q = static_cast<int>(r);               // 0..2048; 2048 carries into the next binade
  const int bits = (a < kHalfMinNormal) ? q : ((e + 15) << 10) + q - 1024;
  return static_cast<half_bits>(sign | bits);
}

double half_to_double(half_bits h) {
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  if (exponent == 0x1F) return std::copysign(mantissa ? std::nan("") : INFINITY, sign);
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

float round_to_float(double x) { return static_cast<float>(x); }

HalfClass classify(half_bits h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  if (exponent == 0x1F) return mantissa ? HalfClass::nan : HalfClass::infinite;
  if (exponent == 0) return mantissa ? HalfClass::subnormal : HalfClass::zero;
  return HalfClass::normal;
}

half_bits half_from_key(std::int32_t key) {
  return key < 0 ? static_cast<half_bits>(0x8000 | -key) : static_cast<half_bits>(key);
}

std::uint32_t ulp_distance(half_bits a, half_bits b) {
  return static_cast<std::uint32_t>(std::abs(half_key(a) - half_key(b)));
}

double half_ulp(double x) {
  const double a = std::fabs(x);
  if (a == 0.0 || !std::isfinite(a)) return a == 0.0 ? kHalfMinSubnormal : 32.0;
  const int e = std::min(std::max(std::ilogb(a), -14), 15);
  return std::ldexp(1.0, e - 10);
}

}  // namespace tc
