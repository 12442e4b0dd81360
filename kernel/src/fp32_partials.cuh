// The global reduction's fp32 partials (the fp32 contract): each thread block has one tile of fp32
// sums in the workspace; the block before this one in a column's order (block + 1) left its running
// sum in its slot. Called by every thread of the block, between taking the column's lock and
// handing it on (marlin_kernel.cuh).
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kernel_args.h"  // kAccDump
#include "tilecheck/kernel/smem_layout.h"
#include "variants.h"

namespace tc::device {

template <typename Tile>
__device__ __forceinline__ float4* partials_slot(const KernelArgs& args, unsigned block, const unsigned& utid) {
  return reinterpret_cast<float4*>(args.partials) + block * Tile::kP4 + utid;
}

template <typename Tile>
__device__ __forceinline__ void store_partial(const KernelArgs& args, const unsigned& utid, int i, float4 v) {
  if constexpr (mutant(kMutFp16Partials)) {
    v = make_float4(__half2float(__float2half_rn(v.x)), __half2float(__float2half_rn(v.y)),
                    __half2float(__float2half_rn(v.z)), __half2float(__float2half_rn(v.w)));
  }
  __stcg(partials_slot<Tile>(args, blockIdx.x, utid) + i * kThreads, v);
}

// The running sum of the blocks before this one (none for the first slice) plus this block's tile:
// kept in the tile where the write-out (last) or the dump reads it, stored to this block's slot for
// the next block (not last). One pass, every load issued first, each sum stored straight from
// registers. Indices by reference, as the lambdas this replaced captured them (same machine code).
template <typename Tile>
__device__ __forceinline__ void add_fp32_partials(const KernelArgs& args, const Tile& sums, const unsigned& utid,
                                                  const int& slice_idx, const bool& last) {
  if (slice_idx > 0) {
    const float4* const prev = partials_slot<Tile>(args, blockIdx.x + 1, utid);
    float4 p[Tile::kPIters];
#pragma unroll
    for (int i = 0; i < Tile::kPIters; ++i) p[i] = __ldcg(prev + i * kThreads);
#pragma unroll
    for (int i = 0; i < Tile::kPIters; ++i) {
      float4* const sum = sums.float4_at(utid + i * kThreads);
      const float4 t = *sum;
      const float4 v = make_float4(t.x + p[i].x, t.y + p[i].y, t.z + p[i].z, t.w + p[i].w);
      if (last || kAccDump) *sum = v;
      if (!last) store_partial<Tile>(args, utid, i, v);
    }
  } else if (!last) {
#pragma unroll
    for (int i = 0; i < Tile::kPIters; ++i) store_partial<Tile>(args, utid, i, *sums.float4_at(utid + i * kThreads));
  }
  if (last) __syncthreads();  // the write-out reads the sums in another order
}

// After the hand-over: the slot this block read is read by no one else this launch (each block writes
// its slot once, in its first slice), so it is cleared here, off the chain's critical path, and the
// workspace is left zeroed (the plugin ABI) without the next block waiting for these stores.
template <typename Tile>
__device__ __forceinline__ void clear_read_partials(const KernelArgs& args, const unsigned& utid) {
  float4* const prev = partials_slot<Tile>(args, blockIdx.x + 1, utid);
#pragma unroll
  for (int i = 0; i < Tile::kPIters; ++i) __stcg(prev + i * kThreads, make_float4(0, 0, 0, 0));
}

}  // namespace tc::device
