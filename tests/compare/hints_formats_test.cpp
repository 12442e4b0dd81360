// The served formats' hints (compare/src/hints_bf16.cpp): each names its bug on the format model's
// output (tests/compare/format_model.h), and does not speak on a correct output or on the other
// bugs of the format: a scale bug (the neighbouring column's scales), a zero point off by one and
// code offsets (uint4 read as uint4b8, uint8b128's bias 8).
#include <cctype>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "format_model.h"
#include "hint_checks.h"
#include "tilecheck/compare/hints.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

using format_model::Fault;

struct FormatCase {
  const char* format;
  const char* distribution;
  Shape shape;
  Contract contract;
};

std::string case_id(const FormatCase& fc) {
  return cat(fc.distribution, "_m", fc.shape.M, "_n", fc.shape.N, "_k", fc.shape.K, "_g",
             fc.shape.group < 0 ? std::string("col") : std::to_string(fc.shape.group), "_", name(fc.contract), "_",
             fc.format);
}

struct Judged {
  Expectation e;
  Comparison c;
};

// The model kernel's output for the case with `fault`, judged under the contract's numerics and
// Marlin's schedule on 3 blocks.
Judged judged(const FormatCase& fc, Fault fault) {
  const Fixture f = make_fixture(
      CaseSpec(case_id(fc), fc.shape, fc.contract, parse_distribution(fc.distribution), 411, parse_format(fc.format)));
  Judged j{make_expectation(f, make_schedule(f.spec.shape, choose_config(f.spec.shape), 3), "synthetic"), {}};
  j.c = compare(j.e, format_model::model_output(f, j.e, fault, false, 5));

  return j;
}

const FormatCase kBf16Grouped{"bf16-uint4b8", "extremes", {8, 128, 128, 32}, Contract::marlin};
const FormatCase kBf16PerColumn{"bf16-uint4b8", "extremes", {8, 128, 128, -1}, Contract::fp32};
const FormatCase kBf16ZeroPoints{"bf16-uint4", "extremes", {8, 128, 256, 64}, Contract::marlin};
const FormatCase kBf16Uint8{"bf16-uint8b128", "extremes", {8, 128, 128, 32}, Contract::fp32};
const FormatCase kBf16ZeroPointsNormal{"bf16-uint4", "normal", {16, 128, 256, 32}, Contract::fp32};

class Bf16ScaleThroughFp16 : public ::testing::TestWithParam<FormatCase> {};

TEST_P(Bf16ScaleThroughFp16, IsNamedWithTheScalesItChanges) {
  const Judged j = judged(GetParam(), Fault::scale_through_fp16);
  ASSERT_GT(j.c.counts.mismatched(), 0) << "the extremes' scales reach past fp16's range";
  EXPECT_HINT(j.c, HintKind::bf16_scale_through_fp16);
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
                         [](const ::testing::TestParamInfo<FormatCase>& p) {
                           std::string s = case_id(p.param);
                           for (char& ch : s)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return s;
                         });

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

}  // namespace
}  // namespace tc
