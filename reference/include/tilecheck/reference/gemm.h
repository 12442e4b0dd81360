// The reference GEMM: A (M, K) fp16 times dequantized weights (K, N), under a contract.
//   y_exact = sum_k a_ik * w^_kj   (exact accumulator value before any output rounding; for
//                                   per-column scales this is the unscaled sum)
//   S       = sum_k |a_ik * w^_kj| (conditioning: error bounds scale with it)
//   expected = epilogue(y_exact) under the contract (correctly rounded; no partial-sum roundings)
// Two paths: `exact` sums fp16 products in 128-bit fixed point (exact for K <= 2^20, used for the
// committed fixtures and to check the other path); `eigen` is a float64 Eigen GEMM for large shapes.
#pragma once
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/quantize.h"

namespace tc {

enum class GemmPath { exact, eigen };

struct ReferenceOutput {
  F64Matrix y_exact;    // (M, N)
  F64Matrix S;          // (M, N)
  HalfMatrix expected;  // (M, N) fp16 bits
};

ReferenceOutput reference_gemm(const HalfMatrix& A, const QuantizedWeights& w, Contract contract,
                               GemmPath path);

// The path used when the caller does not care: exact up to 2^28 multiply-adds, Eigen above.
GemmPath default_path(int M, int N, int K);

}  // namespace tc
