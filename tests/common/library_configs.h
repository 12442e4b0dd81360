// Our kernel library's configurations (tilecheck/kernel/configs.h) as a vector, for CPU tests that
// build the suite's matrix or check every configuration without loading the library.
#pragma once
#include <vector>

#include "tilecheck/kernel/configs.h"
#include "tilecheck/reference/schedule.h"

namespace tc::test_support {

inline std::vector<TileConfig> library_configs() { return {kLibraryConfigs.begin(), kLibraryConfigs.end()}; }

}  // namespace tc::test_support
