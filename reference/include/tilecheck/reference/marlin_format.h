// The Marlin packed weight format and scale permutations (for plugin authors: docs/plugin.md).
//
// Packed B: int32 (K/16, 2N). Row kb holds the 16-deep K slab [16kb, 16kb+16). Within a row, each
// 64-column chunk c takes 128 words; word 4*lane + j of the chunk holds, for n16 tile j of the chunk
// and mma lane `lane`, the eight codes of that lane's m16n8k16 B fragments: K rows r, r+1, r+8, r+9
// (r = 2*(lane%4)) at column lane/4 of n8 block 0 and of n8 block 1. Nibble order in the word:
//   nibble: 0     1     2     3     4     5     6     7
//   code:   b0:r  b0:r8 b1:r  b1:r8 b0:r1 b0:r9 b1:r1 b1:r9
// so (w & 0x000f000f) holds block 0 rows (r, r+1), (w & 0x00f000f0) rows (r+8, r+9), and w >> 8 the
// same for block 1. A thread loads its four words (one per tile) as one 16-byte vector.
//
// Scales: grouped, each 64-column chunk is transposed as 8x8 (new[8i+j] = old[i+8j]) so a lane reads
// the scales of its column in all eight n8 blocks with one 16-byte load; per-column, each 32-column
// chunk is ordered new[8i+m] = old[2i + {0,1,8,9,16,17,24,25}[m]], the accumulator fragment order.
// The orders themselves live in tilecheck/reference/scale_permutation.h, shared with the kernel.
#pragma once
#include "tilecheck/reference/matrix.h"

namespace tc {

struct NibblePosition {
  int row;     // packed row: k / 16
  int col;     // packed column (int32 word) in [0, 2N)
  int nibble;  // 0..7, bits [4*nibble, 4*nibble + 4)
};

NibblePosition packed_position(int k, int n);   // where code (k, n) lives
PackedMatrix pack_weights(const CodeMatrix& codes);      // (K, N) -> (K/16, 2N)
CodeMatrix unpack_weights(const PackedMatrix& packed);   // exact inverse

int permuted_scale_column(int n, int group);  // column of scale n after permutation (same row)
HalfMatrix permute_scales(const HalfMatrix& scales, int group);
HalfMatrix unpermute_scales(const HalfMatrix& permuted, int group);

}  // namespace tc
