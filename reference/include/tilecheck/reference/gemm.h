// The reference GEMM: A (M, K) fp16 times dequantized weights (K, N), under a contract.
//   y_exact = sum_k a_ik * w^_kj   (exact accumulator value before any output rounding; for
//                                   per-column scales this is the unscaled sum)
//   S       = sum_k |a_ik * w^_kj| (conditioning: error bounds scale with it)
//   expected = epilogue(y_exact) under the contract (correctly rounded; no partial-sum roundings)
// y_exact and S are the exact sums rounded to double with round-to-odd (docs/numerics.md).
// Paths:
//   exact    blocked float64 GEMM where a per-element proof shows float64 made no rounding error,
//            the 128-bit sums elsewhere: equal to `scalar` bit for bit (committed fixtures use it)
//   scalar   128-bit fixed-point sums over every product (the definition; exact for K <= 2^20)
//   float64  the blocked float64 GEMM alone: where the proof fails, y_exact and S carry its
//            rounding error (at most gamma_K(2^-53) * S)
#pragma once
#include <cstdint>

#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/quantize.h"

namespace tc {

enum class GemmPath {
  exact,
  scalar,
  float64,
  eigen = float64,  // former name of float64, kept for callers outside reference/
};

struct ReferenceOutput {
  F64Matrix y_exact;    // (M, N)
  F64Matrix S;          // (M, N)
  HalfMatrix expected;  // (M, N) fp16 bits
};

// How `exact` computed its elements: proven float64 sums or 128-bit sums; and which register tile
// the float64 GEMM used: the widest the CPU has ("avx512", "avx2", "baseline"), or the one the
// environment variable TC_REFERENCE_SIMD names (an unknown or unavailable name throws).
struct GemmCounts {
  std::int64_t float64_elements = 0;
  std::int64_t fixed_point_elements = 0;
  const char* simd = "none";
};

ReferenceOutput reference_gemm(const HalfMatrix& A, const QuantizedWeights& w, Contract contract,
                               GemmPath path, GemmCounts* counts = nullptr);

// The path used when the caller does not care: exact up to 2^28 multiply-adds, float64 above.
GemmPath default_path(int M, int N, int K);

}  // namespace tc
