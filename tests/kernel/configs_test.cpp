// The kernel library's list of configurations (tilecheck/kernel/configs.h), from which the dispatch
// instantiates its kernels and the GPU suite registers its tests: it must be exactly the product
// m_blocks 1-4 x tiles n8k8 / n16k4 x group_blocks -1, 2, 4, 8, each entry once and a valid name.
#include "tilecheck/kernel/configs.h"

#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace tc {
namespace {

TEST(LibraryConfigs, AreTheProductOfMBlocksTilesAndGroupsEachOnce) {
  std::set<std::string> expected;
  for (int m = 1; m <= 4; ++m)
    for (const auto& [n, k] : {std::pair{8, 8}, std::pair{16, 4}})
      for (int g : {-1, 2, 4, 8}) expected.insert(name(TileConfig{m, n, k, g}));
  std::set<std::string> listed;
  for (const TileConfig& c : kLibraryConfigs) EXPECT_TRUE(listed.insert(name(c)).second) << name(c) << " twice";
  EXPECT_EQ(listed, expected);
  EXPECT_EQ(kLibraryConfigs.size(), 32u);
}

TEST(LibraryConfigs, NamesRoundTrip) {
  for (const TileConfig& c : kLibraryConfigs) EXPECT_EQ(parse_config(name(c)), c) << name(c);
}

}  // namespace
}  // namespace tc
