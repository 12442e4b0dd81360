#include "tilecheck/contract.h"

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
  HalfMatrix out(w.K(), w.N());
  for (int k = 0; k < w.K(); ++k)
    for (int n = 0; n < w.N(); ++n)
      out(k, n) = dequantized_weight(w.codes(k, n), scale_of(w, k, n), w.group);
  return out;
}

half_bits epilogue(double acc, double acc_times_scale, half_bits scale, int group, Contract contract) {
  if (!is_per_column(group)) return round_to_half(acc);
  if (contract == Contract::marlin)
    return round_to_half(half_to_double(round_to_half(acc)) * half_to_double(scale));
  return round_to_half(static_cast<double>(round_to_float(acc_times_scale)));
}

}  // namespace tc
