// bf16_scale_through_fp16: got = y* with every bf16 scale converted to fp16 and back before use
// (a __bfloat162half in the scale path, fp16 staging of the scales; the kernel's mutant 16).
// bf16 has fp32's 8 exponent bits and 8 significant bits, fp16 5 and 11: a normal bf16 value inside
// fp16's normal range survives the round trip exactly, so the bug acts only through the range, as
//   s' = bf16(fp16(s)) = 0     |s| at or below 2^-25
//                        Inf   |s| from 65520 up
//                        s rounded to fp16's subnormal spacing 2^-24 in between 2^-25 and 2^-14.
// The rule fires only when some scale of the case changes. For a sampled failure (FAIL_BOUND or
// NONFINITE) it recomputes the exact accumulator with s' (grouped: w^ = RN_bf16(v s'); per column:
// the epilogue multiplies by s') and tests got against it (hints_formats.cpp: match). It reports when
// that explains needed(n) of the n usable failures and the passing elements of the changed columns
// (up to 64 sampled) do not contradict it, naming the columns and tile columns the changed scales
// sit in.
#include <cmath>

#include "hints_internal.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/bf16.h"
#include "tilecheck/reference/dtype.h"

namespace tc::hints {
namespace {

constexpr size_t kPassingSamples = 64;

std::uint16_t through_fp16(std::uint16_t s) { return round_to_bf16(half_to_double(round_to_half(bf16_to_double(s)))); }

// The scales as the bug leaves them, and what the conversion did to them.
struct Converted {
  HalfMatrix scales;  // (G, N) bf16 bits
  long long to_inf = 0, to_zero = 0, rounded = 0;
  std::vector<int> columns;  // columns with a changed scale, sorted
  long long changed() const { return to_inf + to_zero + rounded; }
};

Converted convert(const Expectation& e) {
  Converted out;
  out.scales = e.w.scales;
  for (int j = 0; j < e.w.scales.cols(); ++j) {
    bool column_changed = false;
    for (int g = 0; g < e.w.scales.rows(); ++g) {
      const std::uint16_t s = e.w.scales(g, j), t = through_fp16(s);
      if (t == s || (bf16_is_nan(s) && bf16_is_nan(t))) continue;
      out.scales(g, j) = t;
      column_changed = true;
      if (bf16_is_inf(t)) {
        ++out.to_inf;
      } else if (bf16_to_double(t) == 0) {
        ++out.to_zero;
      } else {
        ++out.rounded;
      }
    }
    if (column_changed) out.columns.push_back(j);
  }
  return out;
}

// How many of `sample` fit the converted scales (within the bound, or bit for bit).
Tally tally(const Expectation& e, const Comparison& c, const Converted& conv, const std::vector<Element>& sample) {
  return tally_hypothesis(
      e, c, sample,
      [&](int i, int k, int j) {
        return bf16_to_double(e.A(i, k)) * format_weight(e, k, j, 0, conv.scales(scale_group(e, k), j));
      },
      [&](int j) { return conv.scales(0, j); });
}

}  // namespace

void bf16_scale_through_fp16(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                             std::vector<Hint>& out) {
  if (e.dtype != Dtype::bf16 || fails.empty()) return;
  const Converted conv = convert(e);
  if (conv.changed() == 0) return;  // the bug cannot show on this case
  const Tally failures = tally(e, c, conv, value_failure_sample(c, fails));
  if (failures.usable < 3 || failures.fitting < needed(failures.usable)) return;
  // The elements that pass in the columns the conversion changes must not contradict it: a bug that
  // only overflows (NaN where a scale fp16 turns to Inf gives NaN too) leaves other rows of those
  // columns passing where the converted scale would move them. Estimated over the whole output, the
  // failures it explains must outnumber the passing elements it contradicts 3 to 1.
  std::vector<bool> changed(e.N(), false);
  for (int j : conv.columns) changed[j] = true;
  std::vector<Element> passing;
  for (int i = 0; i < c.M; ++i)
    for (int j = 0; j < c.N; ++j)
      if (changed[j] && c.verdict(i, j) == static_cast<std::uint8_t>(Verdict::pass)) passing.push_back({i, j});
  const Tally passes = tally(e, c, conv, spread_sample(passing, kPassingSamples));
  const size_t contradicted = passes.usable - passes.fitting;
  const double explained_share = static_cast<double>(failures.fitting) / failures.usable;
  const double contradicted_share = passes.usable ? static_cast<double>(contradicted) / passes.usable : 0.0;
  const double value_failures = static_cast<double>(c.counts.bound + c.counts.nonfinite);
  if (explained_share * value_failures < 3 * contradicted_share * static_cast<double>(passing.size())) return;
  const long long scales = static_cast<long long>(e.w.scales.size());
  out.push_back(
      {HintKind::bf16_scale_through_fp16,
       cat("got = y* with every bf16 scale converted to fp16 and back (s -> bf16(fp16(s))), within the bound for ",
           failures.fitting, " of ", failures.usable, " sampled failures (", failures.exact, " bit for bit) and ",
           contradicted, " of ", passes.usable,
           " sampled passing elements of the columns it changes contradict it; it changes ", conv.changed(), " of ",
           scales, " scales (", conv.to_inf, " to Inf, ", conv.to_zero, " to 0, ", conv.rounded,
           " rounded to fp16's subnormal spacing) in columns ", index_ranges(conv.columns), " (tile columns ",
           index_ranges(tile_columns(e, conv.columns)), ") -> a bf16 scale passed through fp16 on its way to the ",
           is_per_column(e.w.group) ? "epilogue" : "dequantization",
           " (a __bfloat162half, fp16 staging of the scales): every tile of those columns, only where fp16's "
           "range cannot hold the scale")});
}

}  // namespace tc::hints
