// Hints from where the failures sit (compare/src/hints_placement.cpp): the unwritten, isolated
// and whole tiles, guard writes and the M tail, slice counts, the mma fragment layout. Each fires
// on its pattern and stays silent where it would mislead.
#include "tilecheck/compare/hints.h"

#include <gtest/gtest.h>

#include "hint_checks.h"
#include "synthetic.h"
#include "tilecheck/compare/poison.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

TEST(Hints, SingleBitFlip) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  got(21, 300) ^= 0x0200;  // mantissa bit 9
  const Comparison c = compare(e, got);
  EXPECT_HINT(c, HintKind::bit_flip);
  EXPECT_HINT(c, HintKind::isolated);
  EXPECT_NE(find(c.hints, HintKind::bit_flip)->text.find("(21, 300) bit 9 (mantissa)"), std::string::npos);
  for (HintKind k : {HintKind::whole_tiles, HintKind::block, HintKind::multi_slice, HintKind::single_slice,
                     HintKind::dropped_chunk, HintKind::low_precision, HintKind::scale_ratio})
    EXPECT_NO_HINT(c, k);
}

TEST(Hints, ZeroedTile) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  const TileInfo& t = e.grid.tiles[e.grid.cols + 2];
  got.block(t.row0, t.col0, t.rows, t.cols).setZero();
  const Comparison c = compare(e, got);
  EXPECT_HINT(c, HintKind::whole_tiles);
  const std::string& text = find(c.hints, HintKind::whole_tiles)->text;
  EXPECT_NE(text.find("1 whole tile(s) (got is 0 throughout): (1, 2)"), std::string::npos) << text;
  for (HintKind k : {HintKind::column_half, HintKind::row_half, HintKind::warp, HintKind::isolated,
                     HintKind::low_precision, HintKind::unwritten})
    EXPECT_NO_HINT(c, k);
}

TEST(Hints, UnwrittenTile) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  const TileInfo& t = e.grid.tiles[1];
  got.block(t.row0, t.col0, t.rows, t.cols).setConstant(kPoison);
  const Comparison c = compare(e, got);
  EXPECT_HINT(c, HintKind::unwritten);
  EXPECT_NE(find(c.hints, HintKind::unwritten)->text.find("1 whole tile(s): (0, 1)"), std::string::npos)
      << kinds(c.hints);
  EXPECT_NO_HINT(c, HintKind::whole_tiles);  // the unwritten hint says it
  EXPECT_NO_HINT(c, HintKind::nonfinite);
}

TEST(Hints, PartlyUnwrittenTile) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  got.block(0, 128, 16, 8).setConstant(kPoison);
  const Comparison c = compare(e, got);
  EXPECT_NE(find(c.hints, HintKind::unwritten)->text.find("128 element(s) across 1 tile(s), 0 of them whole"),
            std::string::npos)
      << kinds(c.hints);
}

TEST(Hints, GuardWritesBelowAndRight) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix buffer = HalfMatrix::Constant(e.M() + 4, e.N() + 8, kPoison);
  buffer.block(2, 4, e.M(), e.N()) = e.ref.expected;
  buffer(2 + e.M(), 4 + 10) = 0x3C00;  // row M
  Comparison c = compare(e, interior(buffer, 2, 4, 2, 4), guard_band(buffer, 2, 4, 2, 4));
  EXPECT_HINT(c, HintKind::row_predication);
  EXPECT_NE(find(c.hints, HintKind::row_predication)->text.find("first at (40, 10)"), std::string::npos);
  EXPECT_NO_HINT(c, HintKind::column_predication);
  buffer(2 + e.M(), 4 + 10) = kPoison;
  buffer(5, 4 + e.N() + 1) = 0x3C00;  // column N + 1
  c = compare(e, interior(buffer, 2, 4, 2, 4), guard_band(buffer, 2, 4, 2, 4));
  EXPECT_HINT(c, HintKind::column_predication);
  EXPECT_NO_HINT(c, HintKind::row_predication);
}

TEST(Hints, OnlyTheLastPartialMTile) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  for (int i = 32; i < 40; ++i)
    for (int j = 0; j < e.N(); j += 37) push_out(e, got, i, j);
  const Comparison c = compare(e, got);
  EXPECT_HINT(c, HintKind::row_predication);
  EXPECT_NE(find(c.hints, HintKind::row_predication)->text.find("rows 32-39, 8 of 16"), std::string::npos);
  // The same failures one tile row up are not a predication signature.
  HalfMatrix up = e.ref.expected;
  for (int i = 16; i < 24; ++i)
    for (int j = 0; j < e.N(); j += 37) push_out(e, up, i, j);
  EXPECT_NO_HINT(compare(e, up), HintKind::row_predication);
}

TEST(Hints, OnlyMultiSliceTiles) {
  const Expectation e = synthetic_expectation(Problem{{64, 1024, 512, 64}, {1, 8, 8, 4}, 20, Contract::marlin});
  HalfMatrix got = e.ref.expected;
  int multi = 0, single = 0;
  for (const TileInfo& t : e.grid.tiles) {
    (t.slice_count() > 1 ? multi : single)++;
    if (t.slice_count() > 1) push_out(e, got, t.row0 + 3, t.col0 + 5);
  }
  ASSERT_GT(multi, 4);
  ASSERT_GT(single, 4);
  const Comparison c = compare(e, got);
  EXPECT_HINT(c, HintKind::multi_slice);
  EXPECT_NO_HINT(c, HintKind::single_slice);
  // The complement: only single-slice tiles.
  HalfMatrix other = e.ref.expected;
  for (const TileInfo& t : e.grid.tiles)
    if (t.slice_count() == 1) push_out(e, other, t.row0 + 3, t.col0 + 5);
  const Comparison c2 = compare(e, other);
  EXPECT_HINT(c2, HintKind::single_slice);
  EXPECT_NO_HINT(c2, HintKind::multi_slice);
}

TEST(Hints, EveryOtherEightColumns) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  for (int j = 0; j < e.N(); ++j)
    if (j % 16 >= 8) push_out(e, got, 5, j);
  const Comparison c = compare(e, got);
  EXPECT_HINT(c, HintKind::column_half);
  EXPECT_NE(find(c.hints, HintKind::column_half)->text.find("columns 8-15 of each 16"), std::string::npos);
  EXPECT_NO_HINT(c, HintKind::warp);
}

TEST(Hints, RowHalfAndWarp) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  for (int i = 0; i < 32; ++i)
    if (i % 16 >= 8)
      for (int j = 64; j < e.N(); j += 128) push_out(e, got, i, j + (i % 5));  // warp 1 of each 128-wide tile
  const Comparison c = compare(e, got);
  EXPECT_HINT(c, HintKind::row_half);
  EXPECT_HINT(c, HintKind::warp);
  EXPECT_NE(find(c.hints, HintKind::warp)->text.find("columns 64-127 of each tile (warp column 1)"), std::string::npos);
}

}  // namespace
}  // namespace tc
