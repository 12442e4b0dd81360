// The write-out (marlin_kernel.cuh): one pass over this thread's 8-column chunks of the block's fp32
// tile. Under the marlin contract the running sum in C (C's type) of the blocks before is added, then
// handed on (not last); the last block applies the epilogue and writes C. Called by every thread.
#pragma once
#include <cstddef>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "delays.cuh"
#include "kernel_args.h"
#include "tilecheck/reference/scale_permutation.h"
#include "variants.h"

namespace tc::device {

// Every load of the running sum is issued before the first is used. The slice's values come by
// reference, as a lambda in the kernel would capture them.
template <bool PER_COLUMN, typename E, typename Tile, typename DelaySeam>
__device__ __forceinline__ void write_out(const KernelArgs& args, const Tile& sums, const int4* const& sh_col_s,
                                          DelaySeam& delays, const unsigned& utid, const int& row0, const int& n_tile,
                                          const int& rows_valid, const int& s_row, const bool& last,
                                          const bool& marlin_sum, const bool& fp32_partials) {
  const int c8 = int(utid % Tile::kC8);
  const int write_rows = !last ? rows_valid : mutant(kMutNoRowPredicate) ? Tile::kRows : rows_valid;
  int4* const c_first = args.C + (row0 + int(utid / Tile::kC8)) * s_row + n_tile * Tile::kC8 + c8;
  const std::ptrdiff_t c_step = std::ptrdiff_t(Tile::kCRowStep) * s_row;  // int4 between a thread's rows of C
  int4 p[Tile::kCIters];  // the running sum, every load issued before the first is used
  const int4* src = c_first;
#pragma unroll
  for (int i = 0; i < Tile::kCIters; ++i, src += c_step) {
    p[i] = make_int4(0, 0, 0, 0);  // defined for rows past rows_valid too (never used)
    if (marlin_sum && int(utid / Tile::kC8) + i * Tile::kCRowStep < rows_valid) p[i] = __ldcg(src);
  }
  [[maybe_unused]] typename E::Pair scale[4];  // per column: this thread's eight columns keep their scales
  if constexpr (PER_COLUMN) {
    if (last) {
      const typename E::Scalar* col_s = reinterpret_cast<const typename E::Scalar*>(sh_col_s);
#pragma unroll
      for (int e = 0; e < 4; ++e)
        scale[e] = E::join(E::scale(col_s[column_scale_slot(8 * c8 + 2 * e)]),
                           E::scale(col_s[column_scale_slot(8 * c8 + 2 * e + 1)]));
    }
  }
  int4* dst = c_first;
  delays.at(DelaySite::write_out);  // before this warp reads the staged tile
#pragma unroll
  for (int i = 0; i < Tile::kCIters; ++i, dst += c_step) {
    const int r = int(utid / Tile::kC8) + i * Tile::kCRowStep;
    if (r >= write_rows) continue;
    float* const chunk = sums.chunk(r, c8);
    float v[8];
    sums.load(chunk, v);
    if (marlin_sum && r < rows_valid) {
      const typename E::Pair* h = reinterpret_cast<const typename E::Pair*>(&p[i]);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float2 f = E::widen(h[e]);
        v[2 * e] += f.x, v[2 * e + 1] += f.y;
      }
      if constexpr (kAccDump) sums.store(chunk, v);  // the dump reads the running sum
    }
    int4 out;
    typename E::Pair* const h2 = reinterpret_cast<typename E::Pair*>(&out);
    if (!last) {  // marlin: the running sum handed on in C's type
#pragma unroll
      for (int e = 0; e < 4; ++e) h2[e] = E::round(v[2 * e], v[2 * e + 1]);
      __stcg(dst, out);
      continue;
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      float x0 = v[2 * e], x1 = v[2 * e + 1];
      if (PER_COLUMN && !fp32_partials) {  // marlin: round, then scale in C's type
        h2[e] = E::mul(E::round(x0, x1), scale[e]);
        continue;
      }
      if constexpr (PER_COLUMN) {  // fp32: scale in fp32, round once
        const float2 s = E::widen(scale[e]);
        x0 *= s.x, x1 *= s.y;
      }
      h2[e] = mutant(kMutRoundTowardZero) ? E::round_toward_zero(x0, x1) : E::round(x0, x1);
    }
    *dst = out;
  }
}

}  // namespace tc::device
