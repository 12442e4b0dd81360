// The 16 dequantized weights of one scale, as doubles, for the reference GEMM's packed panels:
//   grouped scales: w^(q) = RN16((q - 8) * s)    per-column scales: w^(q) = q - 8   (contract.h)
// Computed with integer rounding instead of 16 calls of round_to_half (a large layer has millions of
// scales); equal to tc::dequantized_weight for every fp16 scale and code (gemm_weight_table_test).
#pragma once
#include "tilecheck/reference/fp16.h"

namespace tc {

struct WeightTable {
  double value[16];  // indexed by the code q
  bool finite;       // false when some value is Inf or NaN
};

WeightTable weight_table(half_bits scale, int group);

// Grids for the reference GEMM's exactness proof (gemm.cpp): x is an integer multiple of 2^grid.
constexpr int kNoGrid = 1 << 20;  // the grid of zero: larger than any real exponent
int half_grid(half_bits h);       // the lowest set bit of a finite fp16 value; kNoGrid for zero
// Every finite w^ of one scale: per-column w^ = q - 8 are integers (grid 0); grouped w^ = RN16(c * s)
// with |c| >= 1 has |w^| >= |s|, so fp16's spacing there is at least s's quantum 2^e (s = sigma * 2^e,
// e = max(exponent field, 1) - 25), and w^ stays a multiple of it.
int weight_grid(half_bits scale, int group);

}  // namespace tc
