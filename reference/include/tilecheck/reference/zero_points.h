// Per-group zero points (uint4, AWQ) packed as the plugin ABI 2 hands them to a kernel, vLLM's
// Marlin layout (shared/research/formats.md, "Zero-point layout"): int32 (G, N/8).
//   1. column n moves to p, the grouped scale permutation of n (an 8x8 transpose within each 64
//      columns, tc::scale_permutation::grouped_position), for per-column zero points too;
//   2. each 8 positions are interleaved 0 2 4 6 1 3 5 7: nibble i of word p/8 holds position
//      8*(p/8) + {0,2,4,6,1,3,5,7}[i], so position p is in nibble 4*(p%2) + (p%8)/2.
// Word 0 of a row thus holds columns 0 16 32 48 8 24 40 56 in nibbles 0..7: (w & 0x000f000f) the
// zero points of columns 0 and 8, n8 blocks 0 and 1 at one lane's column, as the codes' nibbles
// (tilecheck/reference/marlin_format.h) pair blocks 0 and 1.
#pragma once
#include "tilecheck/reference/matrix.h"

namespace tc {

struct ZeroPointPosition {
  int word;    // in [0, N/8) of the zero points' row
  int nibble;  // 0..7
};

ZeroPointPosition packed_zero_point_position(int n);
PackedMatrix pack_zero_points(const CodeMatrix& zero_points);   // (G, N) 0..15 -> (G, N/8)
CodeMatrix unpack_zero_points(const PackedMatrix& packed);      // exact inverse

}  // namespace tc
