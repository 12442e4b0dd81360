// The guard band (compare/src/guard_band.cpp): a padded buffer split into the output and the
// margin cells that were written.
#include "tilecheck/compare/guard_band.h"

#include <gtest/gtest.h>

#include "tilecheck/compare/poison.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

const half_bits kFill = 0x3C00;

TEST(GuardBand, SplitsAPaddedBuffer) {
  HalfMatrix buffer = HalfMatrix::Constant(4 + 2 + 1, 3 + 1 + 2, kPoison);  // top 2, bottom 1, left 1, right 2
  buffer.block(2, 1, 4, 3).setConstant(kFill);
  buffer(6, 1) = 0x1234;  // one row below the output, its first column
  buffer(3, 5) = 0x4321;  // row 1, two columns right of the output
  const HalfMatrix inner = interior(buffer, 2, 1, 1, 2);
  EXPECT_EQ(inner.rows(), 4);
  EXPECT_EQ(inner.cols(), 3);
  EXPECT_TRUE((inner.array() == kFill).all());
  const GuardBand g = guard_band(buffer, 2, 1, 1, 2);
  EXPECT_EQ(g.cells, 7 * 6 - 12);
  ASSERT_EQ(g.written.size(), 2u);
  EXPECT_EQ(g.written[0].row, 1);
  EXPECT_EQ(g.written[0].col, 4);
  EXPECT_EQ(g.written[1].row, 4);
  EXPECT_EQ(g.written[1].col, 0);
  EXPECT_EQ(g.written[1].bits, 0x1234);
  EXPECT_EQ(nearest_element(g.written[0], 4, 3), (std::pair<int, int>{1, 2}));
  EXPECT_THROW(interior(buffer, 4, 0, 4, 0), Error);
}

TEST(GuardBand, AnUntouchedBandHasNothingWritten) {
  const HalfMatrix buffer = HalfMatrix::Constant(5, 6, kPoison);
  const GuardBand g = guard_band(buffer, 1, 1, 1, 1);
  EXPECT_EQ(g.cells, 5 * 6 - 3 * 4);
  EXPECT_TRUE(g.written.empty());
  EXPECT_EQ(guard_band(buffer, 0, 0, 0, 0).cells, 0);
  EXPECT_THROW(guard_band(buffer, -1, 0, 0, 0), Error);
  EXPECT_EQ(nearest_element(GuardCell{-3, 9, 0}, 3, 4), (std::pair<int, int>{0, 3}));
}

}  // namespace
}  // namespace tc
