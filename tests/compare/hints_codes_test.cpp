// The code-mapping hint (compare/src/hints_codes.cpp): every code dequantized by a wrong mapping,
// tested on the inputs of sampled failures, on normal inputs, grouped and per column.
#include "tilecheck/compare/hints.h"

#include <gtest/gtest.h>

#include "hint_checks.h"
#include "synthetic.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

struct MapCase {
  int code_map;
  int group;
  const char* text;
};

class CodeMapping : public ::testing::TestWithParam<MapCase> {};

TEST_P(CodeMapping, IsNamed) {
  const MapCase& m = GetParam();
  const Expectation e = synthetic_expectation(grid_problem(Contract::marlin, m.group));
  Faults f;
  f.code_map = m.code_map;
  const Comparison c = compare(e, model_kernel(e, f));
  ASSERT_GT(c.counts.bound, 0);
  EXPECT_HINT(c, HintKind::code_mapping);
  const std::string& text = find(c.hints, HintKind::code_mapping)->text;
  EXPECT_NE(text.find(m.text), std::string::npos) << text;
  EXPECT_NO_HINT(c, HintKind::whole_tiles);
  EXPECT_NO_HINT(c, HintKind::dropped_chunk);
}

INSTANTIATE_TEST_SUITE_P(Maps, CodeMapping,
                         ::testing::Values(MapCase{1, 64, "zero point 7"}, MapCase{1, -1, "zero point 7"},
                                           MapCase{2, 128, "signed int4"}, MapCase{3, -1, "top bit lost"}),
                         [](const ::testing::TestParamInfo<MapCase>& p) {
                           return "map" + std::to_string(p.param.code_map) +
                                  (p.param.group < 0 ? "_gcol" : "_g" + std::to_string(p.param.group));
                         });

TEST(CodeMapping, NotForOtherCauses) {
  const Expectation e = synthetic_expectation(grid_problem(Contract::fp32, 64));
  Faults dropped;
  dropped.drop_first_step_of = 3;
  const Comparison c = compare(e, model_kernel(e, dropped));
  EXPECT_HINT(c, HintKind::dropped_chunk);
  EXPECT_NO_HINT(c, HintKind::code_mapping);
  Faults fp16;
  fp16.fp16_accumulation = true;
  EXPECT_NO_HINT(compare(e, model_kernel(e, fp16)), HintKind::code_mapping);
}

}  // namespace
}  // namespace tc
