// A served format's case as the hint tests build it (tests/compare/hints_formats_test.cpp,
// hints_act_order_test.cpp): a fixture made from a few fields, the format model's output with one
// bug (tests/compare/format_model.h) and the comparison of it.
#pragma once
#include <string>

#include <gtest/gtest.h>

#include "format_model.h"
#include "tilecheck/compare/compare.h"

namespace tc {

struct FormatCase {
  const char* format;        // "bf16-uint4-actrandom"
  const char* distribution;  // "normal", "extremes"
  Shape shape;
  Contract contract;
};

// "normal_m16_n128_k256_g64_marlin_bf16-uint4-actrandom"
std::string case_id(const FormatCase& fc);
// The same with every character but letters and digits as '_': a test name.
std::string format_case_name(const ::testing::TestParamInfo<FormatCase>& p);

struct Judged {
  Expectation e;
  Comparison c;
};

// The model kernel's output for the case (seed 411) with `fault`, judged under the contract's
// numerics and Marlin's schedule on 3 blocks.
Judged judged(const FormatCase& fc, format_model::Fault fault);

}  // namespace tc
