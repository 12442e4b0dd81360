#include "tilecheck/reference/bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/error.h"

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

Admissible admissible_output(double y, double E, half_bits scale, int group, Contract contract) {
  Admissible out;
  const double s = half_to_double(scale);
  if (std::isnan(y) || (is_per_column(group) && std::isnan(s))) {
    out.nan_expected = true;
    return out;
  }
  if (std::isinf(y)) {  // a non-finite input made the sum infinite: the epilogue alone decides
    const half_bits r = epilogue(y, y * s, scale, group, contract);
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
  if (contract == Contract::marlin) {
    const double t_lo = key_value(round_to_half(lo)), t_hi = key_value(round_to_half(hi));
    return from_candidates(round_to_half(t_lo * s), round_to_half(t_hi * s));
  }
  const auto fp32_then_half = [&](double acc) {
    return round_to_half(static_cast<double>(round_to_float(acc * s)));
  };
  return from_candidates(fp32_then_half(lo), fp32_then_half(hi));
}

double error_bound(double S, int K, int cross_block_adds, const std::vector<double>& partial_S) {
  double E = gamma(K + cross_block_adds, kAccumulatorUnit) * S;
  for (double Sj : partial_S) {
    // The stored partial is at most its exact magnitude sum plus every error made so far.
    E += kHalfUnitRoundoff * (Sj + E) + kHalfSubnormalError;
  }
  return E;
}

OutputBounds output_bounds(const HalfMatrix& A, const QuantizedWeights& w, const F64Matrix& y_exact,
                           const F64Matrix& S, Contract contract, const Schedule& schedule,
                           double precise_partial_work) {
  const int M = schedule.shape.M, N = schedule.shape.N, K = schedule.shape.K;
  require(y_exact.rows() == M && y_exact.cols() == N && S.rows() == M && S.cols() == N,
          "reference is (", y_exact.rows(), ", ", y_exact.cols(), ") but the schedule is for (", M,
          ", ", N, ")");
  OutputBounds b;
  b.key_lo.resize(M, N);
  b.key_hi.resize(M, N);
  b.flags.resize(M, N);
  b.E.resize(M, N);

  // Only the marlin contract needs A and w^: the fp16 partial sums depend on where slices start.
  // Their magnitudes cost up to one GEMM per schedule; above kPrecisePartialWork multiply-adds
  // each stored partial is charged the whole S instead (a looser, still valid bound), and an fp16
  // overflow is assumed possible wherever S + E reaches 65520.
  const bool precise = contract == Contract::marlin && double(M) * N * K <= precise_partial_work;
  F64Matrix a, a_abs;  // made when the first column with a stored partial needs them
  const int tile_n = schedule.config.tile_n(), tile_k = schedule.config.tile_k();
  for_each_tile(schedule, [&](const OutputTile& tile) {
    const LaunchSchedule& launch = schedule.launches[tile.launch];
    const int row0 = tile.row0, rows = tile.rows, col0 = tile.col0;
    const std::vector<Slice> order = slices_of(launch, tile.column);
    const int count = static_cast<int>(order.size());
    // Partial sums stored in fp16 (marlin): after reduction steps 0 .. count-2, each the sum over
    // the k-tiles from that step's slice to the end of K. One pass from the last k-tile down
    // accumulates them all (suffix sums), so the cost is one tile GEMM whatever the slice count.
    std::vector<F64Matrix> partial_S(precise ? count - 1 : 0);
    std::vector<F64Matrix> partial_y(partial_S.size());
    if (!partial_S.empty()) {
      if (a.size() == 0) {
        a = to_double(A);
        a_abs = a.cwiseAbs();
      }
      F64Matrix suffix_S = F64Matrix::Zero(rows, tile_n), suffix_y = F64Matrix::Zero(rows, tile_n);
      const int steps = static_cast<int>(partial_S.size());
      const auto begin_of = [&](int j) { return order[j].k_tile_begin; };
      int step = 0;  // slice 0 of the order holds the deepest k-tiles, so its boundary comes first
      for (int t = launch.k_tiles - 1; step < steps && t >= 0; --t) {
        // w^ tile by tile: a (K, N) double copy per schedule cost more than the products
        const F64Matrix w_hat = to_double(dequantize(w, t * tile_k, col0, tile_k, tile_n));
        suffix_S.noalias() += a_abs.block(row0, t * tile_k, rows, tile_k) * w_hat.cwiseAbs();
        suffix_y.noalias() += a.block(row0, t * tile_k, rows, tile_k) * w_hat;
        for (; step < steps && t == begin_of(step); ++step) {
          partial_S[step] = suffix_S;
          partial_y[step] = suffix_y;
        }
      }
    }
    std::vector<double> Sj(partial_S.size());
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < tile_n; ++c) {
        const int i = row0 + r, j = col0 + c;
        if (precise) {
          for (size_t p = 0; p < partial_S.size(); ++p) Sj[p] = partial_S[p](r, c);
        } else if (contract == Contract::marlin) {
          Sj.assign(count - 1, S(i, j));  // each stored partial charged the whole S
        }
        const double E = error_bound(S(i, j), K, count - 1, Sj);
        Admissible adm = admissible_output(y_exact(i, j), E, w.scales(0, j), w.group, contract);
        for (size_t p = 0; p < partial_y.size(); ++p)  // an fp16 partial may round to Inf
          if (std::fabs(partial_y[p](r, c)) + E >= kHalfOverflow) adm.unbounded = true;
        if (contract == Contract::marlin && !precise && count > 1 && S(i, j) + E >= kHalfOverflow)
          adm.unbounded = true;
        b.key_lo(i, j) = adm.key_lo;
        b.key_hi(i, j) = adm.key_hi;
        b.flags(i, j) = static_cast<std::uint8_t>((adm.nan_expected ? 1 : 0) | (adm.unbounded ? 2 : 0));
        b.E(i, j) = E;
      }
    }
  });
  return b;
}

}  // namespace tc
