// The kernel's dequantization of 4-bit codes (marlin_kernel.cuh), and where a column's per-column
// scale sits in the permuted scale row. Each reads its mutants (variants.h).
#pragma once
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "ptx.cuh"
#include "tilecheck/reference/scale_permutation.h"
#include "variants.h"

namespace tc::device {

// One packed word holds a lane's B fragments of one 16x16 tile (codes of rows
// r, r+1, r+8, r+9 of n8 blocks 0 and 1). OR-ing a nibble into the mantissa of 1024.0 gives
// 1024 + q exactly; subtracting 1024 + 8 leaves q - 8, exact in fp16. The nibble in bits 4-7 comes
// out as 1024 + 16q, so it is scaled by 1/16 and shifted by -(64 + 8), again exactly.
__device__ inline void dequantize_word(std::uint32_t word, std::uint32_t (&block0)[2], std::uint32_t (&block1)[2]) {
  constexpr std::uint32_t kMagic = 0x64006400;  // 1024.0 in both halves
  constexpr float kZero = mutant(kMutZeroPointSeven) ? 7.0f : 8.0f;
  const half2 sub = __float2half2_rn(1024.0f + kZero);
  const half2 mul = __float2half2_rn(1.0f / 16.0f);
  const half2 add = __float2half2_rn(-64.0f - kZero);
  const auto decode = [&](std::uint32_t v, std::uint32_t (&b)[2]) {
    const half2 low = __hsub2(half2_of(and_or(v, 0x000F000Fu, kMagic)), sub);        // rows r, r+1
    const half2 high = __hfma2(half2_of(and_or(v, 0x00F000F0u, kMagic)), mul, add);  // rows r+8, r+9
    b[0] = bits_of(mutant(kMutNibbleSwap) ? high : low);
    b[1] = bits_of(mutant(kMutNibbleSwap) ? low : high);
  };
  decode(word, block0);
  decode(word >> 8, block1);
}

// The same for bf16, whose 7 fraction bits cannot hold a nibble at bits 4-7 under 128.0's exponent:
// each nibble is shifted to bits 0-3 first. OR-ed into 128.0 it gives 128 + q exactly; subtracting
// 128 + 8 leaves q - 8, exact in bf16 (8 significant bits).
__device__ inline void dequantize_word_bf16(std::uint32_t word, std::uint32_t (&block0)[2], std::uint32_t (&block1)[2]) {
  constexpr std::uint32_t kMagic = 0x43004300;  // 128.0 in both halves
  constexpr float kZero = mutant(kMutZeroPointSeven) ? 7.0f : 8.0f;
  const __nv_bfloat162 sub = __float2bfloat162_rn(128.0f + kZero);
  const auto as_pair = [](std::uint32_t u) { return *reinterpret_cast<__nv_bfloat162*>(&u); };
  const auto as_bits = [](__nv_bfloat162 p) { return *reinterpret_cast<std::uint32_t*>(&p); };
  const auto decode = [&](std::uint32_t v, std::uint32_t (&b)[2]) {
    const __nv_bfloat162 low = __hsub2(as_pair(and_or(v, 0x000F000Fu, kMagic)), sub);        // rows r, r+1
    const __nv_bfloat162 high = __hsub2(as_pair(and_or(v >> 4, 0x000F000Fu, kMagic)), sub);  // rows r+8, r+9
    b[0] = as_bits(mutant(kMutNibbleSwap) ? high : low);
    b[1] = as_bits(mutant(kMutNibbleSwap) ? low : high);
  };
  decode(word, block0);
  decode(word >> 8, block1);
}

// uint4 with zero points (AWQ), fp16 or bf16 (Pair): w = q - z. `zeros` holds n8 block 0's zero
// point in bits 0-3 and block 1's in bits 16-19 (zero_points.cuh). Code and zero point nibbles alike
// are OR-ed into the mantissa of `magic` (1024.0 for fp16, 128.0 for bf16, both halves), so
// (magic + q) - (magic + z) = q - z, exact in either type (|q - z| <= 15). Codes in dequantize_word's
// order, each nibble shifted to bits 0-3 as for bf16. Mutant 18 reads z + 1 (16 still fits).
template <typename Pair>
__device__ inline void dequantize_word_zp(std::uint32_t word, std::uint32_t zeros, std::uint32_t magic,
                                          std::uint32_t (&block0)[2], std::uint32_t (&block1)[2]) {
  std::uint32_t z = zeros & 0x000F000Fu;
  if constexpr (mutant(kMutZeroPointOffByOne)) z += 0x00010001u;
  z |= magic;
  const auto as_pair = [](std::uint32_t u) { return *reinterpret_cast<Pair*>(&u); };
  const auto as_bits = [](Pair p) { return *reinterpret_cast<std::uint32_t*>(&p); };
  const auto decode = [&](std::uint32_t v, std::uint32_t magic_z, std::uint32_t (&b)[2]) {
    const Pair sub = as_pair(magic_z);
    b[0] = as_bits(__hsub2(as_pair(and_or(v, 0x000F000Fu, magic)), sub));       // rows r, r+1
    b[1] = as_bits(__hsub2(as_pair(and_or(v >> 4, 0x000F000Fu, magic)), sub));  // rows r+8, r+9
  };
  decode(word, __byte_perm(z, 0, 0x1010), block0);       // block 0's zero point in both halves
  decode(word >> 8, __byte_perm(z, 0, 0x3232), block1);  // block 1's
}

// Position of natural column `c` of a tile in the permuted per-column scale row; the mutant reads
// it with the grouped permutation instead.
__device__ inline int column_scale_slot(int c) {
  if constexpr (mutant(kMutWrongColumnPermutation)) return scale_permutation::grouped_position(c);
  return scale_permutation::per_column_position(c);
}

}  // namespace tc::device
