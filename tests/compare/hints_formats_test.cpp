// The served formats' hints (compare/src/hints_bf16.cpp, hints_zero_points.cpp): each names its bug
// on the format model's output (tests/compare/format_model.h), and neither speaks on a correct
// output or on the other bugs of the format: scale bugs (the neighbouring scale group or column's
// scales, the other hint's bug) and code offsets (uint4 read as uint4b8, uint8b128's bias 8).
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "format_cases.h"
#include "hint_checks.h"
#include "tilecheck/compare/hints.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

using format_model::Fault;

const FormatCase kBf16Grouped{"bf16-uint4b8", "extremes", {8, 128, 128, 32}, Contract::marlin};
const FormatCase kBf16PerColumn{"bf16-uint4b8", "extremes", {8, 128, 128, -1}, Contract::fp32};
const FormatCase kBf16ZeroPoints{"bf16-uint4", "extremes", {8, 128, 256, 64}, Contract::marlin};
const FormatCase kBf16Uint8{"bf16-uint8b128", "extremes", {8, 128, 128, 32}, Contract::fp32};
const FormatCase kFp16ZeroPoints{"fp16-uint4", "normal", {16, 128, 256, 128}, Contract::marlin};
const FormatCase kFp16ZeroPointsPerColumn{"fp16-uint4", "normal", {16, 128, 128, -1}, Contract::fp32};
const FormatCase kBf16ZeroPointsNormal{"bf16-uint4", "normal", {16, 128, 256, 32}, Contract::fp32};
const FormatCase kBf16ZeroPointsActOrder{"bf16-uint4-actrandom", "normal", {16, 128, 256, 64}, Contract::marlin};

class Bf16ScaleThroughFp16 : public ::testing::TestWithParam<FormatCase> {};

TEST_P(Bf16ScaleThroughFp16, IsNamedWithTheScalesItChanges) {
  const Judged j = judged(GetParam(), Fault::scale_through_fp16);
  ASSERT_GT(j.c.counts.mismatched(), 0) << "the extremes' scales reach past fp16's range";
  EXPECT_HINT(j.c, HintKind::bf16_scale_through_fp16);
  EXPECT_NO_HINT(j.c, HintKind::zero_point_off_by_one);
  const Hint* h = find(j.c.hints, HintKind::bf16_scale_through_fp16);
  ASSERT_NE(h, nullptr);
  EXPECT_NE(h->text.find("to Inf"), std::string::npos) << h->text;
  EXPECT_NE(h->text.find("in columns 0-1, 3-5, 7-9"), std::string::npos) << h->text;  // j % 4 != 2 (scale 1)
  EXPECT_NE(h->text.find("bit for bit"), std::string::npos) << h->text;
}

TEST_P(Bf16ScaleThroughFp16, SilentOnACorrectOutput) {
  const Judged j = judged(GetParam(), Fault::none);
  EXPECT_EQ(j.c.counts.mismatched(), 0);
  EXPECT_NO_HINT(j.c, HintKind::bf16_scale_through_fp16);
}

INSTANTIATE_TEST_SUITE_P(Formats, Bf16ScaleThroughFp16,
                         ::testing::Values(kBf16Grouped, kBf16PerColumn, kBf16ZeroPoints),
                         format_case_name);

// Where the conversion changes nothing (a normal case's scales), there is nothing to name.
TEST(Bf16ScaleThroughFp16Rule, NeedsAScaleThatChanges) {
  const Judged j = judged(kBf16ZeroPointsNormal, Fault::scale_through_fp16);
  EXPECT_EQ(j.c.counts.mismatched(), 0);
  EXPECT_NO_HINT(j.c, HintKind::bf16_scale_through_fp16);
}

