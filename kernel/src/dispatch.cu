#include "kernel_table.h"

#ifndef TC_KERNEL_BF16
#define TC_KERNEL_BF16 0  // 1: kernels_bf16_m*.cu are built (CMake option TC_KERNEL_BF16)
#endif
#ifndef TC_KERNEL_ZERO_POINTS
#define TC_KERNEL_ZERO_POINTS 0  // 1: kernels_zp_m*.cu (and with bf16 kernels_zp_bf16_m*.cu) are built
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

namespace {

// The instance of `c` among those of one format (BF16, ZP), by its m_blocks' file.
template <bool BF16, bool ZP>
KernelEntry find_in_files(const TileConfig& c, bool short_slices) {
  switch (c.m_blocks) {
    case 1: return find_kernel_m1<BF16, ZP>(c, short_slices);
    case 2: return find_kernel_m2<BF16, ZP>(c, short_slices);
    case 3: return find_kernel_m3<BF16, ZP>(c, short_slices);
    case 4: return find_kernel_m4<BF16, ZP>(c, short_slices);
  }
  return {};
}

}  // namespace

KernelEntry find_kernel(const TileConfig& c, bool bf16, bool zero_points, bool short_slices) {
  if (zero_points) {
#if TC_KERNEL_ZERO_POINTS
#if TC_KERNEL_BF16
    if (bf16) return find_in_files<true, true>(c, short_slices);
#endif
    if (!bf16) return find_in_files<false, true>(c, short_slices);
#endif
    return {};
  }
  if (bf16) {
#if TC_KERNEL_BF16
    return find_in_files<true, false>(c, short_slices);
#endif
    return {};
  }
  return find_in_files<false, false>(c, short_slices);
}

}  // namespace tc::device
