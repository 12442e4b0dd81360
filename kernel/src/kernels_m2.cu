// Instantiates the kernel for m_blocks = 2 (every tile and group); see kernel_table.h.
#include "kernel_table.h"

namespace tc::device {
KernelEntry find_kernel_m2(int n_blocks, int k_blocks, int group_blocks) {
  return find_kernel_for<2>(n_blocks, k_blocks, group_blocks);
}
}  // namespace tc::device
