// Striped partition arithmetic, shared by the kernel (device) and the schedule model (host), so the
// two cannot drift apart. Plain integer functions, no dependencies.
//
// A launch has `columns` = n_tiles * par output columns of tiles, each k_tiles deep. Tile t is
// (column t / k_tiles, k-tile t % k_tiles). Block b owns the stripe [iters*b, iters*(b+1)); a stripe
// can span several columns ("slices"). Blocks that share a column reduce their partial sums in a
// fixed order: the block with the deepest k-tiles first, the block that holds k-tile 0 last (it
// arrives last, having finished its previous column first). The last block writes the output.
#pragma once

#include "tilecheck/reference/host_device.h"

namespace tc {
namespace stripe {

TC_HOST_DEVICE inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

// k-tiles per block. When a scale group spans several k-tiles, round up to whole groups so that
// every stripe starts on a group boundary (K % group == 0 makes k_tiles a multiple too).
TC_HOST_DEVICE inline int iters_per_block(int k_tiles, int columns, int grid, int k_blocks,
                                          int group_blocks) {
  int iters = ceil_div(k_tiles * columns, grid);
  if (group_blocks > k_blocks) {
    const int tiles_per_group = group_blocks / k_blocks;
    iters = ceil_div(iters, tiles_per_group) * tiles_per_group;
  }
  return iters;
}

TC_HOST_DEVICE inline int first_block(int column, int k_tiles, int iters) {
  return column * k_tiles / iters;
}
TC_HOST_DEVICE inline int final_block(int column, int k_tiles, int iters) {
  return ((column + 1) * k_tiles - 1) / iters;
}
// Position of `block` in the column's reduction order: 0 goes first, slice_count - 1 is last.
TC_HOST_DEVICE inline int slice_index(int block, int column, int k_tiles, int iters) {
  return final_block(column, k_tiles, iters) - block;
}
TC_HOST_DEVICE inline int slice_count(int column, int k_tiles, int iters) {
  return final_block(column, k_tiles, iters) - first_block(column, k_tiles, iters) + 1;
}

}  // namespace stripe
}  // namespace tc
