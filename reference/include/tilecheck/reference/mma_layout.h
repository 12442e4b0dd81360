// Where mma.sync m16n8k16 keeps its fp32 accumulators, shared by the kernel (block reduction,
// accumulator dump) and the host (tc::locate and the error map name each output element's lane and
// register), so the two cannot drift apart.
//
// The 16x8 accumulator tile is spread over the 32 lanes of a warp, four registers c0..c3 per lane:
// lane l holds rows l/4 and l/4 + 8, columns 2*(l%4) and 2*(l%4) + 1, as
//   c0 (row l/4,     col 2*(l%4))     c1 (row l/4,     col 2*(l%4) + 1)
//   c2 (row l/4 + 8, col 2*(l%4))     c3 (row l/4 + 8, col 2*(l%4) + 1)
// The kernel's warps tile a thread block's columns 64 at a time: one warp column holds four n16
// tiles of two n8 mma blocks each.
#pragma once

#include "tilecheck/reference/host_device.h"

namespace tc {
namespace mma {

constexpr int kLanes = 32;
constexpr int kAccumulatorRows = 16;
constexpr int kAccumulatorCols = 8;
constexpr int kAccumulatorRegs = 4;
constexpr int kWarpTileCols = 64;  // columns of the block tile per warp column

// (lane, register) -> (row, col) of the 16x8 accumulator tile.
TC_HOST_DEVICE constexpr int accumulator_row(int lane, int reg) { return lane / 4 + 8 * (reg / 2); }
TC_HOST_DEVICE constexpr int accumulator_col(int lane, int reg) { return 2 * (lane % 4) + reg % 2; }

// (row, col) of the 16x8 accumulator tile -> (lane, register); the inverse of the two above. Host
// only: the kernel goes from its registers to positions, never back.
constexpr int accumulator_lane(int row, int col) { return 4 * (row % 8) + col / 2; }
constexpr int accumulator_reg(int row, int col) { return col % 2 + 2 * (row / 8); }

}  // namespace mma
}  // namespace tc
