// Hint from a hypothesis tested on the inputs: got = y* with every code dequantized by a wrong
// mapping. Each mapping predicts, for a sampled out-of-bound element, the accumulator's error
//   sum_k a_ik * (w^_map(q_kj, s) - w^(q_kj, s)),
// with w^ = RN16((q - 8) s) for grouped scales and q - 8 per column (the scale comes after the sum):
//   zero point 7 / 9   (q - 7) or (q - 9): the code offset off by one
//   signed int4        q < 8 ? q : q - 16, no offset: the nibble read as two's complement
//   top bit lost       (q & 7) - 8: a 3-bit mask or a shift that drops the code's top bit
// A mapping is reported when it explains needed(n) of the n samples (hints.cpp).
#include <cmath>

#include "hints_internal.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/core/error.h"

namespace tc::hints {
namespace {

enum class CodeMap { zero_point_7, zero_point_9, signed_int4, top_bit_lost };
constexpr CodeMap kMaps[] = {CodeMap::zero_point_7, CodeMap::zero_point_9, CodeMap::signed_int4,
                             CodeMap::top_bit_lost};

int mapped_value(CodeMap m, int q) {
  switch (m) {
    case CodeMap::zero_point_7: return q - 7;
    case CodeMap::zero_point_9: return q - 9;
    case CodeMap::signed_int4: return q < 8 ? q : q - 16;
    case CodeMap::top_bit_lost: break;
  }
  return (q & 7) - kZeroPoint;
}

const char* describe(CodeMap m) {
  switch (m) {
    case CodeMap::zero_point_7: return "(q - 7) instead of (q - 8): zero point 7, the code offset off by one";
    case CodeMap::zero_point_9: return "(q - 9) instead of (q - 8): zero point 9, the code offset off by one";
    case CodeMap::signed_int4:
      return "q read as a signed int4 (q >= 8 -> q - 16) with no offset: the nibble taken as two's complement";
    case CodeMap::top_bit_lost: break;
  }
  return "((q & 7) - 8) instead of (q - 8): the code's top bit lost (a 3-bit mask or shift)";
}

// The accumulator error mapping m predicts for element (i, j).
double predicted_error(const Expectation& e, CodeMap m, int i, int j) {
  const bool per_column = is_per_column(e.w.group);
  double sum = 0;
  for (int k = 0; k < e.shape().K; ++k) {
    const half_bits a = e.A(i, k);
    if ((a & 0x7FFF) == 0) continue;
    const int q = e.w.codes(k, j);
    double delta = mapped_value(m, q) - (q - kZeroPoint);
    if (!per_column) {
      const half_bits s = e.w.scales(k / e.w.group, j);
      delta = half_to_double(round_to_half(mapped_value(m, q) * half_to_double(s))) -
              half_to_double(dequantized_weight(q, s, e.w.group));
    }
    sum += half_to_double(a) * delta;
  }
  return sum;
}

}  // namespace

bool code_mapping(const Expectation& e, const std::vector<InputSample>& samples, std::vector<Hint>& out) {
  const size_t n = samples.size();
  if (n < 3) return false;
  const bool fp16_partials = e.numerics.numerics.partials == Partials::fp16;
  size_t best_count = 0;
  CodeMap best = kMaps[0];
  for (CodeMap m : kMaps) {
    size_t count = 0;
    for (const InputSample& s : samples) {
      const double S = e.ref.S(s.i, s.j);
      const double tol = 2 * s.rounding + 0x1p-16 * S + (fp16_partials ? 0x1p-11 * S : 0.0);
      const double predicted = predicted_error(e, m, s.i, s.j);
      const double eps = s.acc - e.ref.y_exact(s.i, s.j);
      count += std::fabs(predicted) > tol && std::fabs(eps - predicted) <= tol;  // false for NaN
    }
    if (count > best_count) best = m, best_count = count;
  }
  if (best_count < needed(n)) return false;
  out.push_back({HintKind::code_mapping, cat("got = y* with every code dequantized as ", describe(best), ", for ",
                                             best_count, " of ", n,
                                             " sampled failures -> the dequantization itself: it acts on every tile")});
  return true;
}

}  // namespace tc::hints
