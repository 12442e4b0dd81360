// The verdict on one output element: the rules every tier builds on (docs/compare.md).
//   UNWRITTEN  got is the poison sentinel (tilecheck/compare/poison.h): the kernel never wrote it
//   PASS       got is admissible: tc::admits(bounds, got) under the contract and the schedule, and a
//              NaN where only a NaN is (nan_only)
//   NONFINITE  got is NaN or Inf and not admissible (e.g. finite expected)
//   FAIL_BOUND got is finite and not admissible
//   GUARD      a cell of the guard band around the output was written (guard cells only)
// Admissibility encodes the special values (tilecheck/reference/bound.h): +-0 compare equal, Inf only
// where the interval reaches overflow. An expected NaN accepts any NaN and nothing else (nan_only),
// also where an fp16 partial sum may overflow.
#pragma once
#include <cstdint>
#include <limits>
#include <string_view>

#include "tilecheck/reference/bound.h"
#include "tilecheck/reference/dtype.h"
#include "tilecheck/reference/fp16.h"
#include "tilecheck/compare/poison.h"

namespace tc {

enum class Verdict : std::uint8_t { pass = 0, fail_bound = 1, nonfinite = 2, unwritten = 3, guard = 4 };
constexpr int kVerdicts = 5;
std::string_view name(Verdict v);  // "PASS", "FAIL_BOUND", "NONFINITE", "UNWRITTEN", "GUARD"

// The heatmap class of an element, ordered by severity so that a tile shows its worst element:
//   '.' bitwise exact (+-0 equal, NaN for NaN)   '1' one ULP off   'b' further, within the bound
//   'X' FAIL_BOUND   'N' NONFINITE   'U' UNWRITTEN   'G' a guard cell next to it was written
enum class Mark : std::uint8_t { exact = 0, one_ulp, within_bound, fail, nonfinite, unwritten, guard };
constexpr int kMarks = 7;
char symbol(Mark m);

// ULP distances are signed: key(got) - key(expected), positive when got is larger.
// kNotComparable: exactly one of the two is NaN, or one is Inf and the other finite (Inf is one key
// past the largest finite value, but never "one ULP" off).
constexpr std::int32_t kNotComparable = std::numeric_limits<std::int32_t>::min();
// The allowance of an element whose every result is admissible (an fp16 partial sum may overflow).
constexpr std::int32_t kUnbounded = -1;

// The per-element rules are inline: the comparator applies them to every element of large outputs.
// Each reads the output bits in the case's dtype (tilecheck/reference/dtype.h): bf16's NaN, Inf,
// subnormals and ordering are not fp16's. The overloads without a dtype are fp16's.

// Whether `bits` is the never-written sentinel of the dtype (poison.h).
inline bool is_unwritten(Dtype d, std::uint16_t bits) { return bits == poison(d); }

inline std::int32_t signed_ulp(Dtype d, std::uint16_t got, std::uint16_t expected) {
  if (is_nan(d, got) || is_nan(d, expected)) return is_nan(d, got) && is_nan(d, expected) ? 0 : kNotComparable;
  if (is_inf(d, got) != is_inf(d, expected)) return kNotComparable;
  return key(d, got) - key(d, expected);
}
inline std::int32_t signed_ulp(half_bits got, half_bits expected) { return signed_ulp(Dtype::fp16, got, expected); }

// Whether only a NaN is admissible. Where y* is NaN (a NaN input, Inf * 0, or +Inf and -Inf among the
// products: adm.nan_expected) every summation order gives NaN, so a partial sum that may overflow
// (adm.unbounded) changes nothing; and a NaN expected value is never met by a number unless the
// admissible set itself reaches a NaN epilogue (unbounded: an fp16 sum at the overflow edge times a
// zero per-column scale, which a correct kernel may also round to 65504 * 0 = 0).
inline bool nan_only(Dtype d, std::uint16_t expected, const Admissible& adm) {
  return adm.nan_expected || (is_nan(d, expected) && !adm.unbounded);
}
inline bool nan_only(half_bits expected, const Admissible& adm) { return nan_only(Dtype::fp16, expected, adm); }

// How far from `expected`, in ULPs, the admissible range reaches on the side where got lies (the
// farther side when got equals expected or is NaN), so |ulp| <= allowance exactly when a comparable
// got is admissible. 0 for an expected NaN, kUnbounded when everything is admissible.
inline std::int32_t allowance_ulps(Dtype d, std::uint16_t got, std::uint16_t expected, const Admissible& adm) {
  if (nan_only(d, expected, adm)) return 0;
  if (adm.unbounded) return kUnbounded;
  if (is_nan(d, expected)) return 0;
  const std::int32_t k = key(d, expected);
  const std::int32_t up = adm.key_hi - k > 0 ? adm.key_hi - k : 0;
  const std::int32_t down = k - adm.key_lo > 0 ? k - adm.key_lo : 0;
  const std::int32_t g = is_nan(d, got) ? k : key(d, got);
  return g > k ? up : g < k ? down : (up > down ? up : down);
}
inline std::int32_t allowance_ulps(half_bits got, half_bits expected, const Admissible& adm) {
  return allowance_ulps(Dtype::fp16, got, expected, adm);
}

// T0's rule: bitwise equal, except that +0 equals -0 and an expected NaN accepts any NaN (both
// encodings keep the sign in bit 15).
inline bool exact_match(Dtype d, std::uint16_t got, std::uint16_t expected) {
  if (is_nan(d, expected)) return is_nan(d, got);
  return got == expected || ((got | expected) & 0x7FFF) == 0;  // the second: +0 and -0
}
inline bool exact_match(half_bits got, half_bits expected) { return exact_match(Dtype::fp16, got, expected); }

struct ElementJudgement {
  Verdict verdict = Verdict::pass;
  Mark mark = Mark::exact;
  std::int32_t ulp = 0;        // signed_ulp(got, expected)
  std::int32_t allowance = 0;  // allowance_ulps(got, expected, adm)
};

inline ElementJudgement judge_element(Dtype d, std::uint16_t got, std::uint16_t expected, const Admissible& adm) {
  ElementJudgement j;
  j.ulp = signed_ulp(d, got, expected);
  j.allowance = allowance_ulps(d, got, expected, adm);
  if (is_unwritten(d, got)) {
    j.verdict = Verdict::unwritten;
    j.mark = Mark::unwritten;
  } else if (nan_only(d, expected, adm) ? is_nan(d, got) : admits(d, adm, got)) {
    j.verdict = Verdict::pass;
    j.mark = exact_match(d, got, expected) ? Mark::exact
             : (j.ulp == 1 || j.ulp == -1) ? Mark::one_ulp
                                           : Mark::within_bound;
  } else if (!is_finite(d, got)) {
    j.verdict = Verdict::nonfinite;
    j.mark = Mark::nonfinite;
  } else {
    j.verdict = Verdict::fail_bound;
    j.mark = Mark::fail;
  }
  return j;
}
inline ElementJudgement judge_element(half_bits got, half_bits expected, const Admissible& adm) {
  return judge_element(Dtype::fp16, got, expected, adm);
}

// |ulp| / max(1, allowance): at most 1 inside the bound, above 1 outside it, except that an allowance
// of 0 counts as 1 (an element allowed no deviation reads 1 when one ULP off). Infinite when not
// comparable; 0 when unbounded.
inline double utilization(std::int32_t ulp, std::int32_t allowance) {
  if (ulp == kNotComparable) return std::numeric_limits<double>::infinity();
  if (allowance == kUnbounded) return 0.0;
  return (ulp < 0 ? -static_cast<double>(ulp) : static_cast<double>(ulp)) / (allowance > 1 ? allowance : 1);
}

}  // namespace tc
