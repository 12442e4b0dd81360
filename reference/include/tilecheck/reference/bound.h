// Error bounds: for each output element, the set of results, in the case's dtype (fp16 or bf16), a
// correct kernel may produce under its numerics (tilecheck/reference/numerics.h) and a schedule
// (derivation: docs/numerics.md, "Bounds for the served formats" for bf16 and the other codes).
//
//   E = gamma_{K + P}(2^-23) * S                      fp32 accumulation, modelled as truncation; P
//                                                     cross-block additions (P = slice_count - 1)
//     + (2K + P) * 2^-149 * (1 + gamma)               bf16 only: fp32 underflow of its tiny products
//     + sum_j (u_t * (S_j + E_{j-1}) + 2^-25 | 2^-134)  partials in the dtype t (Partials::fp16: C's
//                                                     type) only: the P roundings of partial sums,
//                                                     S_j the magnitude sum of the j-th stored partial
// With Epilogue::scale_before_reduce (per-column scales, P > 0) the partials are scaled sums: each
// product's chain of roundings gains one (its slice's fp32 scaling), bf16's scaled values may lose
// 2^-149 / |s| per scaling and cross-block addition, and a stored partial's subnormal error is
// 2^-25 | 2^-134 divided by |s|; a scaled fp32 partial may overflow where (S + E) * |s| reaches
// fp32's largest value, a stored one where (S_j + E) * |s| reaches t's overflow threshold.
// The output passes iff it is a possible rounding, under the epilogue, of some value in
// [y* - E, y* + E]. Rounding is monotone, so that set is a range of ordered keys [key_lo, key_hi].
// E depends only on the partial-sum precision, the admissible set around it only on the epilogue
// order. Each function that takes a Contract judges by the contract's numerics (contract_numerics).
#pragma once
#include <cstdint>
#include <vector>

#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/dtype.h"
#include "tilecheck/reference/format_gemm.h"
#include "tilecheck/reference/fp16.h"
#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/numerics.h"
#include "tilecheck/reference/quantize.h"
#include "tilecheck/reference/schedule.h"

