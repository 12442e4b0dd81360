// Exact dequantization tables. A finite scale is s = sigma * 2^e with an integer |sigma| <= 2047 and
// e >= -24 (fp16's quantum). Then (q - 8) * s = P * 2^e with |P| = |q - 8| * |sigma| <= 16376, and
// RN16 of it is P rounded to 11 significant bits (ties to even), times 2^e: a result of 2048 * 2^-24
// or more is a normal fp16, whose significand has 11 bits; below that P < 2048 is exact on fp16's
// grid of 2^-24. Rounded values of 65536 or more are the overflow to Inf (65520, the halfway point
// between 65504 and 65536, ties to the even 65536).
#include "tilecheck/reference/gemm_weight_table.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/shape.h"

namespace tc {
namespace {

int bit_length(std::uint32_t x) { return x == 0 ? 0 : 32 - __builtin_clz(x); }

// |P| * 2^e rounded to 11 significant bits, ties to even: the rounded significand and exponent.
void round_to_11_bits(std::uint32_t P, int e, std::uint32_t& significand, int& exponent) {
  const int shift = std::max(0, bit_length(P) - 11);
  const std::uint32_t kept = P >> shift, rest = P - (kept << shift), half = shift ? 1u << (shift - 1) : 0;
  significand = kept + ((shift && (rest > half || (rest == half && (kept & 1)))) ? 1 : 0);
  exponent = e + shift;
}

}  // namespace

int half_grid(half_bits h) {
  const int biased = (h >> 10) & 0x1F;
  const std::uint32_t m = (h & 0x3FFu) | (biased ? 0x400u : 0u);
  if (m == 0) return kNoGrid;
  return std::max(biased, 1) - 25 + __builtin_ctz(m);
}

int weight_grid(half_bits scale, int group) {
  return is_per_column(group) ? 0 : std::max((scale >> 10) & 0x1F, 1) - 25;
}

WeightTable weight_table(half_bits scale, int group) {
  WeightTable t{};
  t.finite = true;
  if (is_per_column(group)) {  // q - 8
    for (int q = 0; q < 16; ++q) t.value[q] = q - kZeroPoint;
    return t;
  }
  if (!is_finite(scale)) {  // Inf or NaN weights: the rounding function itself, no shortcut
    for (int q = 0; q < 16; ++q) t.value[q] = half_to_double(dequantized_weight(q, scale, group));
    t.finite = false;
    return t;
  }
  const int biased = (scale >> 10) & 0x1F;
  const std::uint32_t sigma = (scale & 0x3FFu) | (biased ? 0x400u : 0u);
  const int e = std::max(biased, 1) - 25;
  const bool negative = sign_bit(scale);
  t.value[kZeroPoint] = negative ? -0.0 : 0.0;  // 0 * s keeps the sign of s
  for (int v = 1; v <= kZeroPoint; ++v) {       // |q - 8|; RN16 is odd-symmetric, so -v mirrors v
    std::uint32_t m;
    int exponent;
    round_to_11_bits(static_cast<std::uint32_t>(v) * sigma, e, m, exponent);
    double magnitude = std::ldexp(static_cast<double>(m), exponent);  // exact: m < 2^11, a normal exponent
    if (magnitude >= 65536.0) {
      magnitude = INFINITY;
      t.finite = false;
    }
    const double plus = negative ? -magnitude : magnitude;  // the weight of code 8 + v
    if (kZeroPoint + v < 16) t.value[kZeroPoint + v] = plus;
    t.value[kZeroPoint - v] = -plus;
  }
  return t;
}

}  // namespace tc
