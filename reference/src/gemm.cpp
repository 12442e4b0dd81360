// Reference GEMM, two paths. The exact path represents every fp16 value as an integer number of
// 2^-24 (|v| < 2^40), so each product is an integer number of 2^-48 below 2^80 and a sum of up to
// 2^20 of them fits a signed 128-bit integer: no rounding until the final conversion, which rounds
// to odd so that the contract's later roundings (to fp32, to fp16) are correct.
#include "tilecheck/reference/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "tilecheck/reference/error.h"

namespace tc {
namespace {

__extension__ typedef __int128 i128;  // GCC/Clang extension: exact sums
__extension__ typedef unsigned __int128 u128;

struct FixedHalf {   // finite fp16 as integer * 2^-24, or a special value
  std::int64_t units;
  bool finite;
  double value;      // the double value (for specials)
};

FixedHalf fixed(half_bits h) {
  const double v = half_to_double(h);
  if (!std::isfinite(v)) return {0, false, v};
  return {static_cast<std::int64_t>(std::ldexp(v, 24)), true, v};
}

// Rounds integer * 2^exp2 to double with round-to-odd.
double round_to_odd(i128 v, int exp2) {
  const bool negative = v < 0;
  u128 a = negative ? -static_cast<u128>(v) : static_cast<u128>(v);
  int shift = 0;
  while ((a >> shift) >= (static_cast<u128>(1) << 53)) ++shift;
  std::uint64_t mantissa = static_cast<std::uint64_t>(a >> shift);
  if (shift > 0 && (a & ((static_cast<u128>(1) << shift) - 1)) != 0) mantissa |= 1;
  const double r = std::ldexp(static_cast<double>(mantissa), exp2 + shift);
  return negative ? -r : r;
}

// Splits a finite fp16 into significand * 2^exponent with |significand| <= 2047.
void split(half_bits h, std::int64_t& significand, int& exponent) {
  const int e = (h >> 10) & 0x1F;
  const std::int64_t m = (h & 0x3FF) + (e ? 1024 : 0);
  significand = (h & 0x8000) ? -m : m;
  exponent = (e ? e : 1) - 25;
}

void validate_inputs(const HalfMatrix& A, const QuantizedWeights& w) {
  validate_weights(w);
  require(A.cols() == w.K(), "A is (", A.rows(), ", ", A.cols(), ") but the weights have K=", w.K());
  validate_shape(Shape{static_cast<int>(A.rows()), w.N(), w.K(), w.group});
}

ReferenceOutput exact_gemm(const HalfMatrix& A, const HalfMatrix& W_hat, const QuantizedWeights& w,
                           Contract contract) {
  const int M = static_cast<int>(A.rows()), N = w.N(), K = w.K();
  require(K <= (1 << 20), "K=", K, " is too deep for the exact path (at most 2^20)");
  std::vector<FixedHalf> a(static_cast<size_t>(M) * K), wt(static_cast<size_t>(N) * K);
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) a[size_t(i) * K + k] = fixed(A(i, k));
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) wt[size_t(j) * K + k] = fixed(W_hat(k, j));

  ReferenceOutput out{F64Matrix(M, N), F64Matrix(M, N), HalfMatrix(M, N)};
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      const FixedHalf* ar = &a[size_t(i) * K];
      const FixedHalf* wc = &wt[size_t(j) * K];
      i128 sum = 0, magnitude = 0;
      double special = 0.0, special_magnitude = 0.0;  // IEEE sum of the non-finite products
      bool any_special = false;
      for (int k = 0; k < K; ++k) {
        if (ar[k].finite && wc[k].finite) {
          const i128 p = static_cast<i128>(ar[k].units) * wc[k].units;
          sum += p;
          magnitude += p < 0 ? -p : p;
        } else {
          const double p = ar[k].value * wc[k].value;
          special += p;
          special_magnitude += std::fabs(p);
          any_special = true;
        }
      }
      double y = round_to_odd(sum, -48);
      double y_scaled = 0.0;
      const half_bits s = w.scales(0, j);
      if (is_per_column(w.group) && is_finite(s)) {
        std::int64_t sig;
        int e;
        split(s, sig, e);
        y_scaled = round_to_odd(sum * sig, -48 + e);
      }
      double S = round_to_odd(magnitude, -48);
      if (any_special) {  // Inf and NaN dominate any finite sum
        y = special;
        S = special_magnitude;
      }
      if (any_special || !is_finite(s)) y_scaled = y * half_to_double(s);
      out.y_exact(i, j) = y;
      out.S(i, j) = S;
      out.expected(i, j) = epilogue(y, y_scaled, s, w.group, contract);
    }
  }
  return out;
}

// The Eigen path works in panels of columns, so the float64 weights of a large layer (K * N * 8
// bytes) never exist at once and each panel is reused from cache for y* and for S.
ReferenceOutput eigen_gemm(const HalfMatrix& A, const HalfMatrix& W_hat, const QuantizedWeights& w,
                           Contract contract) {
  constexpr Eigen::Index kPanel = 1024;
  const F64Matrix a = to_double(A);
  const F64Matrix a_abs = a.cwiseAbs();
  const Eigen::Index M = A.rows(), N = W_hat.cols();
  ReferenceOutput out{F64Matrix(M, N), F64Matrix(M, N), HalfMatrix(M, N)};
  for (Eigen::Index n0 = 0; n0 < N; n0 += kPanel) {
    const Eigen::Index nb = std::min(kPanel, N - n0);
    F64Matrix panel = to_double(W_hat.middleCols(n0, nb));
    out.y_exact.middleCols(n0, nb).noalias() = a * panel;
    panel = panel.cwiseAbs();
    out.S.middleCols(n0, nb).noalias() = a_abs * panel;
  }
  for (Eigen::Index i = 0; i < M; ++i) {
    for (Eigen::Index j = 0; j < N; ++j) {
      const half_bits s = w.scales(0, j);
      const double y = out.y_exact(i, j);
      out.expected(i, j) = epilogue(y, y * half_to_double(s), s, w.group, contract);
    }
  }
  return out;
}

}  // namespace

GemmPath default_path(int M, int N, int K) {
  return static_cast<double>(M) * N * K <= static_cast<double>(1 << 28) ? GemmPath::exact : GemmPath::eigen;
}

ReferenceOutput reference_gemm(const HalfMatrix& A, const QuantizedWeights& w, Contract contract,
                               GemmPath path) {
  validate_inputs(A, w);
  const HalfMatrix W_hat = dequantize(w);
  return path == GemmPath::exact ? exact_gemm(A, W_hat, w, contract) : eigen_gemm(A, W_hat, w, contract);
}

}  // namespace tc
