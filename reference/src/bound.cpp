// The element-wise bound (docs/numerics.md, "The acceptance test" and "Bounds for the served
// formats"): E for one element from its magnitude sum, and the admissible set of output bits the
// interval [y* - E, y* + E] maps to through the epilogue, in the case's dtype (fp16 or bf16).
#include "tilecheck/reference/bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tilecheck/reference/contract.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

constexpr double kWiden = 1.0 + 1.0 / 1125899906842624.0;  // 1 + 2^-50: covers double rounding of
                                                           // the endpoints computed here

Admissible from_candidates(Dtype d, std::uint16_t a, std::uint16_t b) {
  Admissible out;
  if (is_nan(d, a) || is_nan(d, b)) {
    out.unbounded = true;  // e.g. an overflowed accumulator times a zero scale: NaN or zero
    return out;
  }
  out.key_lo = std::min(key(d, a), key(d, b));
  out.key_hi = std::max(key(d, a), key(d, b));
  return out;
}

// The epilogue in the dtype t, on a value known exactly in double (an endpoint or an infinite y*):
// grouped RN_t(acc); per column RN_t(RN_t(acc) * s) or RN_t(RN32(acc * s)), the latter also for
// scale_before_reduce (its total of scaled fp32 partials is within E * |s| of acc * s, an fp32 value:
// RN_t of it lies between the endpoints' RN_t(RN32(.))). Both products are exact in double or
// (endpoints) widened past its rounding by kWiden.
std::uint16_t endpoint_epilogue(Dtype d, double acc, double s, int group, Epilogue epilogue) {
  if (!is_per_column(group)) return round_to(d, acc);
  if (epilogue == Epilogue::round_then_scale) return round_to(d, to_double(d, round_to(d, acc)) * s);
  return round_to(d, static_cast<double>(round_to_float(acc * s)));
}

}  // namespace

double gamma(int n, double u) {
  const double nu = n * u;
  return nu >= 1.0 ? std::numeric_limits<double>::infinity() : nu / (1.0 - nu);
}

bool admits(Dtype d, const Admissible& a, std::uint16_t got) {
  if (a.unbounded) return true;
  if (a.nan_expected) return is_nan(d, got);
  if (is_nan(d, got)) return false;
  const std::int32_t k = key(d, got);
  return k >= a.key_lo && k <= a.key_hi;
}

bool admits(const Admissible& a, half_bits got) { return admits(Dtype::fp16, a, got); }

Admissible admissible_output(Dtype d, double y, double E, std::uint16_t scale, int group, Epilogue epilogue) {
  Admissible out;
  const double s = to_double(d, scale);
  if (std::isnan(y) || (is_per_column(group) && std::isnan(s))) {
    out.nan_expected = true;
    return out;
  }
  if (std::isinf(y)) {  // a non-finite input made the sum infinite: the epilogue alone decides
    const std::uint16_t r = endpoint_epilogue(d, y, s, group, epilogue);
    if (is_nan(d, r)) {
      out.nan_expected = true;
    } else {
      out.key_lo = out.key_hi = key(d, r);
    }
    return out;
  }
  require(E >= 0.0, "allowance E=", E, " must be non-negative");
  const double lo = (y - E) * (y - E < 0 ? kWiden : 1 / kWiden);
  const double hi = (y + E) * (y + E > 0 ? kWiden : 1 / kWiden);
  return from_candidates(d, endpoint_epilogue(d, lo, s, group, epilogue), endpoint_epilogue(d, hi, s, group, epilogue));
}

Admissible admissible_output(double y, double E, half_bits scale, int group, Epilogue epilogue) {
  return admissible_output(Dtype::fp16, y, E, scale, group, epilogue);
}

Admissible admissible_output(double y, double E, half_bits scale, int group, Contract contract) {
  return admissible_output(Dtype::fp16, y, E, scale, group, contract_numerics(contract).epilogue);
}

