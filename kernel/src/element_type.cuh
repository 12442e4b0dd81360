// The kernel's 16-bit element type: A, the scales, C and, under the marlin contract, the partial
// sums handed on in C are all fp16 or all bf16 (plugin ABI 2's formats fp16-uint4b8, bf16-uint4b8, and
// with zero points fp16-uint4, bf16-uint4).
// Element<BF16> names the operations the kernel does on a pair of them; each is one intrinsic, so
// the fp16 kernel compiles to the code it had before the type became a parameter.
#pragma once
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "dequantize.cuh"
#include "ptx.cuh"
#include "variants.h"

namespace tc::device {

template <bool BF16>
struct Element;

template <>
struct Element<false> {
  using Scalar = __half;
  using Pair = half2;
  static __device__ __forceinline__ Pair pair(std::uint32_t u) { return half2_of(u); }
  static __device__ __forceinline__ std::uint32_t bits(Pair p) { return bits_of(p); }
  static __device__ __forceinline__ Pair scales(std::uint32_t u) { return half2_of(u); }
  static __device__ __forceinline__ Scalar scale(Scalar s) { return s; }
  static __device__ __forceinline__ Pair low2(Pair p) { return __low2half2(p); }
  static __device__ __forceinline__ Pair high2(Pair p) { return __high2half2(p); }
  static __device__ __forceinline__ Pair mul(Pair a, Pair b) { return __hmul2(a, b); }
  static __device__ __forceinline__ Pair join(Scalar a, Scalar b) { return __halves2half2(a, b); }
  static __device__ __forceinline__ Pair round(float a, float b) { return __floats2half2_rn(a, b); }
  static __device__ __forceinline__ Pair round_toward_zero(float a, float b) {
    return __halves2half2(__float2half_rz(a), __float2half_rz(b));
  }
  static __device__ __forceinline__ float2 widen(Pair p) { return __half22float2(p); }
  static __device__ __forceinline__ void dequantize(std::uint32_t word, std::uint32_t (&b0)[2], std::uint32_t (&b1)[2]) {
    dequantize_word(word, b0, b1);
  }
  static __device__ __forceinline__ void dequantize_zp(std::uint32_t word, std::uint32_t zeros, std::uint32_t (&b0)[2],
                                                       std::uint32_t (&b1)[2]) {
    dequantize_word_zp<Pair>(word, zeros, 0x64006400u, b0, b1);  // 1024.0
  }
  static __device__ __forceinline__ void mma(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
    mma_m16n8k16(c, a, b);
  }
};

template <>
struct Element<true> {
  using Scalar = __nv_bfloat16;
  using Pair = __nv_bfloat162;
  static __device__ __forceinline__ Pair pair(std::uint32_t u) { return *reinterpret_cast<Pair*>(&u); }
  static __device__ __forceinline__ std::uint32_t bits(Pair p) { return *reinterpret_cast<std::uint32_t*>(&p); }
  // A pair of scales as read from shared memory (mutant 16 passes them through fp16 first).
  static __device__ __forceinline__ Pair scales(std::uint32_t u) {
    const Pair s = pair(u);
    if constexpr (!mutant(kMutBf16ScaleThroughFp16)) return s;
    const float2 f = __half22float2(__float22half2_rn(__bfloat1622float2(s)));
    return __floats2bfloat162_rn(f.x, f.y);
  }
  static __device__ __forceinline__ Scalar scale(Scalar s) {
    if constexpr (!mutant(kMutBf16ScaleThroughFp16)) return s;
    return __float2bfloat16(__half2float(__float2half_rn(__bfloat162float(s))));
  }
  static __device__ __forceinline__ Pair low2(Pair p) { return __low2bfloat162(p); }
  static __device__ __forceinline__ Pair high2(Pair p) { return __high2bfloat162(p); }
  static __device__ __forceinline__ Pair mul(Pair a, Pair b) { return __hmul2(a, b); }
  static __device__ __forceinline__ Pair join(Scalar a, Scalar b) { return __halves2bfloat162(a, b); }
  static __device__ __forceinline__ Pair round(float a, float b) { return __floats2bfloat162_rn(a, b); }
  static __device__ __forceinline__ Pair round_toward_zero(float a, float b) {
    return __halves2bfloat162(__float2bfloat16_rz(a), __float2bfloat16_rz(b));
  }
  static __device__ __forceinline__ float2 widen(Pair p) { return __bfloat1622float2(p); }
  static __device__ __forceinline__ void dequantize(std::uint32_t word, std::uint32_t (&b0)[2], std::uint32_t (&b1)[2]) {
    dequantize_word_bf16(word, b0, b1);
  }
  static __device__ __forceinline__ void dequantize_zp(std::uint32_t word, std::uint32_t zeros, std::uint32_t (&b0)[2],
                                                       std::uint32_t (&b1)[2]) {
    dequantize_word_zp<Pair>(word, zeros, 0x43004300u, b0, b1);  // 128.0
  }
  static __device__ __forceinline__ void mma(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
    mma_m16n8k16_bf16(c, a, b);
  }
};

}  // namespace tc::device
