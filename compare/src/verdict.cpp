#include "tilecheck/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "tilecheck/poison.h"

namespace tc {

std::string_view name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail_bound: return "FAIL_BOUND";
    case Verdict::nonfinite: return "NONFINITE";
    case Verdict::unwritten: return "UNWRITTEN";
    case Verdict::guard: return "GUARD";
  }
  return "?";
}

char symbol(Mark m) {
  static constexpr char kSymbols[kMarks] = {'.', '1', 'b', 'X', 'N', 'U', 'G'};
  return kSymbols[static_cast<int>(m)];
}

std::int32_t signed_ulp(half_bits got, half_bits expected) {
  if (is_nan(got) || is_nan(expected)) return is_nan(got) && is_nan(expected) ? 0 : kNotComparable;
  if (is_inf(got) != is_inf(expected)) return kNotComparable;
  return half_key(got) - half_key(expected);
}

std::int32_t allowance_ulps(half_bits expected, const Admissible& adm) {
  if (adm.unbounded) return kUnbounded;
  if (adm.nan_expected || is_nan(expected)) return 0;
  const std::int32_t k = half_key(expected);
  return std::max({adm.key_hi - k, k - adm.key_lo, 0});
}

bool exact_match(half_bits got, half_bits expected) {
  if (is_nan(expected)) return is_nan(got);
  return got == expected || ((got | expected) & 0x7FFF) == 0;  // the second: +0 and -0
}

ElementJudgement judge_element(half_bits got, half_bits expected, const Admissible& adm) {
  ElementJudgement j;
  j.ulp = signed_ulp(got, expected);
  j.allowance = allowance_ulps(expected, adm);
  if (is_poison(got)) {
    j.verdict = Verdict::unwritten;
    j.mark = Mark::unwritten;
  } else if (admits(adm, got)) {
    j.verdict = Verdict::pass;
    j.mark = exact_match(got, expected) ? Mark::exact
             : (j.ulp == 1 || j.ulp == -1) ? Mark::one_ulp
                                           : Mark::within_bound;
  } else if (!is_finite(got)) {
    j.verdict = Verdict::nonfinite;
    j.mark = Mark::nonfinite;
  } else {
    j.verdict = Verdict::fail_bound;
    j.mark = Mark::fail;
  }
  return j;
}

double utilization(std::int32_t ulp, std::int32_t allowance) {
  if (ulp == kNotComparable) return INFINITY;
  if (allowance == kUnbounded) return 0.0;
  return std::abs(static_cast<double>(ulp)) / std::max<std::int32_t>(1, allowance);
}

}  // namespace tc
