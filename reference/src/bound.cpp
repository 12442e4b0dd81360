#include "tilecheck/reference/bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tilecheck/reference/contract.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

constexpr double kHalfSubnormalError = kHalfMinSubnormal / 2;  // 2^-25: worst absolute RN16 error
                                                                // below 2^-14
constexpr double kWiden = 1.0 + 1.0 / 1125899906842624.0;  // 1 + 2^-50: covers double rounding of
                                                           // the endpoints computed here

double key_value(half_bits h) { return half_to_double(h); }

Admissible from_candidates(half_bits a, half_bits b) {
  Admissible out;
  if (is_nan(a) || is_nan(b)) {
    out.unbounded = true;  // e.g. an overflowed accumulator times a zero scale: NaN or zero
    return out;
  }
  out.key_lo = std::min(half_key(a), half_key(b));
  out.key_hi = std::max(half_key(a), half_key(b));
  return out;
}

}  // namespace

double gamma(int n, double u) {
  const double nu = n * u;
  return nu >= 1.0 ? std::numeric_limits<double>::infinity() : nu / (1.0 - nu);
}

bool admits(const Admissible& a, half_bits got) {
  if (a.unbounded) return true;
  if (a.nan_expected) return is_nan(got);
  if (is_nan(got)) return false;
  const std::int32_t k = half_key(got);
  return k >= a.key_lo && k <= a.key_hi;
}

Admissible admissible_output(double y, double E, half_bits scale, int group, Epilogue epilogue) {
  Admissible out;
  const double s = half_to_double(scale);
  const Contract contract = epilogue_contract(epilogue);  // tc::epilogue names an epilogue by its contract
  if (std::isnan(y) || (is_per_column(group) && std::isnan(s))) {
    out.nan_expected = true;
    return out;
  }
  if (std::isinf(y)) {  // a non-finite input made the sum infinite: the epilogue alone decides
    const half_bits r = tc::epilogue(y, y * s, scale, group, contract);
    if (is_nan(r)) {
      out.nan_expected = true;
    } else {
      out.key_lo = out.key_hi = half_key(r);
    }
    return out;
  }
  require(E >= 0.0, "allowance E=", E, " must be non-negative");
  const double lo = (y - E) * (y - E < 0 ? kWiden : 1 / kWiden);
  const double hi = (y + E) * (y + E > 0 ? kWiden : 1 / kWiden);
  if (!is_per_column(group)) return from_candidates(round_to_half(lo), round_to_half(hi));
  if (epilogue == Epilogue::round_then_scale) {
    const double t_lo = key_value(round_to_half(lo)), t_hi = key_value(round_to_half(hi));
    return from_candidates(round_to_half(t_lo * s), round_to_half(t_hi * s));
  }
  const auto fp32_then_half = [&](double acc) {
    return round_to_half(static_cast<double>(round_to_float(acc * s)));
  };
  return from_candidates(fp32_then_half(lo), fp32_then_half(hi));
}

Admissible admissible_output(double y, double E, half_bits scale, int group, Contract contract) {
  return admissible_output(y, E, scale, group, contract_numerics(contract).epilogue);
}

double error_bound(double S, int K, int cross_block_adds, const std::vector<double>& partial_S) {
  double E = gamma(K + cross_block_adds, kAccumulatorUnit) * S;
  for (double Sj : partial_S) {
    // The stored partial is at most its exact magnitude sum plus every error made so far.
    E += kHalfUnitRoundoff * (Sj + E) + kHalfSubnormalError;
  }
  return E;
}

namespace {

// What every step of output_bounds reads.
struct BoundProblem {
  const QuantizedWeights& w;
  const F64Matrix& y_exact;
  const F64Matrix& S;
  Numerics numerics;
  int K;
  bool precise;  // stored partials charged their own magnitude sums, not the element's whole S
};

// A and |A| in double, made when the first tile with a stored partial needs them.
class LazyDoubleA {
 public:
  explicit LazyDoubleA(const HalfMatrix& A) : A_(A) {}
  const F64Matrix& value() {
    make();
    return a_;
  }
  const F64Matrix& magnitude() {
    make();
    return a_abs_;
  }

