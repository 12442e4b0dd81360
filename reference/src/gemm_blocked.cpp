// y = A * W^ and S = |A| * |W^| in float64, blocked for the cache and packed for a register tile.
//   A (M, K) is decoded once and packed in blocks of kTileRows rows, k-major, so a tile reads
//   kTileRows values per k. W^ is decoded from the codes kDepth rows x kWidth columns at a time
//   into strips of kStrip columns, k-major: the float64 weights of the whole layer (8 bytes per
//   weight) never exist. Each thread owns whole column blocks. The two inner loops, multiply and
//   decode, are the instruction set's (gemm_simd.cpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>

#ifdef _OPENMP
#include <omp.h>
#else  // built without OpenMP (the fuzz harnesses' sub-build): one thread
static int omp_get_max_threads() { return 1; }
static int omp_get_thread_num() { return 0; }
#endif

#include "gemm_parts.h"
#include "tilecheck/reference/gemm_weight_table.h"

namespace tc::gemm_parts {
namespace {

constexpr int kDepth = 256;  // k rows per panel: a multiple of every group size
constexpr int kWidth = 256;  // columns per block: the 256 x 256 doubles of a panel (512 KB) stay in L2

struct FreeAligned {
  void operator()(double* p) const { std::free(p); }
};
using AlignedDoubles = std::unique_ptr<double[], FreeAligned>;

AlignedDoubles aligned_doubles(size_t count) {  // 64-byte aligned: a vector never straddles two lines
  const size_t bytes = (count * sizeof(double) + 63) / 64 * 64;
  auto* p = static_cast<double*>(std::aligned_alloc(64, bytes));
  if (p == nullptr) throw std::bad_alloc();
  return AlignedDoubles(p);
}

// A and |A| in blocks of kTileRows rows, [block][k][row], rows past M zero.
struct PackedA {
  AlignedDoubles a, a_abs;
  int blocks;
};

PackedA pack_a(const HalfMatrix& A) {
  const F64Matrix a = to_double(A);
  const int M = static_cast<int>(A.rows()), K = static_cast<int>(A.cols());
  PackedA p{nullptr, nullptr, (M + kTileRows - 1) / kTileRows};
  const size_t size = size_t(p.blocks) * kTileRows * K;
  p.a = aligned_doubles(size);
  p.a_abs = aligned_doubles(size);
  for (int block = 0; block < p.blocks; ++block)
    for (int k = 0; k < K; ++k)
      for (int r = 0; r < kTileRows; ++r) {
        const int i = block * kTileRows + r;
        const double v = i < M ? a(i, k) : 0.0;
        const size_t at = (size_t(block) * K + k) * kTileRows + r;
        p.a[at] = v;
        p.a_abs[at] = std::fabs(v);
      }
  return p;
}

// W^ rows [k0, k0 + depth) of columns [n0, n0 + width) into panel[strip][k][column], one scale
// group at a time; lowers each column's grid to that of the scales used.
void decode_panel(const SimdKernels& simd, const QuantizedWeights& w, int k0, int depth, int n0, int width,
                  double* panel, std::vector<int>& column_grid) {
  const int group_rows = is_per_column(w.group) ? w.K() : w.group;
  for (int strip = 0; strip < width / kStrip; ++strip) {
    const int j0 = n0 + strip * kStrip;
    for (int k = k0; k < k0 + depth;) {
      const int g = k / group_rows, end = std::min(k0 + depth, (g + 1) * group_rows);
      for (int c = 0; c < kStrip; ++c)
        column_grid[j0 + c] = std::min(column_grid[j0 + c], weight_grid(w.scales(g, j0 + c), w.group));
      simd.decode(&w.codes(k, j0), w.N(), end - k, &w.scales(g, j0), w.group,
                  panel + (size_t(strip) * kDepth + (k - k0)) * kStrip);
      k = end;
    }
  }
}

}  // namespace

Float64Products float64_products(const HalfMatrix& A, const QuantizedWeights& w) {
  const int M = static_cast<int>(A.rows()), N = w.N(), K = w.K();
  const SimdKernels simd = simd_kernels();
  const PackedA packed = pack_a(A);
  F64Matrix y = F64Matrix::Zero(packed.blocks * kTileRows, N), S = F64Matrix::Zero(packed.blocks * kTileRows, N);
  std::vector<int> column_grid(N, kNoGrid);
  const int column_blocks = (N + kWidth - 1) / kWidth;
  [[maybe_unused]] const bool parallel = static_cast<double>(M) * N * K >= (1 << 22);  // below, a fork costs more than it saves
  const AlignedDoubles panels = aligned_doubles(size_t(omp_get_max_threads()) * kDepth * kWidth);  // one per thread
#pragma omp parallel if (parallel)
  {
    double* panel = panels.get() + size_t(omp_get_thread_num()) * kDepth * kWidth;
#pragma omp for schedule(dynamic)
    for (int block = 0; block < column_blocks; ++block) {
      const int n0 = block * kWidth, width = std::min(kWidth, N - n0);  // N % 64 == 0: whole strips
      for (int k0 = 0; k0 < K; k0 += kDepth) {
        const int depth = std::min(kDepth, K - k0);
        decode_panel(simd, w, k0, depth, n0, width, panel, column_grid);
        for (int rows = 0; rows < packed.blocks; ++rows) {
          const size_t a_at = (size_t(rows) * K + k0) * kTileRows;
          for (int strip = 0; strip < width / kStrip; ++strip) {
            const size_t c_at = size_t(rows) * kTileRows * N + n0 + strip * kStrip;
            simd.multiply(depth, &packed.a[a_at], &packed.a_abs[a_at], panel + size_t(strip) * kDepth * kStrip,
                          y.data() + c_at, S.data() + c_at, N);
          }
        }
      }
    }
  }
  return {y.topRows(M), S.topRows(M), std::move(column_grid), simd.name};
}

}  // namespace tc::gemm_parts
