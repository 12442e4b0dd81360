// Reference GEMM entry point. The fast exact path computes every element in float64 (gemm_blocked.cpp)
// and keeps the result where a proof shows that float64 made no rounding error:
//   Every finite fp16 value is an integer multiple of 2^grid (its lowest set bit). For output (i, j)
//   let g = grid_i + grid_j, grid_i the smallest grid of row i of A and grid_j the smallest
//   weight_grid of column j's scales (gemm_weight_table.h), which divides every finite w^_kj. Each
//   product a_ik * w^_kj has at most 22 significant bits (exact in double) and is a multiple
//   of 2^g, so every partial sum, in any order, is a multiple of 2^g of magnitude at most S. Below
//   2^(53 + g) all of them are exact doubles and no addition (or fused multiply-add) rounds. The
//   computed S_hat is a float64 sum of nonnegative terms, S_hat >= S (1 - gamma_K(2^-53)), so
//   S_hat <= 2^(52 + g) proves S < 2^(53 + g); then y_hat = y* and S_hat = S exactly, and round-to-odd
//   of an exact double is itself. A non-finite product makes S_hat Inf or NaN and fails the test.
// Elements that fail (Inf/NaN inputs, a wide dynamic range in one row or column, very deep K) are
// summed in 128-bit fixed point (gemm_exact_elements.cpp), as the scalar path sums all of them.
#include "tilecheck/reference/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "gemm_parts.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/gemm_weight_table.h"

namespace tc {
namespace {

using gemm_parts::Element;

void validate_inputs(const HalfMatrix& A, const QuantizedWeights& w) {
  validate_weights(w);
  require(A.cols() == w.K(), "A is (", A.rows(), ", ", A.cols(), ") but the weights have K=", w.K());
  validate_shape(Shape{static_cast<int>(A.rows()), w.N(), w.K(), w.group});
}

double clamped_power_of_two(int e) {  // clamped to finite doubles: the grid of a row or column of zeros is huge
  return std::ldexp(1.0, std::clamp(e, -1000, 1000));
}

// The smallest grid of each row of A over its finite nonzero values (kNoGrid for none).
std::vector<int> row_grids(const HalfMatrix& A) {
  std::vector<int> grid(A.rows(), kNoGrid);
  for (Eigen::Index i = 0; i < A.rows(); ++i)
    for (Eigen::Index k = 0; k < A.cols(); ++k)
      if (is_finite(A(i, k))) grid[i] = std::min(grid[i], half_grid(A(i, k)));
  return grid;
}

ReferenceOutput all_fixed_point(const HalfMatrix& A, const QuantizedWeights& w, Contract contract) {
  const int M = static_cast<int>(A.rows()), N = w.N();
  ReferenceOutput out{F64Matrix(M, N), F64Matrix(M, N), HalfMatrix(M, N)};
  std::vector<Element> all;
  all.reserve(static_cast<size_t>(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) all.push_back({i, j});
  gemm_parts::exact_elements(A, w, contract, all, out);
  return out;
}

}  // namespace

GemmPath default_path(int M, int N, int K) {
  return static_cast<double>(M) * N * K <= static_cast<double>(1 << 28) ? GemmPath::exact : GemmPath::float64;
}

ReferenceOutput reference_gemm(const HalfMatrix& A, const QuantizedWeights& w, Contract contract, GemmPath path,
                               GemmCounts* counts) {
  validate_inputs(A, w);
  const int M = static_cast<int>(A.rows()), N = w.N();
  if (path == GemmPath::scalar) {
    if (counts) *counts = {0, static_cast<std::int64_t>(M) * N, "none"};
    return all_fixed_point(A, w, contract);
  }
  gemm_parts::Float64Products p = gemm_parts::float64_products(A, w);
  const std::vector<int> grid = row_grids(A);
  ReferenceOutput out{std::move(p.y), std::move(p.S), HalfMatrix(M, N)};
  std::vector<std::vector<Element>> unproven(M);  // per row, so that rows can run in parallel
#pragma omp parallel for schedule(dynamic) if (static_cast<double>(M) * N >= (1 << 16))
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      const double y = out.y_exact(i, j) + 0.0, S = out.S(i, j);  // + 0.0: an exact zero is +0
      const bool proven = std::isfinite(S) && S <= clamped_power_of_two(52 + grid[i] + p.column_grid[j]);
      if (path == GemmPath::exact && !proven) {
        unproven[i].push_back({i, j});
        continue;
      }
      const half_bits s = w.scales(0, j);
      const bool per_column_finite = is_per_column(w.group) && is_finite(s) && std::isfinite(y);
      const double y_scaled = per_column_finite ? gemm_parts::times_scale_rounded_to_odd(y, s) : y * half_to_double(s);
      out.y_exact(i, j) = y;
      out.expected(i, j) = epilogue(y, y_scaled, s, w.group, contract);
    }
  }
  std::vector<Element> fixed_point;
  for (const std::vector<Element>& row : unproven) fixed_point.insert(fixed_point.end(), row.begin(), row.end());
  gemm_parts::exact_elements(A, w, contract, fixed_point, out);
  if (counts) {
    counts->fixed_point_elements = static_cast<std::int64_t>(fixed_point.size());
    counts->float64_elements = static_cast<std::int64_t>(M) * N - counts->fixed_point_elements;
    counts->simd = p.simd;
  }
  return out;
}

}  // namespace tc
