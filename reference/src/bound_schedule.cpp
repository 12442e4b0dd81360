// Bounds under the modelled (striped) schedule (docs/numerics.md, items 4-5): each output tile's
// slices and reduction order come from the schedule; with partials stored in the dtype, each stored
// partial is charged its own magnitude sum S_j (the suffix over the k-tiles summed so far, in the
// kernel's order of K). fp16 / uint4b8 weights and every served format share this code; they differ
// only in how a tile of w^ is made and in which order the kernel walks K (act-order).
#include <cmath>
#include <functional>
#include <vector>

#include "tilecheck/reference/bound.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

// w^ rows [k0, k0 + rows) of the kernel's order of K, columns [n0, n0 + cols), as doubles.
using WeightTile = std::function<F64Matrix(int k0, int n0, int rows, int cols)>;

// What every step of output_bounds reads.
struct BoundProblem {
  Dtype dtype;
  int group;
  const HalfMatrix& scales;  // (G, N): row 0 is the per-column scale
  const F64Matrix& y_exact;
  const F64Matrix& S;
  Numerics numerics;
  int K;
  bool precise;  // stored partials charged their own magnitude sums, not the element's whole S
};

// A and |A| in double with their columns in the kernel's order of K, made when the first tile with
// a stored partial needs them.
class LazyDoubleA {
 public:
  LazyDoubleA(const HalfMatrix& A, Dtype d, const std::vector<int>& order) : A_(A), d_(d), order_(order) {}
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
    a_.resize(A_.rows(), A_.cols());
    for (Eigen::Index i = 0; i < A_.rows(); ++i)
      for (Eigen::Index k = 0; k < A_.cols(); ++k) a_(i, k) = to_double(d_, A_(i, order_.empty() ? k : order_[k]));
    a_abs_ = a_.cwiseAbs();
  }
  const HalfMatrix& A_;
  Dtype d_;
  const std::vector<int>& order_;
  F64Matrix a_, a_abs_;
};

// Partial sums stored in the dtype for one tile: after reduction steps 0 .. count-2, each the
// sum over the k-tiles from that step's slice to the end of K, as magnitude sums (S) and values
// (y). One pass from the last k-tile down accumulates them all (suffix sums), so the cost is one
// tile GEMM whatever the slice count.
struct StoredPartials {
  std::vector<F64Matrix> S;
  std::vector<F64Matrix> y;
};

