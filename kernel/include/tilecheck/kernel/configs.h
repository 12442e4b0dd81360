// The kernel library's configurations: the one list that the dispatch instantiates
// (kernel/src/kernel_table.h), the plugin reports (tc_plugin_info), the kernel tests run, and the
// GPU suite registers its ctest tests from (kernel/CMakeLists.txt reads the entries below as text:
// keep each a literal {m_blocks, n_blocks, k_blocks, group_blocks}).
#pragma once
#include <array>

#include "tilecheck/reference/schedule.h"

namespace tc {

// m_blocks 1-4 x tiles 128x128 (n8 k8) and 256x64 (n16 k4) x group_blocks -1 (per column), 2, 4, 8.
constexpr std::array<TileConfig, 32> kLibraryConfigs = {{
    {1, 8, 8, -1}, {1, 8, 8, 2}, {1, 8, 8, 4}, {1, 8, 8, 8},
    {1, 16, 4, -1}, {1, 16, 4, 2}, {1, 16, 4, 4}, {1, 16, 4, 8},
    {2, 8, 8, -1}, {2, 8, 8, 2}, {2, 8, 8, 4}, {2, 8, 8, 8},
    {2, 16, 4, -1}, {2, 16, 4, 2}, {2, 16, 4, 4}, {2, 16, 4, 8},
    {3, 8, 8, -1}, {3, 8, 8, 2}, {3, 8, 8, 4}, {3, 8, 8, 8},
    {3, 16, 4, -1}, {3, 16, 4, 2}, {3, 16, 4, 4}, {3, 16, 4, 8},
    {4, 8, 8, -1}, {4, 8, 8, 2}, {4, 8, 8, 4}, {4, 8, 8, 8},
    {4, 16, 4, -1}, {4, 16, 4, 2}, {4, 16, 4, 4}, {4, 16, 4, 8},
}};

// Our library's automatic choice (a problem whose config is all zero). Measured on the H200, 132 SMs
// (docs/results/dispatch-2026-12-02.md): the 128x128 tile is faster at N = 4096 and 8192 for every
// M up to 64 (up to 2x at 4096, M = 32 and 64: twice as many tile columns halve the blocks that
// share one and so the serial reduction), the 256x64 tile at N = 28672 (more columns than blocks
// already). The threshold between 8192 and 28672 is not measured. Unlike Marlin's rule
// (tc::choose_config, the reference's model of upstream), M does not enter it but for m_blocks.
inline TileConfig our_config_choice(const Shape& shape) {
  TileConfig c = choose_config(shape);  // validates the shape and finds a tile that divides it
  const bool wide = shape.N >= 16384;
  TileConfig preferred = c;
  preferred.n_blocks = wide ? 16 : 8;
  preferred.k_blocks = wide ? 4 : 8;
  if (shape.N % preferred.tile_n() == 0 && shape.K % preferred.tile_k() == 0) return preferred;
  c.n_blocks = wide ? 8 : 16;  // the other tile, which choose_config found to divide the shape
  c.k_blocks = wide ? 8 : 4;
  return c;
}

}  // namespace tc
