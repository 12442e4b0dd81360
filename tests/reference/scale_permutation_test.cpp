// The permuted scale orders shared by the format code and the kernel's epilogue
// (tilecheck/reference/scale_permutation.h): each is a permutation within its chunk, has an
// inverse that round-trips, and puts the scales where the lanes that use them read.
#include "tilecheck/reference/scale_permutation.h"

#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/reference/marlin_format.h"
#include "tilecheck/reference/mma_layout.h"

namespace tc {
namespace {

using Position = int (*)(int);

struct Order {
  const char* name;
  Position position;
  int chunk;  // columns it permutes within
};

const Order kOrders[] = {{"grouped", scale_permutation::grouped_position, 64},
                         {"per_column", scale_permutation::per_column_position, 32}};

TEST(ScalePermutation, EachOrderIsAPermutationWithinItsChunksAndItsInverseRoundTrips) {
  for (const Order& order : kOrders) {
    for (int N : {64, 128, 512}) {
      std::vector<int> inverse(N, -1);
      for (int n = 0; n < N; ++n) {
        const int p = order.position(n);
        ASSERT_TRUE(p >= 0 && p < N) << order.name << " N=" << N << ": " << n << " -> " << p;
        ASSERT_EQ(p / order.chunk, n / order.chunk) << order.name << ": " << n << " left its chunk";
        ASSERT_EQ(inverse[p], -1) << order.name << " N=" << N << ": " << n << " and " << inverse[p] << " -> " << p;
        inverse[p] = n;
      }
      for (int n = 0; n < N; ++n) EXPECT_EQ(inverse[order.position(n)], n) << order.name;
      for (int p = 0; p < N; ++p) EXPECT_EQ(order.position(inverse[p]), p) << order.name;
    }
  }
}

TEST(ScalePermutation, FormatCodeUsesTheSharedOrders) {
  for (int n = 0; n < 256; ++n) {
    EXPECT_EQ(permuted_scale_column(n, -1), scale_permutation::per_column_position(n)) << n;
    for (int group : {32, 64, 128})
      EXPECT_EQ(permuted_scale_column(n, group), scale_permutation::grouped_position(n)) << n << " group " << group;
  }
}

// Grouped: an 8x8 transpose per 64 columns, so applying it twice is the identity.
TEST(ScalePermutation, GroupedOrderIsAnEightByEightTranspose) {
  for (int n = 0; n < 256; ++n) {
    EXPECT_EQ(scale_permutation::grouped_position(scale_permutation::grouped_position(n)), n) << n;
    const int c = n % 64;
    EXPECT_EQ(scale_permutation::grouped_position(n) % 64, 8 * (c % 8) + c / 8) << n;
  }
}

// Per-column: the eight slots [8 * (lane % 4), 8 * (lane % 4) + 8) of a 32-column chunk hold the
// columns of accumulator registers c0, c1 of that lane in n8 blocks 0..3, in register order.
TEST(ScalePermutation, PerColumnOrderFollowsTheAccumulatorFragment) {
  for (int lane = 0; lane < mma::kLanes; ++lane)
    for (int block = 0; block < 4; ++block)
      for (int reg = 0; reg < 2; ++reg) {
        const int column = 8 * block + mma::accumulator_col(lane, reg);
        EXPECT_EQ(scale_permutation::per_column_position(column), 8 * (lane % 4) + 2 * block + reg)
            << "lane " << lane << " block " << block << " c" << reg;
      }
}

}  // namespace
}  // namespace tc
