#include "tilecheck/reference/schedule.h"

#include <map>
#include <tuple>

#include <gtest/gtest.h>

#include "common/library_configs.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/rng.h"

namespace tc {
namespace {

using test_support::library_configs;

TEST(TileConfig, NamesRoundTripAndBadNamesAreRejected) {
  for (const TileConfig& c : library_configs()) EXPECT_EQ(parse_config(name(c)), c) << name(c);
  EXPECT_EQ(name({1, 8, 8, 8}), "m1n8k8g8");
  EXPECT_EQ(name({4, 16, 4, -1}), "m4n16k4gcol");
  for (const char* bad : {"", "m1n8k8", "m5n8k8g8", "m1n8k8g3", "m1n6k8g8", "x1n8k8g8", "m1n8k8g8x",
                          "m1n8k8gc"}) {
    EXPECT_THROW(parse_config(bad), Error) << bad;
  }
}

TEST(TileConfig, ValidateNamesTheMismatch) {
  const TileConfig c{1, 16, 4, 8};
  EXPECT_NO_THROW(validate_config(c, {1, 256, 128, 128}));
  try {
    validate_config(c, {1, 128, 128, 128});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("N=128"), std::string::npos) << e.what();
  }
  EXPECT_THROW(validate_config(c, {1, 256, 96, -1}), Error);   // K % 64
  EXPECT_THROW(validate_config(c, {1, 256, 128, 64}), Error);  // group mismatch
}

TEST(TileConfig, ChooseFollowsMarlinsRule) {
  EXPECT_EQ(choose_config({16, 4096, 4096, 128}), (TileConfig{1, 8, 8, 8}));
  EXPECT_EQ(choose_config({17, 4096, 4096, 128}), (TileConfig{2, 16, 4, 8}));
  EXPECT_EQ(choose_config({1000, 4096, 4096, -1}), (TileConfig{4, 16, 4, -1}));
  EXPECT_EQ(choose_config({1, 256, 64, 32}), (TileConfig{1, 16, 4, 2}));  // K=64: falls back
  EXPECT_THROW(choose_config({1, 192, 64, 32}), Error);  // 192 divides by neither 128 nor 256
}

TEST(PlanLaunches, BatchesFullChunksAndLeavesTheTailAlone) {
  const auto plans = plan_launches(152, 4, 16);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(std::tie(plans[0].row_begin, plans[0].rows, plans[0].m_blocks, plans[0].par),
            std::make_tuple(0, 128, 4, 2));
  EXPECT_EQ(std::tie(plans[1].row_begin, plans[1].rows, plans[1].m_blocks, plans[1].par),
            std::make_tuple(128, 24, 2, 1));
  EXPECT_EQ(plan_launches(2048, 4, 16).size(), 2u);
  EXPECT_EQ(plan_launches(7, 4, 16).front().m_blocks, 1);
  for (int M : {1, 15, 16, 17, 63, 64, 65, 129, 1024, 1025, 3000}) {
    for (int m = 1; m <= 4; ++m) {
      int row = 0;
      for (const LaunchPlan& p : plan_launches(M, m, 5)) {
        ASSERT_EQ(p.row_begin, row);
        ASSERT_LE(p.par, 5);
        ASSERT_LE(p.m_blocks, m);
        ASSERT_LE(p.rows, 16 * p.m_blocks * p.par);
        ASSERT_GT(p.rows, 16 * p.m_blocks * p.par - 16);
        row += p.rows;
      }
      ASSERT_EQ(row, M);
    }
  }
  EXPECT_THROW(plan_launches(0, 4, 16), Error);
  EXPECT_THROW(plan_launches(5, 0, 16), Error);
}

// Every (row chunk, n-tile, k-tile) is summed by exactly one block; in each column the slices in
// reduction order cover K from the end down to k-tile 0, the last one held by the lowest block.
TEST(Schedule, SlicesCoverEveryColumnAndKTileExactlyOnce) {
  const CounterRng rng(17, "schedule");
  const std::vector<TileConfig> configs = library_configs();
  int checked = 0;
  for (std::uint64_t i = 0; checked < 400; ++i) {
    TileConfig c = configs[rng.integer(5 * i, 0, configs.size() - 1)];
    const int group = c.group();
    const int M = static_cast<int>(rng.integer(5 * i + 1, 1, 300));
    const int N = c.tile_n() * static_cast<int>(rng.integer(5 * i + 2, 1, 12));
    const int K = std::max(c.tile_k(), group) * static_cast<int>(rng.integer(5 * i + 3, 1, 24));
    const int sms = static_cast<int>(rng.integer(5 * i + 4, 1, 140));
    const Shape shape{M, N, K, group};
    const Schedule s = make_schedule(shape, c, sms, 4);
    std::map<std::tuple<int, int, int>, int> hits;
    int tile_row = 0;
    for (const LaunchSchedule& l : s.launches) {
      if (c.group_blocks > c.k_blocks) {
        ASSERT_EQ(l.iters % (c.group_blocks / c.k_blocks), 0);
      }
      for (const Slice& slice : l.slices) {
        ASSERT_LT(slice.k_tile_begin, slice.k_tile_end);
        if (c.group_blocks > c.k_blocks) {
          ASSERT_EQ(slice.k_tile_begin % (c.group_blocks / c.k_blocks), 0);
        }
        for (int k = slice.k_tile_begin; k < slice.k_tile_end; ++k)
          ++hits[{tile_row + l.chunk_of(slice.column), l.n_tile_of(slice.column), k}];
      }
      for (int col = 0; col < l.columns; ++col) {
        const int first = l.column_start[col], count = l.column_start[col + 1] - first;
        ASSERT_GE(count, 1);
        int k_end = l.k_tiles, block = -1;
        for (int j = 0; j < count; ++j) {
          const Slice& slice = l.slices[l.column_slices[first + j]];
          ASSERT_EQ(slice.slice_index, j);
          ASSERT_EQ(slice.slice_count, count);
          ASSERT_EQ(slice.k_tile_end, k_end) << "column " << col << " slice " << j;
          if (j > 0) {
            ASSERT_LT(slice.block, block);
          }
          k_end = slice.k_tile_begin;
          block = slice.block;
        }
        ASSERT_EQ(k_end, 0);
      }
      tile_row += l.plan.par;
    }
    ASSERT_EQ(static_cast<int>(hits.size()), s.tile_rows() * s.tile_cols() * (K / c.tile_k()))
        << name(c) << " M=" << M << " N=" << N << " K=" << K << " sms=" << sms;
    for (const auto& [key, n] : hits) ASSERT_EQ(n, 1);
    ++checked;
  }
}

TEST(Schedule, LocateGivesTheTileAndTheMmaAccumulatorSlot) {
  const Schedule s = make_schedule({152, 512, 256, -1}, {4, 16, 4, -1}, 3);
  ElementPlace p = locate(s, 0, 0);
  EXPECT_EQ(std::tie(p.launch, p.tile_row, p.tile_col, p.lane, p.reg), std::make_tuple(0, 0, 0, 0, 0));
  p = locate(s, 64 + 9, 256 + 64 + 8 + 3);  // second chunk, second n-tile, warp column 1
  EXPECT_EQ(std::tie(p.launch, p.tile_row, p.tile_col, p.column), std::make_tuple(0, 1, 1, 3));
  EXPECT_EQ(std::tie(p.row_in_tile, p.col_in_tile, p.warp), std::make_tuple(9, 75, 1));
  EXPECT_EQ(p.lane, 4 * 1 + 3 / 2);  // row 9 = lane/4 + 8, column 3 = 2 * (lane % 4) + 1
  EXPECT_EQ(p.reg, 3);
  p = locate(s, 130, 0);  // the 24-row tail launch
  EXPECT_EQ(std::tie(p.launch, p.tile_row, p.row_in_tile), std::make_tuple(1, 2, 2));
  EXPECT_THROW(locate(s, 152, 0), Error);
  EXPECT_FALSE(slices_of(s, locate(s, 0, 0)).empty());
}

}  // namespace
}  // namespace tc
