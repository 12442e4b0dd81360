// Hints from what the failing values and the tiers' statistics say: NaN and Inf where the
// reference is finite (an fp16 overflow before the scale, or a poisoned read), a directed rounding,
// errors wider than the contract's rounding, last-bit differences in an exact case.
#include <cmath>

#include "hints_internal.h"
#include "tilecheck/core/error.h"

namespace tc::hints {

void nonfinite(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
               std::vector<Hint>& out) {
  if (c.counts.nonfinite == 0) return;
  long long nan = 0, inf = 0, overflow = 0;
  const Element* first = nullptr;
  for (const Element& f : fails) {
    if (c.verdict(f.first, f.second) != static_cast<std::uint8_t>(Verdict::nonfinite)) continue;
    if (!first) first = &f;
    const half_bits g = c.got(f.first, f.second);
    is_nan(g) ? ++nan : ++inf;
    if (is_inf(g) && std::fabs(e.ref.y_exact(f.first, f.second)) >= kHalfOverflow) ++overflow;
  }
  std::string why = "an uninitialised or poisoned shared-memory read (a missing cp.async wait or barrier), an "
                    "fp16 partial sum that overflowed, or a non-finite input reaching the wrong element";
  if (overflow > 0 && overflow == inf && nan == 0)
    why = is_per_column(e.w.group) && e.numerics.numerics.epilogue != Epilogue::round_then_scale
              ? "the unscaled sum exceeds 65504: the kernel rounds to fp16 before applying the per-column scale "
                "(the marlin epilogue) while the numerics judged scale first"
              : "the unscaled sum exceeds 65504 before scaling";
  out.push_back({HintKind::nonfinite, cat(nan, " NaN and ", inf, " Inf where the reference is finite, first at (",
                                          first->first, ", ", first->second, ") -> ", why)});
}

void tiers(const Comparison& c, std::vector<Hint>& out) {
  if (c.tier("t2").status == TierStatus::fail) {
    if (std::fabs(c.stats.bias_toward_zero) > c.stats.bias_limit())
      out.push_back({HintKind::rounding_bias,
                     cat("errors lean ", c.stats.bias_toward_zero < 0 ? "toward" : "away from", " zero by ",
                         number(std::fabs(c.stats.bias_toward_zero), 3), " ULP on average -> a directed rounding: a truncating "
                         "conversion (e.g. __float2half_rz in the epilogue) or rounding away from zero")});
    if (std::fabs(c.stats.bias) > c.stats.bias_limit())
      out.push_back({HintKind::rounding_bias, cat("errors lean ", c.stats.bias < 0 ? "down" : "up", " by ",
                                                  number(std::fabs(c.stats.bias), 3), " ULP on average -> rounding toward ",
                                                  c.stats.bias < 0 ? "-Inf" : "+Inf", " somewhere")});
    if (c.stats.rms > kRmsLimit)
      out.push_back({HintKind::wide_errors,
                     cat("errors use a large share of their allowance (rms ", number(c.stats.rms, 3), " > ", kRmsLimit,
                         ") -> more rounding than the contract models: fp16 partial sums where it promises fp32, "
                         "or a lower-precision accumulation")});
  }
  if (c.tier("t0").status == TierStatus::fail && c.tier("t1").status == TierStatus::pass)
    out.push_back({HintKind::not_exact,
                   cat(c.counts.not_exact, " element(s) of an exact case differ while all are within the bound -> "
                       "last-bit rounding: the epilogue's rounding mode or tie-breaking, or a lost low bit")});
}

}  // namespace tc::hints
