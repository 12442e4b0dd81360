// The float64 GEMM's two inner loops, once per instruction set, chosen at run time:
//   multiply  y += a * b and S += |a| * |b| for one 4 x 16 tile, accumulators in registers
//   decode    one strip of W^ (16 columns) from its codes and scales
// AVX-512 and AVX2 compute RN16((q - 8) * s) with the float -> half conversion (round to nearest,
// ties to even, as RN16; (q - 8) * s has at most 15 significant bits, so the float product is
// exact and there is one rounding). The baseline looks the weights up in weight tables. Which one
// runs cannot change a proven result: the exactness proof (gemm.cpp) holds for every order, and
// the decoded weights are the same values (gemm_test checks every fp16 scale on each).
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "gemm_parts.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/gemm_weight_table.h"

// GCC 12's AVX-512 intrinsics read an "undefined" register that its own -Wmaybe-uninitialized then
// reports inside the header (GCC PR 105593, fixed in 13); the warning is about the header alone.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <cpuid.h>

namespace tc::gemm_parts {
namespace {

template <int kLanes>
struct Vector;  // kLanes doubles: one register of the instruction set that uses them
template <>
struct Vector<2> {
  typedef double type __attribute__((vector_size(16)));
};
template <>
struct Vector<4> {
  typedef double type __attribute__((vector_size(32)));
};
template <>
struct Vector<8> {
  typedef double type __attribute__((vector_size(64)));
};

// y[0..kSubRows)[0..kSubVectors * kLanes) += a * b and S += |a| * |b| over `depth` k, in registers.
template <int kLanes, int kSubRows, int kSubVectors>
__attribute__((always_inline)) inline void multiply_subtile(int depth, const double* a, const double* a_abs,
                                                            const double* b, double* y, double* S, long ld) {
  typedef typename Vector<kLanes>::type Vec;
  Vec sum[kSubRows][kSubVectors] = {}, magnitude[kSubRows][kSubVectors] = {};
  for (int k = 0; k < depth; ++k) {
    Vec w[kSubVectors], w_abs[kSubVectors];
    for (int v = 0; v < kSubVectors; ++v) {
      std::memcpy(&w[v], b + k * kStrip + v * kLanes, sizeof(Vec));
      w_abs[v] = w[v] < 0 ? -w[v] : w[v];
    }
    for (int r = 0; r < kSubRows; ++r) {
      const double ar = a[k * kTileRows + r], ar_abs = a_abs[k * kTileRows + r];
      for (int v = 0; v < kSubVectors; ++v) {
        sum[r][v] += ar * w[v];
        magnitude[r][v] += ar_abs * w_abs[v];
      }
    }
  }
  for (int r = 0; r < kSubRows; ++r)
    for (int v = 0; v < kSubVectors; ++v)
      for (int l = 0; l < kLanes; ++l) {
        y[r * ld + v * kLanes + l] += sum[r][v][l];
        S[r * ld + v * kLanes + l] += magnitude[r][v][l];
      }
}

// The kTileRows x kStrip tile in sub-tiles that fit the register file: 16 accumulators of 32
// registers (AVX-512), 8 of 16 (AVX2, SSE2), leaving room for the weights and activations.
template <int kLanes, int kSubRows, int kSubVectors>
__attribute__((always_inline)) inline void multiply_tile(int depth, const double* a, const double* a_abs,
                                                         const double* b, double* y, double* S, long ld) {
  for (int r = 0; r < kTileRows; r += kSubRows)
    for (int c = 0; c < kStrip; c += kSubVectors * kLanes)
      multiply_subtile<kLanes, kSubRows, kSubVectors>(depth, a + r, a_abs + r, b + c, y + r * ld + c,
                                                      S + r * ld + c, ld);
}

__attribute__((target("avx512f"))) void multiply_avx512(int depth, const double* a, const double* a_abs,
                                                         const double* b, double* y, double* S, long ld) {
  multiply_tile<8, 4, 2>(depth, a, a_abs, b, y, S, ld);
}

__attribute__((target("avx2"))) void multiply_avx2(int depth, const double* a, const double* a_abs,
                                                    const double* b, double* y, double* S, long ld) {
  multiply_tile<4, 2, 2>(depth, a, a_abs, b, y, S, ld);
}

void multiply_baseline(int depth, const double* a, const double* a_abs, const double* b, double* y, double* S,
                       long ld) {
  multiply_tile<2, 2, 2>(depth, a, a_abs, b, y, S, ld);
}

__attribute__((target("avx512f"))) void decode_avx512(const std::uint8_t* codes, long ld, int rows,
                                                       const half_bits* scales, int group, double* out) {
  const bool per_column = is_per_column(group);
  const __m512i zero_point = _mm512_set1_epi32(kZeroPoint);
  const __m512 s = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(scales)));
  for (int r = 0; r < rows; ++r) {
    const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + r * ld));
    const __m512 centred = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_cvtepu8_epi32(q), zero_point));
    const __m512 w = per_column ? centred
                                : _mm512_cvtph_ps(_mm512_cvtps_ph(_mm512_mul_ps(centred, s),
                                                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    _mm512_storeu_pd(out + r * kStrip, _mm512_cvtps_pd(_mm512_castps512_ps256(w)));
    _mm512_storeu_pd(out + r * kStrip + 8,
                     _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(w), 1))));
  }
}

