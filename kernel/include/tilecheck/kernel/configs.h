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

}  // namespace tc
