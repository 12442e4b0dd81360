// Which compiled kernel runs a configuration. Every entry of the library's list
// (tilecheck/kernel/configs.h) is instantiated, those with m_blocks = M in kernels_mM.cu so that
// the four files compile in parallel; find_kernel() turns a TileConfig value into its instance.
#pragma once
#include <cstddef>
#include <utility>

#include "marlin_kernel.cuh"
#include "tilecheck/kernel/configs.h"
#include "tilecheck/reference/schedule.h"

namespace tc::device {

using KernelFunction = void (*)(KernelArgs);

struct KernelEntry {
  KernelFunction kernel = nullptr;  // nullptr: not a configuration of the library
  int smem_bytes = 0;
};

KernelEntry find_kernel(const TileConfig& c);
KernelEntry find_kernel_m1(const TileConfig& c);  // kernels_m1.cu .. kernels_m4.cu
KernelEntry find_kernel_m2(const TileConfig& c);
KernelEntry find_kernel_m3(const TileConfig& c);
KernelEntry find_kernel_m4(const TileConfig& c);

template <int M, int N, int K, int G>
KernelEntry entry() {
  return {&marlin_w4a16<M, N, K, G>, smem_layout(M, N, K, G, mutant(kMutScalesInReduceScratch)).total};
}

// Entry I of the list if it is `c`; instantiates the kernel only for entries with m_blocks = M.
template <int M, std::size_t I>
KernelEntry entry_if(const TileConfig& c) {
  constexpr TileConfig listed = kLibraryConfigs[I];
  if constexpr (listed.m_blocks != M) {
    return {};
  } else {
    if (c != listed) return {};
    return entry<listed.m_blocks, listed.n_blocks, listed.k_blocks, listed.group_blocks>();
  }
}

template <int M, std::size_t... I>
KernelEntry find_listed_kernel(const TileConfig& c, std::index_sequence<I...>) {
  KernelEntry found;
  (void)(((found = entry_if<M, I>(c)).kernel != nullptr) || ...);
  return found;
}

// The listed configuration `c` among those with m_blocks = M.
template <int M>
KernelEntry find_kernel_for(const TileConfig& c) {
  return find_listed_kernel<M>(c, std::make_index_sequence<kLibraryConfigs.size()>());
}

}  // namespace tc::device
