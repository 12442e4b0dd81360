// The packed format of 8-bit codes (uint8b128) as the plugin ABI 2 hands them to a kernel
// (tilecheck/plugin/plugin.h, docs/plugin.md): the 4-bit format's fragment order
// (tilecheck/reference/marlin_format.h), four codes a word instead of eight.
//
// Packed B: int32 (K/16, 4N). Row kb holds the 16-deep K slab [16kb, 16kb+16). Within a row, each
// 64-column chunk takes 256 words; for n16 tile j of the chunk, mma lane `lane` (r = 2*(lane%4),
// column lane/4 of n8 block b) and b in {0, 1}, word 8*lane + 2*j + b holds
//   byte:  0    1     2     3
//   code:  b:r  b:r8  b:r1  b:r9
// so bytes {0, 2} are rows (r, r+1), the first half2 of the lane's B fragment, and bytes {1, 3}
// rows (r+8, r+9), the second: the byte order 0 2 1 3 that vLLM's 8-bit interleave names
// (shared/research/formats.md). A lane's eight words for its four tiles are two 16-byte loads.
#pragma once
#include "tilecheck/reference/matrix.h"

namespace tc {

struct BytePosition {
  int row;   // packed row: k / 16
  int col;   // packed column (int32 word) in [0, 4N)
  int byte;  // 0..3, bits [8*byte, 8*byte + 8)
};

BytePosition packed_position_8bit(int k, int n);        // where code (k, n) lives
PackedMatrix pack_weights_8bit(const CodeMatrix& codes);   // (K, N) codes 0..255 -> (K/16, 4N)
CodeMatrix unpack_weights_8bit(const PackedMatrix& packed);  // exact inverse

}  // namespace tc
