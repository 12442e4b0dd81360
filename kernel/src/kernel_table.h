// Which compiled kernel runs a configuration. Every entry of the library's list
// (tilecheck/kernel/configs.h) is instantiated, those with m_blocks = M in kernels_mM.cu so that
// the four files compile in parallel (bf16: kernels_bf16_mM.cu; uint4 with zero points:
// kernels_zp_mM.cu, kernels_zp_bf16_mM.cu); find_kernel() turns a TileConfig value into its instance.
// The configurations with a short-slice instance (tilecheck/kernel/pipeline_depth.h) have a second,
// shallower one, which find_kernel() returns for a launch of short slices.
#pragma once
#include <cstddef>
#include <utility>

#include "marlin_kernel.cuh"
#include "tilecheck/kernel/configs.h"
#include "tilecheck/kernel/pipeline_depth.h"
#include "tilecheck/reference/schedule.h"

namespace tc::device {

using KernelFunction = void (*)(KernelArgs);

struct KernelEntry {
  KernelFunction kernel = nullptr;  // nullptr: not a configuration of the library
  int smem_bytes = 0;
};

// `bf16`: the bf16 instance (built with TC_KERNEL_BF16), else the fp16 one; `zero_points`: the uint4
// instance (built with TC_KERNEL_ZERO_POINTS), else the uint4b8 one; `short_slices`: the shallow
// instance where the configuration has one (runs_short_slices), else the full-depth one. Not built:
// no kernel.
KernelEntry find_kernel(const TileConfig& c, bool bf16 = false, bool zero_points = false, bool short_slices = false);
// Defined in kernels_m1.cu .. kernels_m4.cu, kernels_bf16_m1.cu ..
template <bool BF16, bool ZP>
KernelEntry find_kernel_m1(const TileConfig& c, bool short_slices);
template <bool BF16, bool ZP>
KernelEntry find_kernel_m2(const TileConfig& c, bool short_slices);
template <bool BF16, bool ZP>
KernelEntry find_kernel_m3(const TileConfig& c, bool short_slices);
template <bool BF16, bool ZP>
KernelEntry find_kernel_m4(const TileConfig& c, bool short_slices);

template <int M, int N, int K, int G, bool BF16, bool ZP, int STAGES = kMaxStages>
KernelEntry entry() {
  return {&marlin_w4a16<M, N, K, G, BF16, ZP, STAGES>,
          smem_layout(M, N, K, G, mutant(kMutScalesInReduceScratch), ZP, STAGES).total};
}

// Entry I of the list if it is `c`; instantiates the kernel only for entries with m_blocks = M.
template <int M, bool BF16, bool ZP, std::size_t I>
KernelEntry entry_if(const TileConfig& c, bool short_slices) {
  constexpr TileConfig listed = kLibraryConfigs[I];
  if constexpr (listed.m_blocks != M) {
    return {};
  } else {
    if (c != listed) return {};
    if constexpr (has_short_slice_instance(listed)) {
      if (short_slices)
        return entry<M, listed.n_blocks, listed.k_blocks, listed.group_blocks, BF16, ZP, kShortSliceStages>();
    }
    return entry<M, listed.n_blocks, listed.k_blocks, listed.group_blocks, BF16, ZP>();
  }
}

template <int M, bool BF16, bool ZP, std::size_t... I>
KernelEntry find_listed_kernel(const TileConfig& c, bool short_slices, std::index_sequence<I...>) {
  KernelEntry found;
  (void)(((found = entry_if<M, BF16, ZP, I>(c, short_slices)).kernel != nullptr) || ...);
  return found;
}

// The listed configuration `c` among those with m_blocks = M.
template <int M, bool BF16, bool ZP>
KernelEntry find_kernel_for(const TileConfig& c, bool short_slices) {
  return find_listed_kernel<M, BF16, ZP>(c, short_slices, std::make_index_sequence<kLibraryConfigs.size()>());
}

}  // namespace tc::device
