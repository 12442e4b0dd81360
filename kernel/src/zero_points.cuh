// The uint4 instances' zero points (marlin_kernel.cuh): where a thread copies them from and where a
// lane finds its own. The ABI hands them packed (tilecheck/plugin/plugin.h, reference/zero_points.h):
//   zero_points: (G, N/8) int32; column n at word p/8, nibble 4*(p%2) + (p%8)/2 of its group's row,
//   p = the grouped scale permutation of n (also for per-column zero points, G = 1).
// A lane's eight columns in its warp's 64 are one word of the row, and n16 tile t's two zero points
// are bits 0-3 and 16-19 of it shifted (tilecheck/kernel/zero_point_lanes.h): what
// dequantize_word_zp takes.
// Grouped: each stage's rows are copied with cp.async into the stage's own zero-point slot, beside its
// scale slot and never in the reduction scratch (smem_layout.h), and move on as the scales do.
// Per column: the one row is read once per slice, straight into a register.
// ZeroPoints<false, ...> is empty: the uint4b8 instances compile as they did without it.
#pragma once
#include <cstdint>

#include "kernel_args.h"
#include "ptx.cuh"
#include "tilecheck/kernel/zero_point_lanes.h"

namespace tc::device {

template <bool ZP, int N_BLOCKS, int K_BLOCKS, int GROUP_BLOCKS>
class ZeroPoints {  // no zero points: nothing to copy, nothing to hold
 public:
  __device__ ZeroPoints(const KernelArgs&, int, int, unsigned) {}
  __device__ void fetch(const KernelArgs&, int4*, int, bool, int) {}
};

template <int N_BLOCKS, int K_BLOCKS, int GROUP_BLOCKS>
class ZeroPoints<true, N_BLOCKS, K_BLOCKS, GROUP_BLOCKS> {
  static constexpr bool kPerColumn = GROUP_BLOCKS < 0;
  static constexpr int kRow = N_BLOCKS / 2;  // int4 per row of a tile's zero points: 16*N_BLOCKS nibbles
  static constexpr int kRows = GROUP_BLOCKS > 0 && GROUP_BLOCKS < K_BLOCKS ? K_BLOCKS / GROUP_BLOCKS : 1;
  static constexpr int kGroupTiles = GROUP_BLOCKS > K_BLOCKS ? GROUP_BLOCKS / K_BLOCKS : 1;

 public:
  static constexpr int kSlot = kRows * kRow;  // int4 per stage's slot; also the copying threads

  // From the slice's first k-tile `k_begin`: thread utid copies chunk utid % kRow of group row
  // utid / kRow of each fetch (as the group scales: every slice starts on a group boundary).
  __device__ ZeroPoints(const KernelArgs& args, int k_begin, int n_tile, unsigned utid) {
    const int first_group = kPerColumn ? 0 : k_begin * K_BLOCKS / GROUP_BLOCKS + int(utid / kRow);
    src_ = first_group * (args.N / 32) + n_tile * kRow + int(utid % kRow);
  }

  // Grouped: this thread's chunk of the next k-tile's zero points into `slot` (its stage's), in the
  // stage's copy group; then on to the next fetch's rows, as the scales move (`phase`: the fetched
  // k-tile's place in its group).
  __device__ void fetch(const KernelArgs& args, int4* slot, int tid, bool issue, int phase) {
    if constexpr (!kPerColumn) {
      const int row = args.N / 32;  // int4 per row of zero points: N/8 words
      cp_async16_if(issue && tid < kSlot, slot + tid, args.zero_points + src_, true);
      if constexpr (GROUP_BLOCKS <= K_BLOCKS) {
        src_ += (K_BLOCKS / GROUP_BLOCKS) * row;
      } else if (phase == kGroupTiles - 1) {
        src_ += row;
      }
    }
  }

  // Grouped: this lane's word of group row q in a stage's slot, once the stage has landed.
  static __device__ std::uint32_t word(const int4* slot, int q, int warp_col, int lane) {
    return reinterpret_cast<const std::uint32_t*>(slot + q * kRow)[zero_point_lanes::word(warp_col, lane)];
  }

  // Per column: this lane's word of tile n_tile, read from global memory.
  static __device__ std::uint32_t column_word(const KernelArgs& args, int n_tile, int warp_col, int lane) {
    const auto* words = reinterpret_cast<const std::uint32_t*>(args.zero_points);
    return __ldg(words + n_tile * 2 * N_BLOCKS + zero_point_lanes::word(warp_col, lane));
  }

 private:
  int src_;  // this thread's next chunk, in int4 from args.zero_points (an offset: one register, not two)
};

}  // namespace tc::device
