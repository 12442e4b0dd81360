#include "tilecheck/contract.h"

#include <vector>

#include "tilecheck/error.h"

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

HalfMatrix dequantize(const QuantizedWeights& w) {
  // One table of the 16 possible weights per scale: K * N lookups instead of K * N roundings,
  // walked row by row (the matrices are row-major).
  HalfMatrix out(w.K(), w.N());
  const int rows = is_per_column(w.group) ? w.K() : w.group, N = w.N();
  for (int g = 0; g < w.scales.rows(); ++g) {
    std::vector<half_bits> table(static_cast<size_t>(N) * 16);
    for (int n = 0; n < N; ++n)
      for (int q = 0; q < 16; ++q) table[n * 16 + q] = dequantized_weight(q, w.scales(g, n), w.group);
#pragma omp parallel for schedule(static)
    for (int k = g * rows; k < (g + 1) * rows; ++k)
      for (int n = 0; n < N; ++n) out(k, n) = table[n * 16 + (w.codes(k, n) & 0xF)];
  }
  return out;
}

half_bits epilogue(double acc, double acc_times_scale, half_bits scale, int group, Contract contract) {
  if (!is_per_column(group)) return round_to_half(acc);
  if (contract == Contract::marlin)
    return round_to_half(half_to_double(round_to_half(acc)) * half_to_double(scale));
  return round_to_half(static_cast<double>(round_to_float(acc_times_scale)));
}

}  // namespace tc
