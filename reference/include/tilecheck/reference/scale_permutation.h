// The column order of Marlin's permuted scales, shared by the format code (tc::permute_scales) and
// the kernel's epilogue (which looks up a column's per-column scale by its permuted position), so
// the two cannot drift apart. Each function gives the position of natural column n in the permuted
// row; both permute within fixed chunks, so any N that is a multiple of 64 works.
//   grouped:    per 64 columns new[8i + j] = old[i + 8j], an 8x8 transpose: a lane reads the scales
//               of its column in all eight n8 blocks of its warp with one 16-byte load
//   per-column: per 32 columns new[8i + m] = old[2i + {0,1,8,9,16,17,24,25}[m]], the accumulator
//               fragment order (tilecheck/reference/mma_layout.h)
#pragma once

#include "tilecheck/reference/host_device.h"

namespace tc {
namespace scale_permutation {

TC_HOST_DEVICE constexpr int grouped_position(int n) {
  const int c = n % 64;
  return n - c + 8 * (c % 8) + c / 8;
}

TC_HOST_DEVICE constexpr int per_column_position(int n) {
  const int c = n % 32;
  return n - c + 8 * ((c % 8) / 2) + 2 * (c / 8) + c % 2;
}

}  // namespace scale_permutation
}  // namespace tc
