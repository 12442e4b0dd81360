// Hints from ratios of scales (compare/src/hints_scales.cpp): the final scale fetch of per-column
// scales, and got / expected as an exact ratio of two scales, each relation by name.
#include "tilecheck/compare/hints.h"

#include <gtest/gtest.h>

#include "hint_checks.h"
#include "synthetic.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

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

}  // namespace
}  // namespace tc
