#include "tilecheck/reference/contract.h"

#include <algorithm>
#include <vector>

#include "tilecheck/core/error.h"

namespace tc {

std::string_view name(Contract c) { return c == Contract::marlin ? "marlin" : "fp32"; }

Contract parse_contract(std::string_view text) {
  if (text == "marlin") return Contract::marlin;
  if (text == "fp32") return Contract::fp32;
  throw Error(cat("unknown contract '", text, "' (expected marlin or fp32)"));
}

half_bits dequantized_weight(int q, half_bits scale, int group) {
  const double centred = q - kZeroPoint;  // exact in fp16 for q in 0..15
  if (is_per_column(group)) return round_to_half(centred);
  return round_to_half(centred * half_to_double(scale));  // the product is exact in double
}

HalfMatrix dequantize(const QuantizedWeights& w, int k0, int n0, int rows, int cols) {
  require(k0 >= 0 && n0 >= 0 && rows >= 0 && cols >= 0 && k0 + rows <= w.K() && n0 + cols <= w.N(), "block (", rows,
          ", ", cols, ") at (", k0, ", ", n0, ") is outside the weights (", w.K(), ", ", w.N(), ")");
  // One table of the 16 possible weights per scale: rows * cols lookups instead of as many
  // roundings, walked row by row (the matrices are row-major), one scale group at a time.
  HalfMatrix out(rows, cols);
  const int group_rows = is_per_column(w.group) ? w.K() : w.group;
  std::vector<half_bits> table(static_cast<size_t>(cols) * 16);
  for (int begin = k0; begin < k0 + rows;) {
    const int g = begin / group_rows, end = std::min(k0 + rows, (g + 1) * group_rows);
    for (int n = 0; n < cols; ++n)
      for (int q = 0; q < 16; ++q) table[n * 16 + q] = dequantized_weight(q, w.scales(g, n0 + n), w.group);
#pragma omp parallel for schedule(static) if (static_cast<long>(end - begin) * cols >= (1 << 16))
    for (int k = begin; k < end; ++k)
      for (int n = 0; n < cols; ++n) out(k - k0, n) = table[n * 16 + (w.codes(k, n0 + n) & 0xF)];
    begin = end;
  }
  return out;
}

HalfMatrix dequantize(const QuantizedWeights& w) { return dequantize(w, 0, 0, w.K(), w.N()); }

half_bits epilogue(double acc, double acc_times_scale, half_bits scale, int group, Contract contract) {
  if (!is_per_column(group)) return round_to_half(acc);
  if (contract == Contract::marlin)
    return round_to_half(half_to_double(round_to_half(acc)) * half_to_double(scale));
  return round_to_half(static_cast<double>(round_to_float(acc_times_scale)));
}

}  // namespace tc
