// Instantiates the bf16 kernel for the listed configurations with m_blocks = 2 (built with
// TC_KERNEL_BF16); see kernel_table.h.
#include "kernel_table.h"

namespace tc::device {
template <>
KernelEntry find_kernel_m2<true, false>(const TileConfig& c, bool short_slices) {
  return find_kernel_for<2, true, false>(c, short_slices);
}
}  // namespace tc::device