StoredPartials stored_partials(LazyDoubleA& A, const WeightTile& weight_tile, const OutputTile& t,
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
    const F64Matrix w_hat = weight_tile(k * tile_k, t.col0, tile_k, t.cols);
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
// admissible set through the epilogue, unbounded where a stored partial may round to Inf in the
// dtype (or the fp32 accumulator overflow, bf16 only, or a partial scaled before the reduction).
void write_tile_bounds(const BoundProblem& p, const OutputTile& t, int slice_count, const StoredPartials& partials,
                       OutputBounds& b) {
  const bool dtype_partials = p.numerics.partials == Partials::fp16;  // stored in C's dtype
  const double overflow = overflow_threshold(p.dtype);
  std::vector<double> Sj(partials.S.size());
  for (int r = 0; r < t.rows; ++r) {
    for (int c = 0; c < t.cols; ++c) {
      const int i = t.row0 + r, j = t.col0 + c;
      if (p.precise) {
        for (size_t q = 0; q < partials.S.size(); ++q) Sj[q] = partials.S[q](r, c);
      } else if (dtype_partials) {
        Sj.assign(slice_count - 1, p.S(i, j));  // each stored partial charged the whole S
      }
      const double scale = partial_scale(p.dtype, p.scales(0, j), p.group, p.numerics.epilogue);
      const double E = error_bound(p.dtype, p.S(i, j), p.K, slice_count - 1, Sj, scale);
      Admissible adm = admissible_output(p.dtype, p.y_exact(i, j), E, p.scales(0, j), p.group, p.numerics.epilogue);
      for (size_t q = 0; q < partials.y.size(); ++q)
        if ((std::fabs(partials.y[q](r, c)) + E) * scale >= overflow) adm.unbounded = true;
      if (dtype_partials && !p.precise && slice_count > 1 && (p.S(i, j) + E) * scale >= overflow) adm.unbounded = true;
      if (accumulator_may_overflow(p.dtype, p.S(i, j), E)) adm.unbounded = true;
      if (scaled_partial_may_overflow(p.S(i, j), E, slice_count, scale)) adm.unbounded = true;
      b.key_lo(i, j) = adm.key_lo;
      b.key_hi(i, j) = adm.key_hi;
      b.flags(i, j) = static_cast<std::uint8_t>((adm.nan_expected ? 1 : 0) | (adm.unbounded ? 2 : 0));
      b.E(i, j) = E;
    }
  }
}

OutputBounds schedule_bounds(const HalfMatrix& A, Dtype dtype, int group, const HalfMatrix& scales,
                             const std::vector<int>& kernel_order, const WeightTile& weight_tile,
                             const F64Matrix& y_exact, const F64Matrix& S, const Numerics& numerics,
                             const Schedule& schedule, double precise_partial_work) {
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
  // Only partials stored in the dtype need A and w^: their sums depend on where slices start.
  // Their magnitudes cost up to one GEMM per schedule; above kPrecisePartialWork multiply-adds
  // each stored partial is charged the whole S instead (a looser, still valid bound), and an
  // overflow is assumed possible wherever S + E reaches the dtype's overflow threshold.
  const bool precise = numerics.partials == Partials::fp16 && double(M) * N * K <= precise_partial_work;
  const BoundProblem problem{dtype, group, scales, y_exact, S, numerics, K, precise};
  LazyDoubleA a(A, dtype, kernel_order);
  for_each_tile(schedule, [&](const OutputTile& t) {
    const LaunchSchedule& launch = schedule.launches[t.launch];
    const std::vector<Slice> order = slices_of(launch, t.column);
    const StoredPartials partials =
        precise ? stored_partials(a, weight_tile, t, order, launch.k_tiles, schedule.config.tile_k())
                : StoredPartials{};
    write_tile_bounds(problem, t, static_cast<int>(order.size()), partials, b);
  });
  return b;
}

}  // namespace

OutputBounds output_bounds(const HalfMatrix& A, const QuantizedWeights& w, const F64Matrix& y_exact,
                           const F64Matrix& S, const Numerics& numerics, const Schedule& schedule,
                           double precise_partial_work) {
  const WeightTile tile = [&w](int k0, int n0, int rows, int cols) {
    return to_double(dequantize(w, k0, n0, rows, cols));
  };
  return schedule_bounds(A, Dtype::fp16, w.group, w.scales, {}, tile, y_exact, S, numerics, schedule,
                         precise_partial_work);
}

OutputBounds output_bounds(const HalfMatrix& A, const QuantizedWeights& w, const F64Matrix& y_exact,
                           const F64Matrix& S, Contract contract, const Schedule& schedule,
                           double precise_partial_work) {
  return output_bounds(A, w, y_exact, S, contract_numerics(contract), schedule, precise_partial_work);
}

OutputBounds output_bounds(const HalfMatrix& A, const FormatWeights& w, const std::vector<int>& kernel_order,
                           const F64Matrix& y_exact, const F64Matrix& S, const Numerics& numerics,
                           const Schedule& schedule, double precise_partial_work) {
  validate(w);
  require(kernel_order.empty() || static_cast<int>(kernel_order.size()) == w.K(), "kernel order has ",
          kernel_order.size(), " rows, expected K=", w.K());
  require(A.rows() == schedule.shape.M && A.cols() == w.K(), "A is (", A.rows(), ", ", A.cols(), "), expected (",
          schedule.shape.M, ", ", w.K(), ")");
  const WeightTile tile = [&](int k0, int n0, int rows, int cols) {
    F64Matrix out(rows, cols);
    for (int k = 0; k < rows; ++k) {
      const int row = kernel_order.empty() ? k0 + k : kernel_order[k0 + k];
      for (int n = 0; n < cols; ++n) out(k, n) = dequantized_weight(w, row, n0 + n);
    }
    return out;
  };
  return schedule_bounds(A, w.dtype, w.group, w.scales, kernel_order, tile, y_exact, S, numerics, schedule,
                         precise_partial_work);
}

}  // namespace tc
