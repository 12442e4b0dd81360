#include <array>

#include "kernel_table.h"

namespace tc::device {

KernelEntry find_kernel(const TileConfig& c) {
  switch (c.m_blocks) {
    case 1: return find_kernel_m1(c.n_blocks, c.k_blocks, c.group_blocks);
    case 2: return find_kernel_m2(c.n_blocks, c.k_blocks, c.group_blocks);
    case 3: return find_kernel_m3(c.n_blocks, c.k_blocks, c.group_blocks);
    case 4: return find_kernel_m4(c.n_blocks, c.k_blocks, c.group_blocks);
  }
  return {};
}

namespace {
std::array<TileConfig, kConfigCount> make_configs() {
  std::array<TileConfig, kConfigCount> out{};
  int i = 0;
  for (int m = 1; m <= 4; ++m)
    for (int tile = 0; tile < 2; ++tile)
      for (int g : {-1, 2, 4, 8}) out[i++] = {m, tile == 0 ? 8 : 16, tile == 0 ? 8 : 4, g};
  return out;
}
}  // namespace

const TileConfig* all_configs() {
  static const std::array<TileConfig, kConfigCount> configs = make_configs();
  return configs.data();
}

}  // namespace tc::device
