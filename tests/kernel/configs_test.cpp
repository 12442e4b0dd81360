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

// The automatic choice follows the H200 measurements (docs/results/dispatch-2026-12-02.md).
TEST(OurConfigChoice, TakesTheSquareTileBelowNOf16384AndTheWideOneFromThere) {
  auto choice = [](int M, int K, int N, int group) { return name(our_config_choice(Shape{M, N, K, group})); };
  EXPECT_EQ(choice(32, 4096, 4096, 128), "m2n8k8g8");  // Marlin's rule: m2n16k4g8, 1.5-1.7x slower there
  EXPECT_EQ(choice(64, 4096, 4096, -1), "m4n8k8gcol");
  EXPECT_EQ(choice(128, 8192, 8192, 128), "m4n8k8g8");
  EXPECT_EQ(choice(1, 8192, 28672, 128), "m1n16k4g8");  // Marlin's rule: m1n8k8g8, 1.13-1.16x slower there
  EXPECT_EQ(choice(16, 8192, 16384, -1), "m1n16k4gcol");
}

TEST(OurConfigChoice, FallsBackToTheTileThatDividesTheShape) {
  auto choice = [](int K, int N) { return name(our_config_choice(Shape{16, N, K, -1})); };
  EXPECT_EQ(choice(192, 4096), "m1n16k4gcol");   // K % 128 != 0
  EXPECT_EQ(choice(4096, 16512), "m1n8k8gcol");  // N % 256 != 0
  EXPECT_THROW(choice(4096, 192), Error);        // neither tile divides N
}

}  // namespace
}  // namespace tc
