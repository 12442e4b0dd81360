// The reference GEMM for every served format (docs/numerics.md, "Formats"): activations, scales and
// output in fp16 or bf16, codes uint4b8 / uint4 with zero points / uint8b128, grouped or per-column
// scales, and act-order (a group index per K row). The same three outputs as tc::reference_gemm:
//   y_exact  = sum_k a_ik * w^_kj, rounded to odd    S = sum_k |a_ik * w^_kj|, rounded to odd
//   expected = the epilogue of y_exact in the dtype: grouped RN_t(y); per column RN_t(RN_t(y) * s)
//              (round then scale) or RN_t(RN32(y * s)) (scale then round)
// Exact for any inputs (tc::ExactSum), one element at a time: slower than reference_gemm, which it
// equals bit for bit on fp16 / uint4b8 problems.
#pragma once
#include <vector>

#include "tilecheck/reference/gemm.h"
#include "tilecheck/reference/numerics.h"
#include "tilecheck/reference/weight_format.h"

namespace tc {

struct FormatWeights {
  Dtype dtype = Dtype::fp16;  // of the activations, the scales and the output
  WeightType type = WeightType::uint4b8;
  int group = kPerColumn;     // K rows per scale group (32, 64, 128) or kPerColumn
  CodeMatrix codes;           // (K, N), 0 .. max_code(type)
  CodeMatrix zero_points;     // (G, N), 0..15, for uint4 only (empty otherwise)
  HalfMatrix scales;          // (G, N), bits of dtype; G = scale_rows(K, group)
  std::vector<int> g_idx;     // act-order: the scale group of each K row; empty: row k / group
  int K() const { return static_cast<int>(codes.rows()); }
  int N() const { return static_cast<int>(codes.cols()); }
};

// Throws naming the first problem: shapes, code and zero-point ranges, g_idx length and values,
// act-order with per-column scales.
void validate(const FormatWeights& w);

// The scale group of row k.
inline int group_of(const FormatWeights& w, int k) {
  if (!w.g_idx.empty()) return w.g_idx[k];
  return is_per_column(w.group) ? 0 : k / w.group;
}

// The weight the MMA sees at (k, j), as a double (exact).
double dequantized_weight(const FormatWeights& w, int k, int j);

// A (M, K) holds bits of w.dtype. `epilogue` matters for per-column scales only.
ReferenceOutput format_reference_gemm(const HalfMatrix& A, const FormatWeights& w, Epilogue epilogue);

}  // namespace tc
