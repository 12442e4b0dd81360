// Signature hints on synthetic outputs: each fault gets its hint, computed from the data, and the
// hints that would mislead stay silent.
#include "tilecheck/compare/hints.h"

#include <gtest/gtest.h>

#include "synthetic.h"
#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/determinism.h"
#include "tilecheck/reference/error.h"
#include "tilecheck/compare/poison.h"
#include "tilecheck/compare/report.h"

namespace tc {
namespace {

using synthetic::Faults;
using synthetic::model_kernel;
using synthetic::Problem;
using synthetic::synthetic_expectation;

// 40 rows (tile rows 0-1 full, tile row 2 the 8-row tail), 4 tile columns, 7 blocks: a mix of
// single- and multi-slice tiles.
Problem grid_problem(Contract contract = Contract::fp32, int group = 64, const char* distribution = "normal") {
  return Problem{{40, 512, 512, group}, {1, 8, 8, group < 0 ? -1 : group / 16}, 7, contract, distribution};
}

// Moves an element just outside its admissible interval: a sure FAIL_BOUND.
void push_out(const Expectation& e, HalfMatrix& got, int i, int j) {
  got(i, j) = half_from_key(std::min(e.bounds.key_hi(i, j) + 3, kHalfInfKey - 1));
}

std::string kinds(const std::vector<Hint>& hints) {
  std::string s;
  for (const Hint& h : hints) s += std::string(name(h.kind)) + ": " + h.text + "\n";
  return s;
}

const Hint* find(const std::vector<Hint>& hints, HintKind kind) {
  for (const Hint& h : hints)
    if (h.kind == kind) return &h;
  return nullptr;
}

#define EXPECT_HINT(c, kind) EXPECT_TRUE(has_hint((c).hints, kind)) << kinds((c).hints)
#define EXPECT_NO_HINT(c, kind) EXPECT_FALSE(has_hint((c).hints, kind)) << kinds((c).hints)

TEST(Hints, NoneForACleanOutput) {
  const Expectation e = synthetic_expectation(grid_problem());
  EXPECT_TRUE(find_hints(e, compare(e, e.ref.expected)).empty());
}

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

TEST(Hints, DroppedChunkNamesTheBlockAndItsStep) {
  const Expectation e = synthetic_expectation(grid_problem());
  Faults f;
  f.drop_first_step_of = 3;
  const Comparison c = compare(e, model_kernel(e, f));
  EXPECT_HINT(c, HintKind::dropped_chunk);
  const std::string& text = find(c.hints, HintKind::dropped_chunk)->text;
  EXPECT_NE(text.find("the first 16-deep step of thread block 3's slices"), std::string::npos) << text;
  EXPECT_HINT(c, HintKind::block);
  EXPECT_NE(find(c.hints, HintKind::block)->text.find("thread block 3 "), std::string::npos);
  EXPECT_NO_HINT(c, HintKind::low_precision);
}

TEST(Hints, DroppedChunkEverywhereIsOneKRange) {
  // Every block drops its first step; with one block per column that is k-chunk 0 everywhere.
  const Expectation e = synthetic_expectation(Problem{{16, 256, 256, 128}, {1, 8, 8, 8}, 1, Contract::fp32});
  Faults f;
  f.drop_first_step_of = 0;
  const Comparison c = compare(e, model_kernel(e, f));
  EXPECT_HINT(c, HintKind::dropped_chunk);
  EXPECT_NE(find(c.hints, HintKind::dropped_chunk)->text.find("step of thread block 0"), std::string::npos)
      << kinds(c.hints);
}

TEST(Hints, WrongScaleGroupIsAnExactRatioOfScales) {
  // One-hot A: each output is one dequantized weight, so got / expected is the ratio of the scale used
  // to the right one.
  const Expectation e =
      synthetic_expectation(Problem{{32, 256, 256, 32}, {2, 16, 4, 2}, 3, Contract::fp32, "onehot_a"});
  Faults f;
  f.scale_group_offset = 1;
  const Comparison c = compare(e, model_kernel(e, f));
  ASSERT_GT(c.counts.bound, 0);
  EXPECT_HINT(c, HintKind::scale_ratio);
  const std::string& text = find(c.hints, HintKind::scale_ratio)->text;
  EXPECT_NE(text.find("the wrong scale group (group index off by +1)"), std::string::npos) << text;
  EXPECT_NO_HINT(c, HintKind::dropped_chunk);
}

// What a kernel returns that skipped some 16-deep k-chunks: y* minus their sums, rounded to fp16.
// dropped(i, j) lists the chunks of element (i, j).
template <typename Chunks>
HalfMatrix without_chunks(const Expectation& e, Chunks&& dropped) {
  const F64Matrix a = to_double(e.A), w = to_double(dequantize(e.w));
  HalfMatrix got(e.M(), e.N());
  for (int i = 0; i < e.M(); ++i)
    for (int j = 0; j < e.N(); ++j) {
      double sum = 0;
      for (int t : dropped(i, j))
        for (int k = 16 * t; k < 16 * t + 16; ++k) sum += a(i, k) * w(k, j);
      got(i, j) = round_to_half(e.ref.y_exact(i, j) - sum);
    }
  return got;
}

TEST(Hints, DroppedChunkOneKRangeEverywhere) {
  // Chunk 3 is neither a slice's first nor last step, and not the only step 3 of a k-tile.
  const Expectation e = synthetic_expectation(Problem{{16, 256, 512, 128}, {1, 8, 8, 8}, 1, Contract::fp32});
  const Comparison c = compare(e, without_chunks(e, [](int, int) { return std::vector<int>{3}; }));
  EXPECT_HINT(c, HintKind::dropped_chunk);
  EXPECT_NE(find(c.hints, HintKind::dropped_chunk)
                ->text.find("got = y* minus the k-chunk [48, 64) in every failing element (k-tile 0, step 3), for 63 of 64"),
            std::string::npos)
      << kinds(c.hints);
  EXPECT_NO_HINT(c, HintKind::low_precision);
}

TEST(Hints, DroppedChunkOneStepOfEveryKTile) {
  const Expectation e = synthetic_expectation(Problem{{16, 256, 512, 128}, {1, 8, 8, 8}, 1, Contract::fp32});
  const Comparison c = compare(e, without_chunks(e, [](int, int) { return std::vector<int>{3, 11, 19, 27}; }));
  EXPECT_HINT(c, HintKind::dropped_chunk);
  EXPECT_NE(find(c.hints, HintKind::dropped_chunk)->text.find("step 3 of every k-tile (k mod 128 in [48, 64))"),
            std::string::npos)
      << kinds(c.hints);
}

TEST(Hints, DroppedChunkFirstAndLastStepOfEverySlice) {
  // Every block skips a step of each of its slices: no one block explains the sums.
  const Expectation e = synthetic_expectation(grid_problem());
  const int kb = e.schedule.config.k_blocks;
  for (const bool first : {true, false}) {
    const Comparison c = compare(e, without_chunks(e, [&](int i, int j) {
      std::vector<int> chunks;
      for (const Slice& s : e.grid.at(i, j).slices) chunks.push_back(first ? s.k_tile_begin * kb : s.k_tile_end * kb - 1);
      return chunks;
    }));
    EXPECT_HINT(c, HintKind::dropped_chunk);
    EXPECT_NE(find(c.hints, HintKind::dropped_chunk)
                  ->text.find(cat("the ", first ? "first" : "last", " 16-deep step of every slice")),
              std::string::npos)
        << kinds(c.hints);
  }
}

TEST(Hints, DroppedChunkLastStepOfOneBlockUnderTheMarlinContract) {
  // marlin: the tolerance grows by each fp16 partial sum's rounding.
  const Expectation e = synthetic_expectation(grid_problem(Contract::marlin));
  const int kb = e.schedule.config.k_blocks, block = 3;
  const Comparison c = compare(e, without_chunks(e, [&](int i, int j) {
    std::vector<int> chunks;
    for (const Slice& s : e.grid.at(i, j).slices)
      if (s.block == block) chunks.push_back(s.k_tile_end * kb - 1);
    return chunks;
  }));
  EXPECT_HINT(c, HintKind::dropped_chunk);
  EXPECT_NE(find(c.hints, HintKind::dropped_chunk)->text.find("the last 16-deep step of thread block 3's slices (e.g. k "),
            std::string::npos)
      << kinds(c.hints);
}

TEST(Hints, NoDroppedChunkForTooFewSamples) {
  const Expectation e = synthetic_expectation(Problem{{16, 256, 512, 128}, {1, 8, 8, 8}, 1, Contract::fp32});
  const HalfMatrix dropped = without_chunks(e, [](int, int) { return std::vector<int>{3}; });
  HalfMatrix got = e.ref.expected;
  got(1, 2) = dropped(1, 2);
  got(9, 200) = dropped(9, 200);
  const Comparison c = compare(e, got);
  ASSERT_EQ(c.counts.bound, 2);
  EXPECT_NO_HINT(c, HintKind::dropped_chunk);
}

TEST(Hints, WrongScaleGroupBelow) {
  const Expectation e =
      synthetic_expectation(Problem{{32, 256, 256, 32}, {2, 16, 4, 2}, 3, Contract::fp32, "onehot_a"});
  Faults f;
  f.scale_group_offset = -1;
  const Comparison c = compare(e, model_kernel(e, f));
  EXPECT_HINT(c, HintKind::scale_ratio);
  const std::string& text = find(c.hints, HintKind::scale_ratio)->text;
  EXPECT_NE(text.find("s[g-1, j] / s[g, j] -> the wrong scale group (group index off by -1)"), std::string::npos)
      << text;
}

// Per-column scales: got = expected times what scale(j) says, for every element.
template <typename Factor>
HalfMatrix rescaled(const Expectation& e, Factor&& factor) {
  HalfMatrix got(e.M(), e.N());
  for (int i = 0; i < e.M(); ++i)
    for (int j = 0; j < e.N(); ++j) got(i, j) = round_to_half(half_to_double(e.ref.expected(i, j)) * factor(j));
  return got;
}

TEST(Hints, ScaleAppliedTwiceOrNotAtAll) {
  const Expectation e = synthetic_expectation(grid_problem(Contract::fp32, -1));
  const auto scale = [&](int j) { return half_to_double(e.w.scales(0, j)); };
  const Comparison twice = compare(e, rescaled(e, scale));
  EXPECT_HINT(twice, HintKind::scale_ratio);
  EXPECT_NE(find(twice.hints, HintKind::scale_ratio)
                ->text.find("got / expected equals an exact ratio of two scales, s[g, j] -> the scale applied twice, "
                            "for 64 of 64 sampled failures"),
            std::string::npos)
      << kinds(twice.hints);
  const Comparison unscaled = compare(e, rescaled(e, [&](int j) { return 1 / scale(j); }));
  EXPECT_HINT(unscaled, HintKind::scale_ratio);
  EXPECT_NE(find(unscaled.hints, HintKind::scale_ratio)->text.find("1 / s[g, j] -> the scale not applied"),
            std::string::npos)
      << kinds(unscaled.hints);
}

TEST(Hints, ScaleOfTheNextColumnAndOfAnyOtherColumn) {
  const Expectation e = synthetic_expectation(grid_problem(Contract::fp32, -1));
  const auto scale = [&](int j) { return half_to_double(e.w.scales(0, j)); };
  // One relation: column j + 1 within its 64-column chunk.
  HalfMatrix next = rescaled(e, [&](int j) { return j % 64 == 63 ? 1.0 : scale(j + 1) / scale(j); });
  const Comparison c = compare(e, next);
  EXPECT_HINT(c, HintKind::scale_ratio);
  EXPECT_NE(find(c.hints, HintKind::scale_ratio)->text.find("s[g, j+1] / s[g, j] -> the wrong scale column"),
            std::string::npos)
      << kinds(c.hints);
  // Neighbours on either side, half each: no one relation has the majority, the family does.
  const Comparison pairs = compare(e, rescaled(e, [&](int j) { return scale(j ^ 1) / scale(j); }));
  EXPECT_HINT(pairs, HintKind::scale_ratio);
  EXPECT_NE(find(pairs.hints, HintKind::scale_ratio)
                ->text.find("s[j'] / s[j] for another column j' of the same 64-column chunk -> the wrong scale column"),
            std::string::npos)
      << kinds(pairs.hints);
}

TEST(Hints, Fp16Accumulation) {
  const Expectation e = synthetic_expectation(Problem{{16, 512, 512, 128}, {1, 8, 8, 8}, 1, Contract::fp32});
  Faults f;
  f.fp16_accumulation = true;
  const Comparison c = compare(e, model_kernel(e, f));
  EXPECT_HINT(c, HintKind::low_precision);
  EXPECT_NO_HINT(c, HintKind::dropped_chunk);
  EXPECT_NO_HINT(c, HintKind::scale_ratio);
  EXPECT_NO_HINT(c, HintKind::whole_tiles);
}

TEST(Hints, NanAndInfInjected) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  got(3, 4) = kHalfCanonicalNan;
  got(30, 200) = kHalfPosInf;
  const Comparison c = compare(e, got);
  EXPECT_HINT(c, HintKind::nonfinite);
  EXPECT_NE(find(c.hints, HintKind::nonfinite)->text.find("1 NaN and 1 Inf where the reference is finite, first at (3, 4)"),
            std::string::npos);
  EXPECT_HINT(c, HintKind::isolated);
  EXPECT_NO_HINT(c, HintKind::bit_flip);
}

TEST(Hints, OverflowBeforeScalingUnderTheFp32Contract) {
  // Per-column scales: a kernel that rounds the unscaled sum to fp16 first (the marlin epilogue)
  // overflows where the fp32 contract does not.
  Expectation big = synthetic_expectation(grid_problem(Contract::fp32, -1));
  HalfMatrix got = big.ref.expected;
  big.ref.y_exact(5, 6) = 70000.0;  // pretend the unscaled sum left the fp16 range
  got(5, 6) = kHalfPosInf;
  const Comparison c = compare(big, got);
  EXPECT_HINT(c, HintKind::nonfinite);
  EXPECT_NE(find(c.hints, HintKind::nonfinite)->text.find("rounds to fp16 before applying the per-column scale"),
            std::string::npos)
      << kinds(c.hints);
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

TEST(Hints, FinalScaleFetchOfPerColumnScales) {
  // The block that writes some tiles applies the neighbouring column's scale (a stale or misindexed
  // scale in shared memory): every row of those tile columns is off by one factor.
  const Expectation e = synthetic_expectation(grid_problem(Contract::marlin, -1));
  int writer = -1;
  for (const TileInfo& t : e.grid.tiles)
    if (t.slice_count() > 1) writer = t.writer();
  ASSERT_GE(writer, 0);
  Faults f;
  f.wrong_column_scale_of = writer;
  const Comparison c = compare(e, model_kernel(e, f));
  ASSERT_GT(c.counts.bound, 0);
  EXPECT_HINT(c, HintKind::scale_fetch);
  EXPECT_NE(find(c.hints, HintKind::scale_fetch)->text.find(cat("written by b", writer, ";")), std::string::npos)
      << kinds(c.hints);
  EXPECT_HINT(c, HintKind::scale_ratio);
  EXPECT_NO_HINT(c, HintKind::dropped_chunk);
  // Grouped scales never get the per-column hint.
  const Expectation g = synthetic_expectation(grid_problem());
  HalfMatrix got = g.ref.expected;
  for (int i = 0; i < 16; ++i) got(i, 7) = round_to_half(2 * half_to_double(got(i, 7)));
  EXPECT_NO_HINT(compare(g, got), HintKind::scale_fetch);
}

TEST(Hints, TruncatingEpilogueIsARoundingBias) {
  const Expectation e = synthetic_expectation(Problem{{16, 1024, 4096, 128}, {1, 8, 8, 8}, 1, Contract::fp32});
  Faults f;
  f.epilogue_toward_zero = true;
  const Comparison c = compare(e, model_kernel(e, f));
  EXPECT_HINT(c, HintKind::rounding_bias);
  EXPECT_NE(find(c.hints, HintKind::rounding_bias)->text.find("lean toward zero"), std::string::npos);
}

TEST(Hints, RaceOnRepeat) {
  const Expectation e = synthetic_expectation(Problem{{64, 1024, 512, 64}, {1, 8, 8, 4}, 20, Contract::marlin});
  HalfMatrix other = e.ref.expected;
  for (const TileInfo& t : e.grid.tiles)
    if (t.slice_count() > 1) other(t.row0, t.col0) ^= 1;
  const Determinism d = check_determinism(e.schedule, {e.ref.expected, other});
  ASSERT_EQ(d.hints.size(), 1u);
  EXPECT_EQ(d.hints[0].kind, HintKind::race);
  EXPECT_NE(d.hints[0].text.find("only tiles reduced across thread blocks differ"), std::string::npos) << d.hints[0].text;
  HalfMatrix inside = e.ref.expected;
  inside(0, 0) ^= 1;
  inside(17, 900) ^= 1;
  const Determinism d2 = check_determinism(e.schedule, {e.ref.expected, inside, e.ref.expected});
  ASSERT_EQ(d2.hints.size(), 1u);
  EXPECT_EQ(d2.hints[0].kind, HintKind::race);
}

}  // namespace
}  // namespace tc