__attribute__((target("avx2,f16c"))) void decode_avx2(const std::uint8_t* codes, long ld, int rows,
                                                       const half_bits* scales, int group, double* out) {
  const bool per_column = is_per_column(group);
  const __m256i zero_point = _mm256_set1_epi32(kZeroPoint);
  const __m256 s[2] = {_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(scales))),
                       _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(scales + 8)))};
  for (int r = 0; r < rows; ++r) {
    for (int half = 0; half < 2; ++half) {
      const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + r * ld + 8 * half));
      const __m256 centred = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu8_epi32(q), zero_point));
      const __m256 w = per_column ? centred
                                  : _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_mul_ps(centred, s[half]),
                                                                    _MM_FROUND_TO_NEAREST_INT));
      double* o = out + r * kStrip + 8 * half;
      _mm256_storeu_pd(o, _mm256_cvtps_pd(_mm256_castps256_ps128(w)));
      _mm256_storeu_pd(o + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(w, 1)));
    }
  }
}

void decode_baseline(const std::uint8_t* codes, long ld, int rows, const half_bits* scales, int group, double* out) {
  double values[kStrip][16];  // the strip's weight tables
  for (int c = 0; c < kStrip; ++c) {
    const WeightTable t = weight_table(scales[c], group);
    std::copy(t.value, t.value + 16, values[c]);
  }
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < kStrip; ++c) out[r * kStrip + c] = values[c][codes[r * ld + c]];
}

}  // namespace

// F16C (the fp16 <-> fp32 conversions): CPUID leaf 1, ECX; clang's __builtin_cpu_supports has no name for it.
bool has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) != 0 && (c & bit_F16C) != 0;
}

SimdKernels simd_kernels() {
  __builtin_cpu_init();
  struct Candidate {
    SimdKernels kernels;
    bool available;
  };
  const Candidate candidates[] = {
      {{"avx512", multiply_avx512, decode_avx512}, __builtin_cpu_supports("avx512f") != 0},
      {{"avx2", multiply_avx2, decode_avx2}, __builtin_cpu_supports("avx2") && has_f16c()},
      {{"baseline", multiply_baseline, decode_baseline}, true}};
  const char* wanted = std::getenv("TC_REFERENCE_SIMD");
  for (const Candidate& c : candidates) {
    if (wanted == nullptr || *wanted == 0) {
      if (c.available) return c.kernels;
    } else if (std::strcmp(wanted, c.kernels.name) == 0) {
      require(c.available, "TC_REFERENCE_SIMD=", wanted, ": this CPU does not have ", wanted);
      return c.kernels;
    }
  }
  throw Error(cat("TC_REFERENCE_SIMD=", wanted, " is unknown (expected avx512, avx2 or baseline)"));
}

}  // namespace tc::gemm_parts
