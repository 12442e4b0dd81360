// The block's fp32 tile in shared memory (marlin_kernel.cuh): where the block reduction adds its warp
// rows' sums and the write-out reads them, with the geometry of the epilogue's passes over it.
#pragma once
#include <cuda_runtime.h>

#include "tilecheck/kernel/smem_layout.h"

namespace tc::device {

// Each row (PITCH floats, 32 bytes more than its columns) holds two planes: columns 8c .. 8c + 3 at
// 4c, columns 8c + 4 .. 8c + 7 at kHalfPlane + 4c, the second plane 16 bytes out of step. Then the
// block reduction's float2 stores (8 rows x 32 bytes per warp) and the write-out's float4 reads of
// 8-column chunks (8 lanes, consecutive chunks) each fall in distinct banks, with no shuffling of
// values between a thread's registers.
template <int M_BLOCKS, int N_BLOCKS, int PITCH>
struct Fp32Tile {
  static constexpr int kRows = 16 * M_BLOCKS;
  static constexpr int kCols = 16 * N_BLOCKS;
  static constexpr int kHalfPlane = kCols / 2 + 4;
  static_assert(PITCH % 32 == 8 && kHalfPlane + kCols / 2 <= PITCH, "the tile's planes fit its rows");
  // The epilogue's passes: thread tid takes 8-column chunk tid % kC8 of rows tid / kC8, + kCRowStep,
  // ... (fp16 in C: kC8 chunks a row), or float4 tid, tid + 256, ... of the fp32 partial sums.
  // Constant trip counts let a thread issue all its loads at once.
  static constexpr int kC8 = kCols / 8;
  static constexpr int kCRowStep = kThreads / kC8;
  static constexpr int kCIters = kRows / kCRowStep;
  static constexpr int kP4 = kRows * kCols / 4;  // float4 per tile of fp32 partial sums
  static constexpr int kPIters = kP4 / kThreads;
  static_assert(kThreads % kC8 == 0 && kRows % kCRowStep == 0 && kP4 % kThreads == 0,
                "the epilogue's passes split evenly over the threads");

  float* base;

  __device__ __forceinline__ float* chunk(int row, int c8) const { return base + row * PITCH + 4 * c8; }
  __device__ __forceinline__ float* at(int row, int col) const {
    return chunk(row, col / 8) + (col / 4 % 2) * kHalfPlane + col % 4;
  }
  __device__ __forceinline__ float4* float4_at(unsigned j) const {  // float4 j in row-major order
    return reinterpret_cast<float4*>(at(int(j / (kCols / 4)), int(4 * (j % (kCols / 4)))));
  }
  __device__ __forceinline__ void load(const float* c, float (&v)[8]) const {
    const float4 lo = *reinterpret_cast<const float4*>(c), hi = *reinterpret_cast<const float4*>(c + kHalfPlane);
    v[0] = lo.x, v[1] = lo.y, v[2] = lo.z, v[3] = lo.w, v[4] = hi.x, v[5] = hi.y, v[6] = hi.z, v[7] = hi.w;
  }
  __device__ __forceinline__ void store(float* c, const float (&v)[8]) const {
    *reinterpret_cast<float4*>(c) = make_float4(v[0], v[1], v[2], v[3]);
    *reinterpret_cast<float4*>(c + kHalfPlane) = make_float4(v[4], v[5], v[6], v[7]);
  }
};

}  // namespace tc::device
