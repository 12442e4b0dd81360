#include "kernel_table.h"

#ifndef TC_KERNEL_BF16
#define TC_KERNEL_BF16 0  // 1: kernels_bf16_m*.cu are built (CMake option TC_KERNEL_BF16)
#endif

namespace tc::device {

// find_kernel() has one instantiation file per m_blocks: a listed configuration with another
// m_blocks would have no kernel.
constexpr bool every_m_blocks_has_its_file() {
  for (const TileConfig& c : kLibraryConfigs)
    if (c.m_blocks < 1 || c.m_blocks > 4) return false;
  return true;
}
static_assert(every_m_blocks_has_its_file(), "kernels_m1.cu .. kernels_m4.cu instantiate m_blocks 1..4 only");

KernelEntry find_kernel(const TileConfig& c, bool bf16) {
  if (bf16) {
#if TC_KERNEL_BF16
    switch (c.m_blocks) {
      case 1: return find_kernel_m1<true>(c);
      case 2: return find_kernel_m2<true>(c);
      case 3: return find_kernel_m3<true>(c);
      case 4: return find_kernel_m4<true>(c);
    }
#endif
    return {};
  }
  switch (c.m_blocks) {
    case 1: return find_kernel_m1<false>(c);
    case 2: return find_kernel_m2<false>(c);
    case 3: return find_kernel_m3<false>(c);
    case 4: return find_kernel_m4<false>(c);
  }
  return {};
}

}  // namespace tc::device
