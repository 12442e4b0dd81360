#include "kernel_table.h"

namespace tc::device {

// find_kernel() has one instantiation file per m_blocks: a listed configuration with another
// m_blocks would have no kernel.
constexpr bool every_m_blocks_has_its_file() {
  for (const TileConfig& c : kLibraryConfigs)
    if (c.m_blocks < 1 || c.m_blocks > 4) return false;
  return true;
}
static_assert(every_m_blocks_has_its_file(), "kernels_m1.cu .. kernels_m4.cu instantiate m_blocks 1..4 only");

KernelEntry find_kernel(const TileConfig& c) {
  switch (c.m_blocks) {
    case 1: return find_kernel_m1(c);
    case 2: return find_kernel_m2(c);
    case 3: return find_kernel_m3(c);
    case 4: return find_kernel_m4(c);
  }
  return {};
}

}  // namespace tc::device
