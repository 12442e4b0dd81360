// Instantiates the bf16 kernel for uint4 codes with zero points for the listed configurations with
// m_blocks = 1 (built with TC_KERNEL_ZERO_POINTS and TC_KERNEL_BF16); see kernel_table.h.
#include "kernel_table.h"

namespace tc::device {
template <>
KernelEntry find_kernel_m1<true, true>(const TileConfig& c, bool short_slices) {
  return find_kernel_for<1, true, true>(c, short_slices);
}
}  // namespace tc::device
