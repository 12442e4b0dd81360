// Numerics contracts: what a kernel promises to round where (derivation: docs/numerics.md).
//   grouped scales, both contracts:  w^ = RN16((q - 8) * s), rounded before the MMA
//   per-column scales:               w^ = q - 8 (exact); s applied in the epilogue
//     marlin: out = RN16(RN16(acc) * s)        fp32: out = RN16(RN32(acc * s))
//   partial sums across thread blocks: marlin stores them as fp16 in C; fp32 keeps fp32 partials.
#pragma once
#include <string>
#include <string_view>

#include "tilecheck/reference/fp16.h"
#include "tilecheck/reference/quantize.h"

namespace tc {

enum class Contract { marlin, fp32 };

std::string_view name(Contract c);
Contract parse_contract(std::string_view text);  // "marlin" | "fp32"; throws naming the text

// Dequantized weight the MMA sees, as fp16 bits.
half_bits dequantized_weight(int q, half_bits scale, int group);
HalfMatrix dequantize(const QuantizedWeights& w);  // (K, N) w^ for every code
HalfMatrix dequantize(const QuantizedWeights& w, int k0, int n0, int rows, int cols);  // the block at (k0, n0)

// Output from the exact accumulator under a contract. `acc` and `acc_times_scale` (the accumulator
// times the column's scale) are the exact values rounded to double with round-to-odd, which makes
// the later RN32/RN16 roundings correct; a plain double works where the value is exact. `scale`
// and `acc_times_scale` matter for per-column groups only.
//   grouped: RN16(acc)   per-column marlin: RN16(RN16(acc) * s)   per-column fp32: RN16(RN32(acc * s))
half_bits epilogue(double acc, double acc_times_scale, half_bits scale, int group, Contract contract);

}  // namespace tc