namespace tc {

constexpr double kAccumulatorUnit = 1.0 / 8388608.0;  // 2^-23: fp32 accumulation with truncation
constexpr double kAccumulatorUnderflow = 0x1p-149;    // fp32's subnormal spacing: the absolute error
                                                      // of one product or addition below 2^-126
constexpr double kFp32Max = 0x1.fffffep127;           // an fp32 sum this large may become +-Inf

double gamma(int n, double u);  // n*u / (1 - n*u); +Inf when n*u >= 1

struct Admissible {
  std::int32_t key_lo = 0;  // ordered keys of the dtype (tc::key); fp16's +-Inf are +-31744
  std::int32_t key_hi = 0;
  bool nan_expected = false;  // y* is NaN: any NaN passes, nothing else does
  bool unbounded = false;     // a partial sum may overflow: every result is admissible
};

bool admits(Dtype d, const Admissible& a, std::uint16_t got);
bool admits(const Admissible& a, half_bits got);  // fp16

// The admissible set for an accumulator known to lie in [y - E, y + E] (E >= 0), through the
// epilogue in the dtype (`scale`, bits of the dtype, is used for per-column groups only).
Admissible admissible_output(Dtype d, double y, double E, std::uint16_t scale, int group, Epilogue epilogue);
Admissible admissible_output(double y, double E, half_bits scale, int group, Epilogue epilogue);  // fp16
Admissible admissible_output(double y, double E, half_bits scale, int group, Contract contract);

// The error bound E for one element: S its magnitude sum, K the depth, partial_S the magnitude sums
// of the partial sums stored in the dtype along the way (empty for fp32 partials or one slice).
// partial_scale: what the partials are multiplied by before the reduction (tc::partial_scale; 1: the
// partials are unscaled sums).
double error_bound(Dtype d, double S, int K, int cross_block_adds, const std::vector<double>& partial_S,
                   double partial_scale = 1.0);
double error_bound(double S, int K, int cross_block_adds, const std::vector<double>& partial_S);  // fp16
// error_bound for n elements whose stored partials are each charged the element's whole S
// (stored_partials of them, as the any-schedule bound does): E[j] is bit for bit
// error_bound(d, S[j], K, cross_block_adds, {S[j] x stored_partials}, partial_scale[j]), computed
// across the elements at once.
void error_bounds_charged_whole_S(Dtype d, const double* S, const double* partial_scale, int n, int K,
                                  int cross_block_adds, int stored_partials, double* E);
// Whether the fp32 accumulator itself may reach +-Inf: never from fp16 inputs (|a * w^| < 2^32),
// from bf16's wherever S + E reaches fp32's largest value. Such elements are unbounded.
bool accumulator_may_overflow(Dtype d, double S, double E);

// The factor a kernel's partial sums carry: |s| of the column when the epilogue scales each slice
// before the reduction (Epilogue::scale_before_reduce, per-column scales), else 1. A NaN scale gives 1
// (the element expects NaN whatever the partials hold).
double partial_scale(Dtype d, std::uint16_t scale, int group, Epilogue epilogue);
// Whether a scaled fp32 partial may reach +-Inf (and two of them Inf - Inf = NaN) although the
// scaled total need not: more than one slice and (S + E) * partial_scale >= fp32's largest value.
// Such elements are unbounded. With one slice the scaling is the epilogue, which the admissible
// set maps exactly.
bool scaled_partial_may_overflow(double S, double E, int slices, double partial_scale);

// Above this many multiply-adds (M * N * K) stored fp16 partials are each charged
// the element's whole S rather than their own magnitude (docs/numerics.md).
constexpr double kPrecisePartialWork = 2147483648.0;  // 2^31

// Per-element bounds for a whole output under a schedule. Needs A and w^ for the partial sums that
// fp16 partials store (the sums over each reduction prefix of a column's slices). Throws for
// numerics it cannot bound (require_boundable).
struct OutputBounds {
  RowMatrix<std::int32_t> key_lo;  // (M, N)
  RowMatrix<std::int32_t> key_hi;
  RowMatrix<std::uint8_t> flags;   // bit 0: nan_expected, bit 1: unbounded
  F64Matrix E;                     // the error bound, in accumulator units (before the epilogue)
  Admissible at(int r, int c) const {
    return Admissible{key_lo(r, c), key_hi(r, c), (flags(r, c) & 1) != 0, (flags(r, c) & 2) != 0};
  }
};

OutputBounds output_bounds(const HalfMatrix& A, const QuantizedWeights& w, const F64Matrix& y_exact,
                           const F64Matrix& S, const Numerics& numerics, const Schedule& schedule,
                           double precise_partial_work = kPrecisePartialWork);
OutputBounds output_bounds(const HalfMatrix& A, const QuantizedWeights& w, const F64Matrix& y_exact,
                           const F64Matrix& S, Contract contract, const Schedule& schedule,
                           double precise_partial_work = kPrecisePartialWork);
// The same for any served format: A (M, K) holds bits of w.dtype; `kernel_order` is the order in
// which the kernel walks K (act-order's perm: its row i is row kernel_order[i] of the codes and
// column kernel_order[i] of A; empty: 0 .. K-1), which decides what a stored partial sums.
OutputBounds output_bounds(const HalfMatrix& A, const FormatWeights& w, const std::vector<int>& kernel_order,
                           const F64Matrix& y_exact, const F64Matrix& S, const Numerics& numerics,
                           const Schedule& schedule, double precise_partial_work = kPrecisePartialWork);

// Bounds that hold for ANY split of K into at most max_slices slices (contiguous k-ranges) and any
// order of combining them, for kernels whose schedule tilecheck does not model (docs/numerics.md,
// "Bounds for an unknown schedule"): max_slices - 1 cross-block additions, and with fp16 partials
// max_slices - 1 fp16 stores each charged the element's whole S (a stored partial sums a subset of
// the products, so its exact magnitude is at most S whatever its k-range). No A or w^: only the
// scales, which the per-column epilogue multiplies by (row 0 used). scales: (G, N).
OutputBounds output_bounds_any_schedule(const F64Matrix& y_exact, const F64Matrix& S,
                                        const HalfMatrix& scales, Dtype dtype, const Numerics& numerics,
                                        const Shape& shape, int max_slices);
OutputBounds output_bounds_any_schedule(const F64Matrix& y_exact, const F64Matrix& S,
                                        const HalfMatrix& scales, const Numerics& numerics,
                                        const Shape& shape, int max_slices);  // fp16
OutputBounds output_bounds_any_schedule(const F64Matrix& y_exact, const F64Matrix& S,
                                        const HalfMatrix& scales, Contract contract,
                                        const Shape& shape, int max_slices);

// The most slices a kernel can cut K into when its k-tiles are at least min_tile_k deep (a multiple
// of 16, one MMA step): ceil(K / min_tile_k). Unknown tile: 16, so K / 16.
int max_slices_for(int K, int min_tile_k = 16);

}  // namespace tc
