// The block reduction (marlin_kernel.cuh's thread_block_reduce): the warp rows that split a tile's
// K add their accumulators into the block's fp32 tile, one warp row after another.
#pragma once
#include <cuda_runtime.h>

#include "static_loops.cuh"
#include "tilecheck/reference/mma_layout.h"

namespace tc::device {

// Warp row 0 stores its sums, each later row adds its own, in order, a barrier after each: every sum
// of the tile is the same additions in the same order whatever the timing. Every thread calls it.
// The indices come by reference, as a lambda in the kernel would capture them: by value, the sm_90
// code of four instantiations differs in one compare's operand order (the machine code is kept
// byte-identical to the inline version this replaced).
template <int WARP_ROWS, int M_BLOCKS, typename Tile>
__device__ __forceinline__ void thread_block_reduce(const float (&acc)[M_BLOCKS][4][2][4], const Tile& sums,
                                                    const int& warp_row, const int& warp_col, const unsigned& utid) {
  const int ulane = int(utid % 32);  // lane, known to the compiler as non-negative
  for (int r = 0; r < WARP_ROWS; ++r) {
    if (warp_row == r) {
      for_each_accumulator<M_BLOCKS, 2>([&](int mb, int tile, int b, int i) {  // i, i + 1: adjacent columns
        const int row = mb * 16 + mma::accumulator_row(ulane, i);
        const int c8 = warp_col * (mma::kWarpTileCols / 8) + tile * 2 + b;
        const int col = mma::accumulator_col(ulane, i);  // 0 .. 7 within the chunk
        float2* dst = reinterpret_cast<float2*>(sums.chunk(row, c8) + (col / 4) * Tile::kHalfPlane + col % 4);
        const float2 v = make_float2(acc[mb][tile][b][i], acc[mb][tile][b][i + 1]);
        if (r == 0) {
          *dst = v;
        } else {
          const float2 old = *dst;
          *dst = make_float2(old.x + v.x, old.y + v.y);
        }
      });
    }
    __syncthreads();
  }
}

}  // namespace tc::device
