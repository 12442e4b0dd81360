// tilecheck bench's round order (tilecheck/suite/bench_order.h): every library once per round, each first in
// turn.
#include "tilecheck/suite/bench_order.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

namespace {

using tc::round_order;

TEST(BenchOrder, EveryLibraryOncePerRound) {
  for (std::size_t n = 1; n <= 5; ++n)
    for (int round = 0; round < 12; ++round) {
      std::vector<std::size_t> order = round_order(n, round);
      ASSERT_EQ(order.size(), n);
      std::sort(order.begin(), order.end());
      for (std::size_t k = 0; k < n; ++k) EXPECT_EQ(order[k], k) << "n " << n << ", round " << round;
    }
}

TEST(BenchOrder, FirstPlaceRotates) {
  EXPECT_EQ(round_order(3, 0), (std::vector<std::size_t>{0, 1, 2}));  // round 0: the order given
  EXPECT_EQ(round_order(3, 1), (std::vector<std::size_t>{1, 2, 0}));
  EXPECT_EQ(round_order(3, 2), (std::vector<std::size_t>{2, 0, 1}));
  EXPECT_EQ(round_order(3, 3), (std::vector<std::size_t>{0, 1, 2}));
  // Over n rounds each library is first exactly once.
  for (std::size_t n = 1; n <= 5; ++n) {
    std::vector<int> first(n, 0);
    for (int round = 0; round < static_cast<int>(n); ++round) ++first[round_order(n, round).front()];
    for (std::size_t k = 0; k < n; ++k) EXPECT_EQ(first[k], 1) << "n " << n << ", library " << k;
  }
}

}  // namespace