namespace {

// error_bound before its stored partials: E from the accumulation, and what each stored partial adds
// on top of its magnitude sum (the subnormal error in accumulator units).
struct ErrorStart {
  double E = 0;
  double subnormal_error = 0;
};

ErrorStart error_start(Dtype d, double S, int K, int cross_block_adds, double partial_scale) {
  // Scaled partials (several slices): each product's chain passes one more fp32 rounding, its
  // slice's scaling. With one slice that scaling is the epilogue's RN32, mapped exactly.
  const bool scaled = partial_scale != 1.0 && cross_block_adds > 0;
  const double g = gamma(K + cross_block_adds + (scaled ? 1 : 0), kAccumulatorUnit);
  double E = g * S;
  // fp16 inputs keep every product and partial sum a multiple of 2^-48, normal in fp32; bf16
  // products reach 2^-266, so each product and addition may also lose fp32's subnormal spacing.
  if (d == Dtype::bf16) E += (2.0 * K + cross_block_adds) * kAccumulatorUnderflow * (1 + g);
  // A scaled value (bf16: the P + 1 scalings and P additions of scaled sums) loses up to fp32's
  // subnormal spacing in scaled units, 2^-149 / |s| in the accumulator's; a zero scale makes every
  // scaled value an exact zero. (fp16: a scaled per-column sum is a multiple of 2^-48, normal.)
  const double in_accumulator_units = scaled && partial_scale > 0 ? 1.0 / partial_scale : scaled ? 0.0 : 1.0;
  if (d == Dtype::bf16 && scaled)
    E += (2.0 * cross_block_adds + 1) * kAccumulatorUnderflow * in_accumulator_units * (1 + g);
  return {E, min_subnormal(d) / 2 * in_accumulator_units};
}

// One stored partial: at most its exact magnitude sum plus every error made so far.
inline double add_stored_partial(double E, double u, double Sj, double subnormal_error) {
  return E + (u * (Sj + E) + subnormal_error);
}

}  // namespace

double error_bound(Dtype d, double S, int K, int cross_block_adds, const std::vector<double>& partial_S,
                   double partial_scale) {
  const ErrorStart start = error_start(d, S, K, cross_block_adds, partial_scale);
  const double u = unit_roundoff(d);
  double E = start.E;
  for (double Sj : partial_S) E = add_stored_partial(E, u, Sj, start.subnormal_error);
  return E;
}

void error_bounds_charged_whole_S(Dtype d, const double* S, const double* partial_scale, int n, int K,
                                  int cross_block_adds, int stored_partials, double* E) {
  std::vector<double> subnormal_error(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) {
    const ErrorStart start = error_start(d, S[j], K, cross_block_adds, partial_scale[j]);
    E[j] = start.E;
    subnormal_error[j] = start.subnormal_error;
  }
  // Partial by partial across the row: each element's chain is error_bound's, step for step, but
  // the row's independent chains no longer wait on one another (one element's chain of hundreds of
  // dependent additions was most of a large case's expectation).
  const double u = unit_roundoff(d);
  for (int q = 0; q < stored_partials; ++q)
    for (int j = 0; j < n; ++j) E[j] = add_stored_partial(E[j], u, S[j], subnormal_error[j]);
}

double error_bound(double S, int K, int cross_block_adds, const std::vector<double>& partial_S) {
  return error_bound(Dtype::fp16, S, K, cross_block_adds, partial_S);
}

bool accumulator_may_overflow(Dtype d, double S, double E) { return d == Dtype::bf16 && S + E >= kFp32Max; }

double partial_scale(Dtype d, std::uint16_t scale, int group, Epilogue epilogue) {
  if (!is_per_column(group) || epilogue != Epilogue::scale_before_reduce) return 1.0;
  const double s = std::fabs(to_double(d, scale));
  return std::isnan(s) ? 1.0 : s;
}

bool scaled_partial_may_overflow(double S, double E, int slices, double partial_scale) {
  return slices > 1 && partial_scale != 1.0 && (S + E) * partial_scale >= kFp32Max;
}

}  // namespace tc
