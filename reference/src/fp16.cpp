// binary16 rounding and inspection on raw bits. The rounding works on the exact double value: the
// quantum (spacing) at |x| is a power of two, so |x| / quantum is exact and its ties-to-even integer
// rounding is the fp16 significand.
#include "tilecheck/reference/fp16.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace tc {

namespace {

// The exponent and significand fields are read and written directly: these two functions run for
// every weight the bounds dequantize, and ilogb/ldexp/fmod made them most of that time.
std::uint64_t bits_of(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

double from_bits(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

double power_of_two(int e) { return from_bits(static_cast<std::uint64_t>(e + 1023) << 52); }  // normal e only

}  // namespace

half_bits round_to_half(double x) {
  const half_bits sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return kHalfCanonicalNan;  // one NaN, whatever the sign: results do not
                                               // depend on how a CPU signs Inf * 0
  const double a = std::fabs(x);
  if (a >= kHalfOverflow) return static_cast<half_bits>(sign | 0x7C00);
  if (a == 0.0) return sign;
  // binade (a >= 2^-14 is a normal double); subnormals share the 2^-14 spacing
  const int e = a < kHalfMinNormal ? -14 : static_cast<int>((bits_of(a) >> 52) & 0x7FF) - 1023;
  const double n = a * power_of_two(10 - e);       // significand in quanta, exact
  const double r = std::floor(n);
  const double frac = n - r;
  int q = static_cast<int>(r);                     // 0..2047
  if (frac > 0.5 || (frac == 0.5 && (q & 1) != 0)) ++q;  // 2048 carries into the next binade
  const int bits = (a < kHalfMinNormal) ? q : ((e + 15) << 10) + q - 1024;
  return static_cast<half_bits>(sign | bits);
}

double half_to_double(half_bits h) {
  const int exponent = (h >> 10) & 0x1F;
  const int mantissa = h & 0x3FF;
  const bool negative = (h & 0x8000) != 0;
  if (exponent == 0x1F) return std::copysign(mantissa ? std::nan("") : INFINITY, negative ? -1.0 : 1.0);
  if (exponent == 0) {
    const double v = mantissa * 0x1p-24;
    return negative ? -v : v;
  }
  return from_bits((negative ? std::uint64_t{1} << 63 : 0) | static_cast<std::uint64_t>(exponent - 15 + 1023) << 52 |
                   static_cast<std::uint64_t>(mantissa) << 42);
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
