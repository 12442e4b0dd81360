// act_order_scatter (compare/src/hints_act_order.cpp): on the format model's output with A's columns
// scattered by perm instead of gathered (tests/compare/format_model.h), for random and worst-case
// (transpose) permutations in fp16 and bf16, the hint names the bug and says how many sampled
// failures the hypothesis explains and how many bit for bit; it stays silent on a correct output, on
// the formats' other bugs (zero points, scales, g_idx) and where perm is its own inverse.
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "format_cases.h"
#include "hint_checks.h"
#include "tilecheck/compare/hints.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

using format_model::Fault;

class ActOrderScatter : public ::testing::TestWithParam<FormatCase> {};

TEST_P(ActOrderScatter, IsNamedWithTheFailuresItExplains) {
  const Judged j = judged(GetParam(), Fault::act_order_scatter);
  ASSERT_GT(j.c.counts.bound, 0) << case_id(GetParam());
  EXPECT_HINT(j.c, HintKind::act_order_scatter);
  EXPECT_NO_HINT(j.c, HintKind::zero_point_off_by_one);
  EXPECT_NO_HINT(j.c, HintKind::bf16_scale_through_fp16);
  const Hint* h = find(j.c.hints, HintKind::act_order_scatter);
  ASSERT_NE(h, nullptr);
  // The model's numerics are the bounds' own: every sampled failure fits, most of them bit for bit.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(h->text, m, std::regex(R"(for (\d+) of (\d+) sampled failures \((\d+) bit for bit\))")))
      << h->text;
  EXPECT_EQ(m[1].str(), m[2].str()) << h->text;
  EXPECT_GT(std::stoi(m[3].str()), 0) << h->text;
  EXPECT_NE(h->text.find(cat("of ", GetParam().shape.K, " rows of K")), std::string::npos) << h->text;
  EXPECT_NE(h->text.find("tile columns"), std::string::npos) << h->text;
  if (std::string(GetParam().distribution) == "normal") {  // every column fails
    EXPECT_NE(h->text.find(cat("in columns 0-", GetParam().shape.N - 1, " ")), std::string::npos) << h->text;
  }
}

TEST_P(ActOrderScatter, SilentOnACorrectOutput) {
  const Judged j = judged(GetParam(), Fault::none);
  EXPECT_EQ(j.c.counts.mismatched(), 0);
  EXPECT_NO_HINT(j.c, HintKind::act_order_scatter);
}

TEST_P(ActOrderScatter, SilentOnTheFormatsOtherBugs) {
  const FixtureFormat format = parse_format(GetParam().format);
  int judged_bugs = 0;
  for (Fault fault : {Fault::zero_point_off_by_one, Fault::zero_point_down_in_group_0, Fault::zero_points_ignored,
                      Fault::scale_through_fp16, Fault::uint8_bias_8, Fault::scale_group_off_by_one,
                      Fault::scale_column_swapped, Fault::g_idx_wrong_side}) {
    if (!format_model::applies(fault, format)) continue;
    const Judged j = judged(GetParam(), fault);
    if (j.c.counts.mismatched() == 0) continue;  // a bf16 scale that fp16 holds: nothing to explain
    ++judged_bugs;
    EXPECT_NO_HINT(j.c, HintKind::act_order_scatter) << format_model::name(fault);
  }
  EXPECT_GE(judged_bugs, 2);  // the extremes' scales are alike in every group: 2 bugs show there
}

const FormatCase kFp16Random{"fp16-uint4b8-actrandom", "normal", {16, 128, 512, 128}, Contract::marlin};
const FormatCase kFp16Worst{"fp16-uint4b8-actworst", "normal", {16, 128, 512, 64}, Contract::fp32};
const FormatCase kFp16RandomKpart{"fp16-uint4b8-actrandom-kpart", "normal", {33, 256, 512, 128}, Contract::marlin};
const FormatCase kFp16Uint8WorstKpart{"fp16-uint8b128-actworst-kpart", "normal", {16, 128, 256, 32}, Contract::fp32};
const FormatCase kBf16Random{"bf16-uint4-actrandom", "normal", {16, 128, 256, 64}, Contract::marlin};
const FormatCase kBf16Worst{"bf16-uint4b8-actworst", "normal", {16, 128, 512, 32}, Contract::marlin};
const FormatCase kBf16RandomExtremes{"bf16-uint4b8-actrandom", "extremes", {8, 128, 128, 32}, Contract::marlin};

INSTANTIATE_TEST_SUITE_P(Formats, ActOrderScatter,
                         ::testing::Values(kFp16Random, kFp16Worst, kFp16RandomKpart, kFp16Uint8WorstKpart, kBf16Random,
                                           kBf16Worst, kBf16RandomExtremes),
                         format_case_name);

// The worst case's perm is the transpose of a G x group grid of K; with G = group it is its own
// inverse, the scatter is the gather and the output is right: nothing to name.
TEST(ActOrderScatterRule, SilentWhenPermIsItsOwnInverse) {
  const FormatCase square{"fp16-uint4b8-actworst", "normal", {16, 128, 1024, 32}, Contract::marlin};
  const Judged j = judged(square, Fault::act_order_scatter);
  EXPECT_EQ(j.c.counts.mismatched(), 0);
  EXPECT_NO_HINT(j.c, HintKind::act_order_scatter);
}

// Without act-order there is no perm to apply on the wrong side, whatever fails.
TEST(ActOrderScatterRule, NeedsActOrder) {
  const FormatCase plain{"fp16-uint4", "normal", {16, 128, 256, 128}, Contract::marlin};
  const Judged j = judged(plain, Fault::zero_point_off_by_one);
  ASSERT_GT(j.c.counts.bound, 0);
  EXPECT_TRUE(j.e.perm.empty());
  EXPECT_NO_HINT(j.c, HintKind::act_order_scatter);
}

}  // namespace
}  // namespace tc
