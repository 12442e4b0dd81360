// The cp.async pipeline's depth, chosen per launch: the full depth (smem_layout.h: 6 stages where
// they fit) or, where every block sums a short stripe, a shallower instance of the same kernel.
// Shared by the dispatch (kernel/src/kernel_table.h, host_api.cu) and the CPU tests that check
// which instance a cell runs (tests/kernel/pipeline_depth_test.cpp, the sanitizer's reduced matrix).
#pragma once

#include "tilecheck/reference/schedule.h"
#include "tilecheck/reference/stripe.h"

namespace tc {

// Why two depths: a block whose stripe is one slice of 8 k-tiles spends its time waiting for the
// slice's first stage while all 6 of every block's stages load at once; with 4 in flight the
// first lands sooner (4096², M = 1, 128 x 128 tile: 9.96 -> 9.60 us, level with upstream Marlin's
// 4 stages), while slices of 32 k-tiles and more lose 4-14 % at 4 stages (8192², M = 1: 13.66 ->
// 14.24 us). Measured: docs/results/pipeline-depth-2026-12-01-run62/. Stripes between 8 and 32
// k-tiles keep the full depth (not measured).
constexpr int kShortSliceStages = 4;
constexpr int kShortSliceIters = 8;  // k-tiles per block, at most

// The tile that runs short stripes: 128 x 128 with one m-block, our choice at N <= 8192 and M <= 16
// (configs.h). The other tiles have no shallow instance (it would be compiled for nothing).
constexpr bool has_short_slice_instance(const TileConfig& c) {
  return c.m_blocks == 1 && c.n_blocks == 8 && c.k_blocks == 8;
}

// Whether the launch of `c` (with this launch's m_blocks) over `par` chunks of rows of an N x K
// problem on `grid` blocks runs the shallow instance.
inline bool runs_short_slices(const TileConfig& c, int N, int K, int par, int grid) {
  if (!has_short_slice_instance(c)) return false;
  const int k_tiles = K / c.tile_k();
  const int columns = N / c.tile_n() * par;
  return stripe::iters_per_block(k_tiles, columns, grid, c.k_blocks, c.group_blocks) <= kShortSliceIters;
}

}  // namespace tc
