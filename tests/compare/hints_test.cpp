// The hint finder (compare/src/hints.cpp): nothing for a clean output, one name per kind, and the
// order of the rules: a cause tested on the inputs silences the vaguer "whole tiles lost".
#include "tilecheck/compare/hints.h"

#include <set>
#include <string_view>

#include <gtest/gtest.h>

#include "hint_checks.h"
#include "synthetic.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

TEST(Hints, NoneForACleanOutput) {
  const Expectation e = synthetic_expectation(grid_problem());
  EXPECT_TRUE(find_hints(e, compare(e, e.ref.expected)).empty());
}

TEST(Hints, EveryKindHasItsOwnName) {
  std::set<std::string_view> names;
  constexpr HintKind kLast = HintKind::act_order_scatter;
  for (int k = 0; k <= static_cast<int>(kLast); ++k) names.insert(name(static_cast<HintKind>(k)));
  EXPECT_EQ(names.size(), static_cast<size_t>(kLast) + 1);
  EXPECT_EQ(names.count("?"), 0u);
  EXPECT_EQ(name(HintKind::dropped_chunk), "dropped_chunk");
  const std::vector<Hint> hints{{HintKind::warp, "w"}, {HintKind::block, "b"}};
  EXPECT_TRUE(has_hint(hints, HintKind::block));
  EXPECT_FALSE(has_hint(hints, HintKind::race));
}

TEST(Hints, ACauseFoundOnTheInputsSilencesWholeTiles) {
  // One tile doubled: under per-column scales that is a scale (scale_fetch), under grouped scales
  // nothing more specific than a lost tile.
  for (const int group : {64, -1}) {
    const Expectation e = synthetic_expectation(grid_problem(Contract::fp32, group));
    HalfMatrix got = e.ref.expected;
    const TileInfo& t = e.grid.tiles[e.grid.cols + 2];
    for (int i = t.row0; i < t.row0 + t.rows; ++i)
      for (int j = t.col0; j < t.col0 + t.cols; ++j) got(i, j) = round_to_half(2 * half_to_double(got(i, j)));
    const Comparison c = compare(e, got);
    EXPECT_EQ(has_hint(c.hints, HintKind::scale_fetch), group < 0) << group << "\n" << kinds(c.hints);
    EXPECT_EQ(has_hint(c.hints, HintKind::whole_tiles), group > 0) << group << "\n" << kinds(c.hints);
  }
}

}  // namespace
}  // namespace tc
