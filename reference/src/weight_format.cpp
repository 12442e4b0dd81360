#include "tilecheck/reference/weight_format.h"

#include "tilecheck/reference/bf16.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/fp16.h"

namespace tc {

std::string_view name(Dtype d) { return d == Dtype::fp16 ? "fp16" : "bf16"; }

std::string_view name(WeightType t) {
  switch (t) {
    case WeightType::uint4b8: return "uint4b8";
    case WeightType::uint4: return "uint4";
    case WeightType::uint8b128: break;
  }
  return "uint8b128";
}

Dtype parse_dtype(std::string_view text) {
  if (text == "fp16") return Dtype::fp16;
  if (text == "bf16") return Dtype::bf16;
  throw Error(cat("unknown dtype '", text, "' (expected fp16 or bf16)"));
}

WeightType parse_weight_type(std::string_view text) {
  for (WeightType t : {WeightType::uint4b8, WeightType::uint4, WeightType::uint8b128})
    if (name(t) == text) return t;
  throw Error(cat("unknown weight type '", text, "' (expected uint4b8, uint4 or uint8b128)"));
}

int code_bits(WeightType t) { return t == WeightType::uint8b128 ? 8 : 4; }

bool has_zero_points(WeightType t) { return t == WeightType::uint4; }

int code_value(WeightType t, int q, int z) {
  require(q >= 0 && q <= max_code(t), "code ", q, " is outside ", name(t), "'s range 0..", max_code(t));
  switch (t) {
    case WeightType::uint4b8: return q - 8;
    case WeightType::uint4:
      require(z >= 0 && z <= 15, "zero point ", z, " is outside uint4's range 0..15");
      return q - z;
    case WeightType::uint8b128: break;
  }
  return q - 128;
}

std::uint16_t round_to(Dtype d, double x) { return d == Dtype::fp16 ? round_to_half(x) : round_to_bf16(x); }

double to_double(Dtype d, std::uint16_t bits) { return d == Dtype::fp16 ? half_to_double(bits) : bf16_to_double(bits); }

double unit_roundoff(Dtype d) { return d == Dtype::fp16 ? kHalfUnitRoundoff : kBf16UnitRoundoff; }

std::uint16_t dequantized_weight(Dtype d, WeightType t, int q, int z, std::uint16_t scale, bool per_column) {
  const int v = code_value(t, q, z);
  if (per_column) return round_to(d, v);  // exact: |v| <= 255 has at most 8 significant bits
  return round_to(d, v * to_double(d, scale));
}

}  // namespace tc
