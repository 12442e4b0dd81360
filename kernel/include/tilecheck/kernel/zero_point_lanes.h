// Where a lane of the kernel finds its zero points in the ABI's packed rows (tilecheck/plugin/plugin.h,
// tilecheck/reference/zero_points.h), shared by the kernel (kernel/src/zero_points.cuh) and the host
// test that checks it against the reference packing (tests/kernel/zero_point_lanes_test.cpp), so
// the two cannot drift apart.
//
// A lane reads the B fragments of column lane/4 of the eight n8 blocks j of its warp's 64 columns
// (tilecheck/reference/marlin_format.h). Zero point packing puts column n at p = the grouped scale
// permutation of n, word p/8, nibble 4*(p%2) + (p%8)/2; for those eight columns p%8 = j and
// p/8 = 8*warp_col + lane/4 within the tile: one word, block j in nibble 4*(j%2) + j/2. n16 tile t
// (blocks 2t, 2t+1) thus has block 2t in nibble t and block 2t+1 in nibble 4 + t.
#pragma once

#include "tilecheck/reference/host_device.h"

namespace tc {
namespace zero_point_lanes {

// The word of a tile's row of zero points (2 * n_blocks words) that holds the lane's eight.
TC_HOST_DEVICE constexpr int word(int warp_col, int lane) { return 8 * warp_col + lane / 4; }
// The right shift of that word that brings n16 tile t's block-0 zero point to bits 0-3; its
// block-1 zero point is then in bits 16-19.
TC_HOST_DEVICE constexpr int shift(int tile) { return 4 * tile; }

}  // namespace zero_point_lanes
}  // namespace tc