 private:
  void make() {
    if (a_.size() != 0) return;
    a_ = to_double(A_);
    a_abs_ = a_.cwiseAbs();
  }
  const HalfMatrix& A_;
  F64Matrix a_, a_abs_;
};

// Partial sums stored in fp16 for one tile: after reduction steps 0 .. count-2, each the
// sum over the k-tiles from that step's slice to the end of K, as magnitude sums (S) and values
// (y). One pass from the last k-tile down accumulates them all (suffix sums), so the cost is one
// tile GEMM whatever the slice count.
struct StoredPartials {
  std::vector<F64Matrix> S;
  std::vector<F64Matrix> y;
};

StoredPartials stored_partials(LazyDoubleA& A, const QuantizedWeights& w, const OutputTile& t,
                               const std::vector<Slice>& order, int k_tiles, int tile_k) {
  const int steps = static_cast<int>(order.size()) - 1;
  StoredPartials p;
  p.S.resize(steps);
  p.y.resize(steps);
  if (steps == 0) return p;
  F64Matrix suffix_S = F64Matrix::Zero(t.rows, t.cols), suffix_y = F64Matrix::Zero(t.rows, t.cols);
  int step = 0;  // slice 0 of the order holds the deepest k-tiles, so its boundary comes first
  for (int k = k_tiles - 1; step < steps && k >= 0; --k) {
    // w^ tile by tile: a (K, N) double copy per schedule cost more than the products
    const F64Matrix w_hat = to_double(dequantize(w, k * tile_k, t.col0, tile_k, t.cols));
    suffix_S.noalias() += A.magnitude().block(t.row0, k * tile_k, t.rows, tile_k) * w_hat.cwiseAbs();
    suffix_y.noalias() += A.value().block(t.row0, k * tile_k, t.rows, tile_k) * w_hat;
    for (; step < steps && k == order[step].k_tile_begin; ++step) {
      p.S[step] = suffix_S;
      p.y[step] = suffix_y;
    }
  }
  return p;
}

// Each element of the tile: E from its magnitude sum and those of the stored partials, the
// admissible set through the epilogue, unbounded where an fp16 partial may round to Inf.
void write_tile_bounds(const BoundProblem& p, const OutputTile& t, int slice_count, const StoredPartials& partials,
                       OutputBounds& b) {
  const bool fp16_partials = p.numerics.partials == Partials::fp16;
  std::vector<double> Sj(partials.S.size());
  for (int r = 0; r < t.rows; ++r) {
    for (int c = 0; c < t.cols; ++c) {
      const int i = t.row0 + r, j = t.col0 + c;
      if (p.precise) {
        for (size_t q = 0; q < partials.S.size(); ++q) Sj[q] = partials.S[q](r, c);
      } else if (fp16_partials) {
        Sj.assign(slice_count - 1, p.S(i, j));  // each stored partial charged the whole S
      }
      const double E = error_bound(p.S(i, j), p.K, slice_count - 1, Sj);
      Admissible adm = admissible_output(p.y_exact(i, j), E, p.w.scales(0, j), p.w.group, p.numerics.epilogue);
      for (size_t q = 0; q < partials.y.size(); ++q)
        if (std::fabs(partials.y[q](r, c)) + E >= kHalfOverflow) adm.unbounded = true;
      if (fp16_partials && !p.precise && slice_count > 1 && p.S(i, j) + E >= kHalfOverflow) adm.unbounded = true;
      b.key_lo(i, j) = adm.key_lo;
      b.key_hi(i, j) = adm.key_hi;
      b.flags(i, j) = static_cast<std::uint8_t>((adm.nan_expected ? 1 : 0) | (adm.unbounded ? 2 : 0));
      b.E(i, j) = E;
    }
  }
}

}  // namespace

OutputBounds output_bounds(const HalfMatrix& A, const QuantizedWeights& w, const F64Matrix& y_exact,
                           const F64Matrix& S, const Numerics& numerics, const Schedule& schedule,
                           double precise_partial_work) {
  require_boundable(numerics);
  const int M = schedule.shape.M, N = schedule.shape.N, K = schedule.shape.K;
  require(y_exact.rows() == M && y_exact.cols() == N && S.rows() == M && S.cols() == N,
          "reference is (", y_exact.rows(), ", ", y_exact.cols(), ") but the schedule is for (", M,
          ", ", N, ")");
  OutputBounds b;
  b.key_lo.resize(M, N);
  b.key_hi.resize(M, N);
  b.flags.resize(M, N);
  b.E.resize(M, N);
  // Only fp16 partials need A and w^: the fp16 partial sums depend on where slices start.
  // Their magnitudes cost up to one GEMM per schedule; above kPrecisePartialWork multiply-adds
  // each stored partial is charged the whole S instead (a looser, still valid bound), and an fp16
  // overflow is assumed possible wherever S + E reaches 65520.
  const bool precise = numerics.partials == Partials::fp16 && double(M) * N * K <= precise_partial_work;
  const BoundProblem problem{w, y_exact, S, numerics, K, precise};
  LazyDoubleA a(A);
  for_each_tile(schedule, [&](const OutputTile& t) {
    const LaunchSchedule& launch = schedule.launches[t.launch];
    const std::vector<Slice> order = slices_of(launch, t.column);
    const StoredPartials partials =
        precise ? stored_partials(a, w, t, order, launch.k_tiles, schedule.config.tile_k()) : StoredPartials{};
    write_tile_bounds(problem, t, static_cast<int>(order.size()), partials, b);
  });
  return b;
}

OutputBounds output_bounds(const HalfMatrix& A, const QuantizedWeights& w, const F64Matrix& y_exact,
                           const F64Matrix& S, Contract contract, const Schedule& schedule,
                           double precise_partial_work) {
  return output_bounds(A, w, y_exact, S, contract_numerics(contract), schedule, precise_partial_work);
}

}  // namespace tc
