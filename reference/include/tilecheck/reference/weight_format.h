// The weight formats Marlin-family kernels serve (docs/numerics.md, "Formats"): the activation,
// scale and output dtype (fp16 or bf16) and the code type. A code q stands for an exact integer v:
//   uint4b8    4-bit, bias 8 (GPTQ symmetric; tilecheck's original format)   v = q - 8
//   uint4      4-bit with a per-group zero point z in 0..15 (AWQ)              v = q - z
//   uint8b128  8-bit, bias 128 (GPTQ 8-bit)                                    v = q - 128
// Grouped scales: the MMA sees w^ = RN_t(v * s), one rounding in the dtype t. Per-column scales:
// w^ = v (exact), the scale comes in the epilogue. v * s is exact in double (at most 9 + 11 bits).
#pragma once
#include <cstdint>
#include <string_view>

namespace tc {

enum class Dtype { fp16, bf16 };
enum class WeightType { uint4b8, uint4, uint8b128 };

std::string_view name(Dtype d);
std::string_view name(WeightType t);
Dtype parse_dtype(std::string_view text);             // "fp16" | "bf16"; throws naming the text
WeightType parse_weight_type(std::string_view text);  // "uint4b8" | "uint4" | "uint8b128"

int code_bits(WeightType t);                                         // 4 or 8
inline int max_code(WeightType t) { return (1 << code_bits(t)) - 1; }  // 15 or 255
bool has_zero_points(WeightType t);                                  // uint4 only

// The exact integer code q stands for (z: the zero point, read for uint4 only). Throws naming q or
// z when out of range.
int code_value(WeightType t, int q, int z = 0);

// Bits in the dtype <-> value, and rounding to nearest (ties to even) into it.
std::uint16_t round_to(Dtype d, double x);
double to_double(Dtype d, std::uint16_t bits);
double unit_roundoff(Dtype d);  // 2^-11 (fp16), 2^-8 (bf16)

// The dequantized weight the MMA sees, as bits of the dtype: RN_t(v * s) for grouped scales, v for
// per-column ones (`per_column`).
std::uint16_t dequantized_weight(Dtype d, WeightType t, int q, int z, std::uint16_t scale, bool per_column);

}  // namespace tc
