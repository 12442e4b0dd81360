#include "format_cases.h"

#include <cctype>

#include "tilecheck/core/error.h"

namespace tc {

std::string case_id(const FormatCase& fc) {
  return cat(fc.distribution, "_m", fc.shape.M, "_n", fc.shape.N, "_k", fc.shape.K, "_g",
             fc.shape.group < 0 ? std::string("col") : std::to_string(fc.shape.group), "_", name(fc.contract), "_",
             fc.format);
}

std::string format_case_name(const ::testing::TestParamInfo<FormatCase>& p) {
  std::string s = case_id(p.param);
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

Judged judged(const FormatCase& fc, format_model::Fault fault) {
  const Fixture f = make_fixture(
      CaseSpec(case_id(fc), fc.shape, fc.contract, parse_distribution(fc.distribution), 411, parse_format(fc.format)));
  Judged j{make_expectation(f, make_schedule(f.spec.shape, choose_config(f.spec.shape), 3), "synthetic"), {}};
  j.c = compare(j.e, format_model::model_output(f, j.e, fault, false, 5));
  return j;
}

}  // namespace tc
