// The mma.sync m16n8k16 accumulator layout shared by the kernel and the host
// (tilecheck/reference/mma_layout.h): checked against the PTX ISA's table, as a bijection over
// the 16x8 tile, and against tc::locate, which names every output element's lane and register.
#include "tilecheck/reference/mma_layout.h"

#include <set>
#include <tuple>
#include <utility>

#include <gtest/gtest.h>

#include "tilecheck/reference/schedule.h"

namespace tc {
namespace {

// The PTX ISA's description of the fp32 accumulator fragment of mma.m16n8k16: groupID = lane >> 2,
// threadID_in_group = lane % 4; row = groupID for c0, c1 and groupID + 8 for c2, c3;
// col = 2 * threadID_in_group + (i & 1).
TEST(MmaLayout, MatchesThePtxFragmentTable) {
  for (int lane = 0; lane < mma::kLanes; ++lane) {
    for (int reg = 0; reg < mma::kAccumulatorRegs; ++reg) {
      const int group_id = lane >> 2, thread_in_group = lane % 4;
      EXPECT_EQ(mma::accumulator_row(lane, reg), reg < 2 ? group_id : group_id + 8) << lane << " c" << reg;
      EXPECT_EQ(mma::accumulator_col(lane, reg), 2 * thread_in_group + (reg & 1)) << lane << " c" << reg;
    }
  }
}

TEST(MmaLayout, IsABijectionBetweenLaneRegisterAndTheTile) {
  std::set<std::pair<int, int>> cells;
  for (int lane = 0; lane < mma::kLanes; ++lane) {
    for (int reg = 0; reg < mma::kAccumulatorRegs; ++reg) {
      const int row = mma::accumulator_row(lane, reg), col = mma::accumulator_col(lane, reg);
      ASSERT_TRUE(row >= 0 && row < mma::kAccumulatorRows && col >= 0 && col < mma::kAccumulatorCols)
          << lane << " c" << reg << " -> (" << row << ", " << col << ")";
      cells.insert({row, col});
      EXPECT_EQ(mma::accumulator_lane(row, col), lane) << "(" << row << ", " << col << ")";
      EXPECT_EQ(mma::accumulator_reg(row, col), reg) << "(" << row << ", " << col << ")";
    }
  }
  EXPECT_EQ(static_cast<int>(cells.size()), mma::kAccumulatorRows * mma::kAccumulatorCols);
}

// locate() and accumulator_place() (which the error map uses) name, for every element of every
// tile, the warp column and the lane and register that hold it.
TEST(MmaLayout, AgreesWithLocateOverEveryElement) {
  for (const TileConfig& config : {TileConfig{4, 16, 4, -1}, TileConfig{3, 8, 8, 8}}) {
    const Schedule s = make_schedule({152, 512, 256, config.group_blocks < 0 ? -1 : 128}, config, 5);
    for (int row = 0; row < s.shape.M; ++row) {
      for (int col = 0; col < s.shape.N; ++col) {
        const ElementPlace p = locate(s, row, col);
        ASSERT_EQ(mma::accumulator_row(p.lane, p.reg), p.row_in_tile % 16) << name(config) << " " << row << ", " << col;
        ASSERT_EQ(mma::accumulator_col(p.lane, p.reg), p.col_in_tile % 8) << name(config) << " " << row << ", " << col;
        ASSERT_EQ(p.warp, p.col_in_tile / 64) << name(config) << " " << row << ", " << col;
        const AccumulatorPlace a = accumulator_place(p.row_in_tile, p.col_in_tile);
        ASSERT_EQ(std::make_tuple(a.warp, a.lane, a.reg), std::make_tuple(p.warp, p.lane, p.reg));
      }
    }
  }
}

// Usable in constant expressions, as the kernel's templates need.
static_assert(mma::accumulator_row(31, 3) == 15 && mma::accumulator_col(31, 3) == 7);
static_assert(mma::accumulator_lane(15, 7) == 31 && mma::accumulator_reg(15, 7) == 3);

}  // namespace
}  // namespace tc