TEST(Bf16ScaleThroughFp16Rule, SilentOnOtherBugs) {
  for (const auto& [fc, fault] :
       {std::pair{kBf16Grouped, Fault::scale_column_swapped}, std::pair{kBf16PerColumn, Fault::scale_column_swapped},
        std::pair{kBf16ZeroPoints, Fault::zero_point_off_by_one},
        std::pair{kBf16ZeroPoints, Fault::zero_points_ignored}, std::pair{kBf16Uint8, Fault::uint8_bias_8}}) {
    const Judged j = judged(fc, fault);
    EXPECT_GT(j.c.counts.mismatched(), 0) << case_id(fc) << " " << format_model::name(fault);
    EXPECT_NO_HINT(j.c, HintKind::bf16_scale_through_fp16) << case_id(fc) << " " << format_model::name(fault);
  }
}

class ZeroPointOffByOne : public ::testing::TestWithParam<FormatCase> {};

TEST_P(ZeroPointOffByOne, EveryGroupIsNamed) {
  const Judged j = judged(GetParam(), Fault::zero_point_off_by_one);
  ASSERT_GT(j.c.counts.bound, 0);
  EXPECT_HINT(j.c, HintKind::zero_point_off_by_one);
  EXPECT_NO_HINT(j.c, HintKind::bf16_scale_through_fp16);
  const Hint* h = find(j.c.hints, HintKind::zero_point_off_by_one);
  ASSERT_NE(h, nullptr);
  EXPECT_NE(h->text.find(GetParam().shape.group < 0 ? "every (per-column) zero point read as z + 1"
                                                    : "every group's zero point read as z + 1"),
            std::string::npos)
      << h->text;
  EXPECT_NE(h->text.find("tile columns"), std::string::npos) << h->text;
}

TEST_P(ZeroPointOffByOne, SilentOnACorrectOutput) {
  const Judged j = judged(GetParam(), Fault::none);
  EXPECT_EQ(j.c.counts.mismatched(), 0);
  EXPECT_NO_HINT(j.c, HintKind::zero_point_off_by_one);
}

TEST_P(ZeroPointOffByOne, SilentOnScaleBugsAndACodeOffset) {
  for (Fault fault : {Fault::scale_group_off_by_one, Fault::scale_column_swapped, Fault::zero_points_ignored}) {
    // Per column there is no neighbouring group; the extremes' scales are alike in every group.
    if (fault == Fault::scale_group_off_by_one &&
        (GetParam().shape.group < 0 || std::string(GetParam().distribution) == "extremes"))
      continue;
    const Judged j = judged(GetParam(), fault);
    EXPECT_GT(j.c.counts.bound, 0) << format_model::name(fault);
    EXPECT_NO_HINT(j.c, HintKind::zero_point_off_by_one) << format_model::name(fault);
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, ZeroPointOffByOne,
                         ::testing::Values(kBf16ZeroPoints, kFp16ZeroPoints, kFp16ZeroPointsPerColumn,
                                           kBf16ZeroPointsNormal, kBf16ZeroPointsActOrder),
                         format_case_name);

// The notebook's bug: one group's zero points off by one (here z - 1), the others right.
TEST(ZeroPointOffByOneRule, NamesTheGroup) {
  const Judged j = judged(kFp16ZeroPoints, Fault::zero_point_down_in_group_0);
  ASSERT_GT(j.c.counts.bound, 0);
  const Hint* h = find(j.c.hints, HintKind::zero_point_off_by_one);
  ASSERT_NE(h, nullptr) << kinds(j.c.hints);
  EXPECT_NE(h->text.find("group 0 (k 0-127): z - 1 in"), std::string::npos) << h->text;
  EXPECT_EQ(h->text.find("group 1"), std::string::npos) << h->text;
}

TEST(ZeroPointOffByOneRule, SilentOnTheBf16ScaleBug) {
  const Judged j = judged(kBf16ZeroPoints, Fault::scale_through_fp16);
  ASSERT_GT(j.c.counts.mismatched(), 0);
  EXPECT_NO_HINT(j.c, HintKind::zero_point_off_by_one);
}

}  // namespace
}  // namespace tc
