// The reference GEMM's parts, shared by reference/src/gemm*.cpp only (callers use gemm.h):
//   gemm_blocked.cpp         y and S in float64, blocked and packed, with the data for the exactness proof
//   gemm_simd.cpp            its inner loops for AVX-512, AVX2 and the baseline
//   gemm_exact_elements.cpp  y* and S of single elements in 128-bit fixed point (the definition)
//   gemm.cpp                 the entry point: proof per element, fallback, epilogue
#pragma once
#include <cstdint>
#include <vector>

#include "tilecheck/reference/gemm.h"

namespace tc::gemm_parts {

__extension__ typedef __int128 i128;  // GCC/Clang extension: exact sums

// v * 2^exp2 rounded to double with round-to-odd (exact when it fits; else the sticky bit is kept).
double round_to_odd(i128 v, int exp2);

// The exact product of a finite double and the column's finite scale, rounded to odd.
double times_scale_rounded_to_odd(double y, half_bits scale);

// The float64 GEMM's inner loops for one instruction set (gemm_simd.cpp). Layouts: a and a_abs
// [k][kTileRows] (packed A), b [k][kStrip] (a strip of W^), y and S row-major with leading dimension ld.
constexpr int kTileRows = 4;  // rows of A per register tile
constexpr int kStrip = 16;    // columns of W^ per register tile and per decoded strip

// y[0..kTileRows)[0..kStrip) += a * b and S += |a| * |b| over `depth` k.
using MultiplyTile = void (*)(int depth, const double* a, const double* a_abs, const double* b, double* y,
                              double* S, long ld);
// out[r][c] = w^ of code codes[r * ld + c] under scales[c] (one group), r < rows, c < kStrip.
using DecodeStrip = void (*)(const std::uint8_t* codes, long ld, int rows, const half_bits* scales, int group,
                             double* out);

struct SimdKernels {
  const char* name;  // "avx512", "avx2" or "baseline"
  MultiplyTile multiply;
  DecodeStrip decode;
};

// The widest the CPU runs, or the one the environment variable TC_REFERENCE_SIMD names.
SimdKernels simd_kernels();

// y = A * W^ and S = |A| * |W^| in float64 arithmetic, for any summation order.
struct Float64Products {
  F64Matrix y, S;                // (M, N)
  std::vector<int> column_grid;  // (N): every finite nonzero w^ of the column is a multiple of 2^grid
  const char* simd;              // the register tile that ran: "avx512", "avx2" or "baseline"
};
Float64Products float64_products(const HalfMatrix& A, const QuantizedWeights& w);

struct Element {
  int i, j;
};

// y*, S and the expected output of the listed elements of `out`, summed exactly in 128-bit fixed
// point over every product; Inf and NaN products are summed in IEEE double (they dominate).
void exact_elements(const HalfMatrix& A, const QuantizedWeights& w, Contract contract,
                    const std::vector<Element>& elements, ReferenceOutput& out);

}  // namespace tc::gemm_parts
