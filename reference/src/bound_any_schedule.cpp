// Bounds for a kernel whose split of K and reduction order are unknown (docs/numerics.md, "Bounds
// for an unknown schedule"). Everything numeric is error_bound's and admissible_output's: this file
// only decides what to charge when the schedule cannot say.
#include <vector>

#include "tilecheck/reference/bound.h"
#include "tilecheck/core/error.h"

namespace tc {

int max_slices_for(int K, int min_tile_k) {
  require(min_tile_k >= 16 && min_tile_k % 16 == 0, "min_tile_k=", min_tile_k,
          " must be a positive multiple of 16 (one MMA step)");
  require(K > 0, "K=", K, " must be positive");
  return (K + min_tile_k - 1) / min_tile_k;  // each slice holds at least one k-tile
}

OutputBounds output_bounds_any_schedule(const F64Matrix& y_exact, const F64Matrix& S,
                                        const HalfMatrix& scales, Dtype dtype, const Numerics& numerics,
                                        const Shape& shape, int max_slices) {
  require_boundable(numerics);
  require(max_slices >= 1, "max_slices=", max_slices, " must be at least 1 (1: K is not split)");
  const int M = shape.M, N = shape.N, K = shape.K;
  require(y_exact.rows() == M && y_exact.cols() == N && S.rows() == M && S.cols() == N,
          "reference is (", y_exact.rows(), ", ", y_exact.cols(), ") but the shape is (", M, ", ", N,
          ")");
  require(scales.rows() >= 1 && scales.cols() == N, "scales are (", scales.rows(), ", ",
          scales.cols(), ") but the output has ", N, " columns");
  OutputBounds b;
  b.key_lo.resize(M, N);
  b.key_hi.resize(M, N);
  b.flags.resize(M, N);
  b.E.resize(M, N);
  // With partials in the dtype every combination but the last is stored in it; with one slice
  // nothing is stored. Each stored partial is charged the whole S: the largest it can be.
  const bool dtype_partials = numerics.partials == Partials::fp16 && max_slices > 1;
  const double overflow = overflow_threshold(dtype);
  std::vector<double> scale(static_cast<std::size_t>(N)), E_row(static_cast<std::size_t>(N));
  for (int j = 0; j < N; ++j) scale[j] = partial_scale(dtype, scales(0, j), shape.group, numerics.epilogue);
  for (int i = 0; i < M; ++i) {
    error_bounds_charged_whole_S(dtype, S.row(i).data(), scale.data(), N, K, max_slices - 1,  // rows are contiguous
                                 dtype_partials ? max_slices - 1 : 0, E_row.data());
    for (int j = 0; j < N; ++j) {
      const double E = E_row[j];
      Admissible adm = admissible_output(dtype, y_exact(i, j), E, scales(0, j), shape.group, numerics.epilogue);
      // A stored partial's value is at most (S + E) times its scale: it may overflow from the dtype's
      // threshold on.
      if (dtype_partials && (S(i, j) + E) * scale[j] >= overflow) adm.unbounded = true;
      if (accumulator_may_overflow(dtype, S(i, j), E)) adm.unbounded = true;
      if (scaled_partial_may_overflow(S(i, j), E, max_slices, scale[j])) adm.unbounded = true;
      b.key_lo(i, j) = adm.key_lo;
      b.key_hi(i, j) = adm.key_hi;
      b.flags(i, j) = static_cast<std::uint8_t>((adm.nan_expected ? 1 : 0) | (adm.unbounded ? 2 : 0));
      b.E(i, j) = E;
    }
  }
  return b;
}

OutputBounds output_bounds_any_schedule(const F64Matrix& y_exact, const F64Matrix& S,
                                        const HalfMatrix& scales, const Numerics& numerics,
                                        const Shape& shape, int max_slices) {
  return output_bounds_any_schedule(y_exact, S, scales, Dtype::fp16, numerics, shape, max_slices);
}

OutputBounds output_bounds_any_schedule(const F64Matrix& y_exact, const F64Matrix& S,
                                        const HalfMatrix& scales, Contract contract,
                                        const Shape& shape, int max_slices) {
  return output_bounds_any_schedule(y_exact, S, scales, contract_numerics(contract), shape, max_slices);
}

}  // namespace tc
