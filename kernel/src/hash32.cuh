// The delay builds' draws (delays.cuh for our kernel, plugins/delay-kit for a foreign one): a 32-bit
// integer hash, murmur3's finaliser, so that neighbouring inputs (blocks, warps, passes) give
// unrelated sleeps.
#pragma once
#include <cstdint>

namespace tc::device {

__device__ __forceinline__ std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  return x ^ (x >> 16);
}

}  // namespace tc::device
