// Instantiates the fp16 kernel for uint4 codes with zero points for the listed configurations with
// m_blocks = 2 (built with TC_KERNEL_ZERO_POINTS); see kernel_table.h.
#include "kernel_table.h"

namespace tc::device {
template <>
KernelEntry find_kernel_m2<false, true>(const TileConfig& c, bool short_slices) {
  return find_kernel_for<2, false, true>(c, short_slices);
}
}  // namespace tc::device
