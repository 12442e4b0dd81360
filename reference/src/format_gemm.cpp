#include "tilecheck/reference/format_gemm.h"

#include <cmath>

#include "tilecheck/core/error.h"
#include "tilecheck/reference/exact_sum.h"

namespace tc {

void validate(const FormatWeights& w) {
  const int K = w.K(), N = w.N();
  require(K > 0 && N > 0, "weights are (", K, ", ", N, "): both sizes must be positive");
  validate_group(w.group, K);
  const int G = scale_rows(K, w.group);
  require(w.scales.rows() == G && w.scales.cols() == N, "scales are (", w.scales.rows(), ", ", w.scales.cols(),
          "), expected (", G, ", ", N, ") for K=", K, " group=", w.group);
  for (Eigen::Index i = 0; i < w.codes.size(); ++i)
    require(w.codes.data()[i] <= max_code(w.type), "code ", int(w.codes.data()[i]), " at (", i / N, ", ", i % N,
            ") is outside ", name(w.type), "'s range 0..", max_code(w.type));
  if (has_zero_points(w.type)) {
    require(w.zero_points.rows() == G && w.zero_points.cols() == N, "zero points are (", w.zero_points.rows(), ", ",
            w.zero_points.cols(), "), expected (", G, ", ", N, ")");
    for (Eigen::Index i = 0; i < w.zero_points.size(); ++i)
      require(w.zero_points.data()[i] <= 15, "zero point ", int(w.zero_points.data()[i]), " at (", i / N, ", ",
              i % N, ") is outside 0..15");
  } else {
    require(w.zero_points.size() == 0, name(w.type), " has no zero points, but ", w.zero_points.size(), " were given");
  }
  if (!w.g_idx.empty()) {
    require(!is_per_column(w.group), "act-order (g_idx) needs grouped scales, not per-column ones");
    require(static_cast<int>(w.g_idx.size()) == K, "g_idx has ", w.g_idx.size(), " entries, expected K=", K);
    for (int k = 0; k < K; ++k)
      require(w.g_idx[k] >= 0 && w.g_idx[k] < G, "g_idx[", k, "] = ", w.g_idx[k], " is outside 0..", G - 1);
  }
}

double dequantized_weight(const FormatWeights& w, int k, int j) {
  const int g = group_of(w, k);
  const int z = has_zero_points(w.type) ? w.zero_points(g, j) : 0;
  return to_double(w.dtype, dequantized_weight(w.dtype, w.type, w.codes(k, j), z, w.scales(g, j), is_per_column(w.group)));
}

ReferenceOutput format_reference_gemm(const HalfMatrix& A, const FormatWeights& w, Epilogue epilogue) {
  validate(w);
  require(A.cols() == w.K(), "A has ", A.cols(), " columns, expected K=", w.K());
  const int M = static_cast<int>(A.rows()), N = w.N(), K = w.K();
  const bool per_column = is_per_column(w.group);
  const bool scale_first = per_column && epilogue != Epilogue::round_then_scale;  // needs the sum of p * s
  ReferenceOutput out{F64Matrix(M, N), F64Matrix(M, N), HalfMatrix(M, N)};
  const F64Matrix a = [&] {
    F64Matrix m(M, K);
    for (int i = 0; i < M; ++i)
      for (int k = 0; k < K; ++k) m(i, k) = to_double(w.dtype, A(i, k));
    return m;
  }();
#pragma omp parallel for schedule(dynamic)
  for (int j = 0; j < N; ++j) {
    std::vector<double> column(K);
    for (int k = 0; k < K; ++k) column[k] = dequantized_weight(w, k, j);
    const double s = to_double(w.dtype, w.scales(0, j));  // the column's scale (per column)
    for (int i = 0; i < M; ++i) {
      ExactSum y, magnitude, scaled;
      for (int k = 0; k < K; ++k) {
        const double p = a(i, k) * column[k];  // exact: at most 11 + 11 significant bits, in range
        y.add(p);
        magnitude.add(std::fabs(p));
        if (scale_first) scaled.add(p * s);  // exact: at most 33 significant bits
      }
      const double y_odd = y.round_to_odd();
      out.y_exact(i, j) = y_odd;
      out.S(i, j) = magnitude.round_to_odd();
      std::uint16_t e;
      if (!per_column) {
        e = round_to(w.dtype, y_odd);
      } else if (epilogue == Epilogue::round_then_scale) {
        e = round_to(w.dtype, to_double(w.dtype, round_to(w.dtype, y_odd)) * s);  // the product is exact
      } else {
        e = round_to(w.dtype, static_cast<double>(round_to_float(scaled.round_to_odd())));
      }
      out.expected(i, j) = e;
    }
  }
  return out;
}

}  // namespace tc
