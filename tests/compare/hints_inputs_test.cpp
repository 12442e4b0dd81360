// Hints from hypotheses tested on the k-chunk sums (compare/src/hints_inputs.cpp): every pattern
// of a dropped k-chunk by name, and fp16 accumulation.
#include "tilecheck/compare/hints.h"

#include <gtest/gtest.h>

#include "hint_checks.h"
#include "synthetic.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

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

TEST(Hints, AWriterThatSkipsThePartialsDropsEverySliceButItsOwn) {
  const Expectation e = synthetic_expectation(grid_problem());
  Faults f;
  f.writer_skips_partials = true;
  const Comparison c = compare(e, model_kernel(e, f));
  EXPECT_HINT(c, HintKind::dropped_chunk);
  const std::string& text = find(c.hints, HintKind::dropped_chunk)->text;
  EXPECT_NE(text.find("every slice but the last in its tile"), std::string::npos) << text;
  EXPECT_NE(text.find("-> lost partial sums"), std::string::npos) << text;
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

}  // namespace
}  // namespace tc
