// The group-boundary hint (compare/src/hints_groups.cpp): got = y* with a neighbouring scale group's
// scale on part of K, solved per tile column from normal inputs (no one-hot probe needed).
#include "tilecheck/compare/hints.h"

#include <cstdio>

#include <gtest/gtest.h>

#include "hint_checks.h"
#include "synthetic.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

TEST(Hints, AGroupScaleReadOneKTileLateIsAGroupBoundary) {
  // Groups of 64 = the 64-deep k-tile: block 1's slices read the previous group's scales on every
  // other k-tile, the other blocks are right (least squares: 32 rows per tile, 8 units).
  const Expectation e = synthetic_expectation(Problem{{32, 1024, 512, 64}, {2, 16, 4, 4}, 3, Contract::fp32});
  Faults f;
  f.lagging_group_scale_of = 1;
  const Comparison c = compare(e, model_kernel(e, f));
  ASSERT_GT(c.counts.bound, 0);
  EXPECT_HINT(c, HintKind::group_boundary);
  const std::string& text = find(c.hints, HintKind::group_boundary)->text;
  EXPECT_NE(text.find("the scale of group g-1 instead of g on part of K"), std::string::npos) << text;
  EXPECT_NE(text.find("a scale group boundary"), std::string::npos) << text;
  EXPECT_NE(text.find("its slices (schedule model): "), std::string::npos) << text;
  std::printf("%s\n", text.c_str());
  EXPECT_NE(text.find("tiles (0, 1), (0, 2)"), std::string::npos) << text;  // the two that involve block 1
  EXPECT_NO_HINT(c, HintKind::whole_tiles);
}

TEST(Hints, AWholeGroupOffsetOnNormalInputsNamesTheIndex) {
  // Four rows per tile: every subset of the 8 units is tried.
  const Expectation e = synthetic_expectation(Problem{{4, 1024, 512, 64}, {1, 16, 4, 4}, 3, Contract::marlin});
  Faults f;
  f.scale_group_offset = 1;
  const Comparison c = compare(e, model_kernel(e, f));
  ASSERT_GT(c.counts.bound, 0);
  EXPECT_HINT(c, HintKind::group_boundary);
  const std::string& text = find(c.hints, HintKind::group_boundary)->text;
  EXPECT_NE(text.find("the scale group index is off by 1"), std::string::npos) << text;
}

TEST(Hints, NoGroupBoundaryForOtherCauses) {
  const Expectation e = synthetic_expectation(Problem{{32, 1024, 512, 64}, {2, 16, 4, 4}, 3, Contract::fp32});
  Faults dropped;
  dropped.drop_first_step_of = 2;
  const Comparison c = compare(e, model_kernel(e, dropped));
  EXPECT_HINT(c, HintKind::dropped_chunk);
  EXPECT_NO_HINT(c, HintKind::group_boundary);
  Faults fp16;
  fp16.fp16_accumulation = true;
  EXPECT_NO_HINT(compare(e, model_kernel(e, fp16)), HintKind::group_boundary);
  EXPECT_NO_HINT(compare(e, e.ref.expected), HintKind::group_boundary);
}

}  // namespace
}  // namespace tc
