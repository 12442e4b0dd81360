// The output-tile grid of a schedule (compare/src/tiles.cpp): tile rows over every launch with the
// M tail as a partial tile, and each tile's attribution: its launch and schedule column, and the
// slices that sum its k-tiles in reduction order.
#include "tilecheck/compare/tiles.h"

#include <gtest/gtest.h>

namespace tc {
namespace {

// Every element of the output lies in the tile at(row, col), the one tc::locate names.
void expect_tiles_hold_their_elements(const Schedule& s, const TileGrid& g) {
  for (int i = 0; i < s.shape.M; ++i)
    for (int j = 0; j < s.shape.N; j += 7) {
      const TileInfo& t = g.at(i, j);
      ASSERT_GE(i, t.row0);
      ASSERT_LT(i, t.row0 + t.rows);
      ASSERT_GE(j, t.col0);
      ASSERT_LT(j, t.col0 + t.cols);
      const ElementPlace p = locate(s, i, j);
      ASSERT_EQ(t.tile_row, p.tile_row) << i << ", " << j;
      ASSERT_EQ(t.tile_col, p.tile_col) << i << ", " << j;
      ASSERT_EQ(t.launch, p.launch) << i << ", " << j;
      ASSERT_EQ(t.column, p.column) << i << ", " << j;
    }
}

TEST(TileGrid, TheMTailIsAPartialTile) {
  // M = 40 in 16-row tiles: two full tile rows and an 8-row tail; N = 512 in 128-column tiles.
  const Schedule s = make_schedule({40, 512, 512, 64}, {1, 8, 8, 4}, 7);
  const TileGrid g = tile_grid(s);
  ASSERT_EQ(g.rows, 3);
  ASSERT_EQ(g.cols, 4);
  EXPECT_EQ(g.tile_n, 128);
  ASSERT_EQ(g.tiles.size(), 12u);
  ASSERT_EQ(g.tile_row_of_row.size(), 40u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(g.tile_row_of_row[i], i / 16) << i;
  for (const TileInfo& t : g.tiles) {
    EXPECT_EQ(&t, &g.tiles[static_cast<size_t>(t.tile_row) * g.cols + t.tile_col]) << "row-major";
    EXPECT_EQ(t.row0, 16 * t.tile_row);
    EXPECT_EQ(t.rows, t.tile_row < 2 ? 16 : 8);
    EXPECT_EQ(t.partial, t.tile_row == 2);
    EXPECT_EQ(t.col0, 128 * t.tile_col);
    EXPECT_EQ(t.cols, 128);
  }
  EXPECT_EQ(g.index(39, 511), 11);
  EXPECT_EQ(g.index(16, 130), 5);
  EXPECT_EQ(&g.at(33, 260), &g.tiles[10]);
  expect_tiles_hold_their_elements(s, g);
}

TEST(TileGrid, TileRowsRunOverEveryLaunchForMOver64) {
  // 64-row tiles and at most 2 chunks a launch: rows 0-127 (2 chunks), 128-191 (1 chunk), then the
  // 8-row tail in a launch of its own.
  const Schedule s = make_schedule({200, 256, 512, 128}, {4, 16, 4, 8}, 9, 2);
  ASSERT_EQ(s.launches.size(), 3u);
  const TileGrid g = tile_grid(s);
  ASSERT_EQ(g.rows, 4);
  ASSERT_EQ(g.cols, 1);
  const int row0[] = {0, 64, 128, 192}, rows[] = {64, 64, 64, 8}, launch[] = {0, 0, 1, 2}, column[] = {0, 1, 0, 0};
  for (int r = 0; r < 4; ++r) {
    const TileInfo& t = g.tiles[r];
    EXPECT_EQ(t.row0, row0[r]) << r;
    EXPECT_EQ(t.rows, rows[r]) << r;
    EXPECT_EQ(t.launch, launch[r]) << r;
    EXPECT_EQ(t.column, column[r]) << r << ": a launch's schedule columns are chunk by chunk";
    EXPECT_EQ(t.partial, r == 3) << r;
  }
  EXPECT_EQ(g.tile_row_of_row[127], 1);
  EXPECT_EQ(g.tile_row_of_row[128], 2);
  EXPECT_EQ(g.tile_row_of_row[199], 3);
  expect_tiles_hold_their_elements(s, g);
}

TEST(TileGrid, ATailOfFewerBlocksIsStillPartial) {
  // M = 112 with 64-row tiles: one full chunk, then 48 rows run as 3 m-blocks: fewer rows than the
  // configuration's tile.
  const TileGrid g = tile_grid(make_schedule({112, 256, 512, 128}, {4, 16, 4, 8}, 3));
  ASSERT_EQ(g.rows, 2);
  EXPECT_FALSE(g.tiles[0].partial);
  EXPECT_EQ(g.tiles[1].rows, 48);
  EXPECT_TRUE(g.tiles[1].partial);
}

TEST(TileGrid, SlicesSumEveryKTileOnceInReductionOrder) {
  const Schedule s = make_schedule({40, 512, 512, 64}, {1, 8, 8, 4}, 7);
  const TileGrid g = tile_grid(s);
  const int k_tiles = 512 / s.config.tile_k();
  int multi = 0;
  for (const TileInfo& t : g.tiles) {
    ASSERT_GE(t.slice_count(), 1);
    multi += t.slice_count() > 1;
    std::vector<int> covered(k_tiles, 0);
    for (int n = 0; n < t.slice_count(); ++n) {
      const Slice& sl = t.slices[n];
      EXPECT_EQ(sl.slice_index, n) << "reduction order";
      EXPECT_EQ(sl.slice_count, t.slice_count());
      EXPECT_EQ(sl.column, t.column);
      for (int k = sl.k_tile_begin; k < sl.k_tile_end; ++k) ++covered[k];
      EXPECT_TRUE(t.involves(sl.block));
    }
    EXPECT_EQ(covered, std::vector<int>(k_tiles, 1)) << "tile (" << t.tile_row << ", " << t.tile_col << ")";
    EXPECT_TRUE(t.slices.back().last());
    EXPECT_EQ(t.writer(), t.slices.back().block);
    const std::vector<Slice> expected = slices_of(s, locate(s, t.row0, t.col0));
    ASSERT_EQ(expected.size(), t.slices.size());
    for (size_t n = 0; n < expected.size(); ++n) {
      EXPECT_EQ(t.slices[n].block, expected[n].block);
      EXPECT_EQ(t.slices[n].k_tile_begin, expected[n].k_tile_begin);
      EXPECT_EQ(t.slices[n].k_tile_end, expected[n].k_tile_end);
    }
    int involved = 0;
    for (int b = 0; b < s.sms; ++b) involved += t.involves(b);
    EXPECT_LE(involved, t.slice_count());
    EXPECT_FALSE(t.involves(s.sms));
  }
  EXPECT_GT(multi, 0) << "7 blocks over 12 tiles of 4 k-tiles split some columns";
  EXPECT_LT(multi, static_cast<int>(g.tiles.size()));
}

TEST(TileGrid, OneBlockSumsEveryTileAlone) {
  const TileGrid g = tile_grid(make_schedule({40, 512, 512, 64}, {1, 8, 8, 4}, 1));
  for (const TileInfo& t : g.tiles) {
    ASSERT_EQ(t.slice_count(), 1);
    EXPECT_EQ(t.writer(), 0);
    EXPECT_EQ(t.slices[0].k_tile_begin, 0);
    EXPECT_EQ(t.slices[0].k_tile_end, 512 / 128);
  }
}

}  // namespace
}  // namespace tc
