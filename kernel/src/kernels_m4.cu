// Instantiates the kernel for the listed configurations with m_blocks = 4; see kernel_table.h.
#include "kernel_table.h"

namespace tc::device {
template <>
KernelEntry find_kernel_m4<false, false>(const TileConfig& c, bool short_slices) {
  return find_kernel_for<4, false, false>(c, short_slices);
}
}  // namespace tc::device
