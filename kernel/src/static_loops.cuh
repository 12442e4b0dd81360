// Loops the kernel (marlin_kernel.cuh) unrolls at compile time: over a constant range, and over a
// thread's accumulator registers.
#pragma once
#include <type_traits>
#include <utility>

namespace tc::device {

// f(std::integral_constant<int, 0>{}), ..., f(std::integral_constant<int, N - 1>{}): a loop whose
// index is a compile-time constant in its body.
template <typename F, int... I>
__device__ inline void static_for_impl(F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
template <int N, typename F>
__device__ inline void static_for(F&& f) {
  static_for_impl(f, std::make_integer_sequence<int, N>{});
}

// f(mb, tile, b, i) for every accumulator register of a thread (acc[mb][tile][b][i]), i in steps of
// STEP (2: the pairs of adjacent columns one row holds); unrolled, so that acc stays in registers.
template <int M_BLOCKS, int STEP = 1, typename F>
__device__ __forceinline__ void for_each_accumulator(F&& f) {
#pragma unroll
  for (int mb = 0; mb < M_BLOCKS; ++mb)
#pragma unroll
    for (int tile = 0; tile < 4; ++tile)
#pragma unroll
      for (int b = 0; b < 2; ++b)
#pragma unroll
        for (int i = 0; i < 4; i += STEP) f(mb, tile, b, i);
}

}  // namespace tc::device
