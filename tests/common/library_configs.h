// Our kernel library's 32 configurations (kernel/src/kernel_table.h), for CPU tests that build the
// suite's matrix without loading the library.
#pragma once
#include <utility>
#include <vector>

#include "tilecheck/reference/schedule.h"

namespace tc::testing {

inline std::vector<TileConfig> library_configs() {
  std::vector<TileConfig> configs;
  for (int m = 1; m <= 4; ++m)
    for (const auto& [n, k] : {std::pair{8, 8}, std::pair{16, 4}})
      for (int g : {-1, 2, 4, 8}) configs.push_back({m, n, k, g});
  return configs;
}

}  // namespace tc::testing
