// The hint finder: runs the rules (hints_internal.h) in an order that lets the specific ones speak
// first. Each rule fires only when its pattern is unlikely by chance (enough failures, a
// discriminating complement), and its text cites the numbers it rests on.
#include "tilecheck/compare/hints.h"

#include <algorithm>
#include <cstdio>

#include "hints_internal.h"
#include "tilecheck/compare/compare.h"

namespace tc {

std::string_view name(HintKind kind) {
  switch (kind) {
    case HintKind::row_predication: return "row_predication";
    case HintKind::column_predication: return "column_predication";
    case HintKind::multi_slice: return "multi_slice";
    case HintKind::single_slice: return "single_slice";
    case HintKind::scale_fetch: return "scale_fetch";
    case HintKind::column_half: return "column_half";
    case HintKind::row_half: return "row_half";
    case HintKind::warp: return "warp";
    case HintKind::scale_ratio: return "scale_ratio";
    case HintKind::group_boundary: return "group_boundary";
    case HintKind::code_mapping: return "code_mapping";
    case HintKind::dropped_chunk: return "dropped_chunk";
    case HintKind::low_precision: return "low_precision";
    case HintKind::fp16_reduction: return "fp16_reduction";
    case HintKind::block: return "block";
    case HintKind::whole_tiles: return "whole_tiles";
    case HintKind::unwritten: return "unwritten";
    case HintKind::isolated: return "isolated";
    case HintKind::bit_flip: return "bit_flip";
    case HintKind::nonfinite: return "nonfinite";
    case HintKind::rounding_bias: return "rounding_bias";
    case HintKind::wide_errors: return "wide_errors";
    case HintKind::not_exact: return "not_exact";
    case HintKind::race: return "race";
    case HintKind::bf16_scale_through_fp16: return "bf16_scale_through_fp16";
    case HintKind::zero_point_off_by_one: return "zero_point_off_by_one";
    case HintKind::act_order_scatter: return "act_order_scatter";
  }
  return "?";
}

bool has_hint(const std::vector<Hint>& hints, HintKind kind) {
  return std::any_of(hints.begin(), hints.end(), [&](const Hint& h) { return h.kind == kind; });
}

namespace hints {
namespace {

constexpr size_t kSamples = 64;

}  // namespace

std::vector<Element> spread_sample(const std::vector<Element>& all, size_t count) {
  if (all.size() <= count) return all;
  std::vector<Element> out;
  for (size_t i = 0; i < count; ++i) out.push_back(all[i * all.size() / count]);
  return out;
}

std::vector<Element> failing_elements(const Comparison& c) {
  std::vector<Element> out;
  for (int i = 0; i < c.M; ++i)
    for (int j = 0; j < c.N; ++j)
      if (c.verdict(i, j) != static_cast<std::uint8_t>(Verdict::pass)) out.push_back({i, j});
  return out;
}

// With tens of candidate explanations per element, a chance match of 75% of the sample is
// negligible (the per-element chance is below 1/4 for every hypothesis family), while a real cause
// explains all of them.
std::vector<Element> out_of_bound_sample(const Comparison& c, const std::vector<Element>& fails) {
  std::vector<Element> bound;
  for (const Element& f : fails)
    if (c.verdict(f.first, f.second) == static_cast<std::uint8_t>(Verdict::fail_bound)) bound.push_back(f);
  return spread_sample(bound, kSamples);
}

std::vector<Element> value_failure_sample(const Comparison& c, const std::vector<Element>& fails) {
  std::vector<Element> valued;
  for (const Element& f : fails) {
    const auto v = static_cast<Verdict>(c.verdict(f.first, f.second));
    if (v == Verdict::fail_bound || v == Verdict::nonfinite) valued.push_back(f);
  }
  return spread_sample(valued, kSamples);
}

size_t needed(size_t n) { return std::max<size_t>(3, (3 * n + 3) / 4); }

std::string number(double x, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

}  // namespace hints

std::vector<Hint> find_hints(const Expectation& e, const Comparison& c) {
  std::vector<Hint> out;
  const std::vector<hints::Element> fails = hints::failing_elements(c);
  hints::unwritten(e, c, out);
  hints::guard_and_rows(e, c, fails, out);
  if (!e.v1_format()) {
    // The value and input hypotheses below decode fp16 bits and uint4b8 codes; for the other
    // formats only their own bugs' hypotheses (in any dtype and code type) and the placement rules,
    // which read verdicts, speak.
    hints::bf16_scale_through_fp16(e, c, fails, out);
    hints::zero_point_off_by_one(e, c, fails, out);
    hints::act_order_scatter(e, c, fails, out);
    hints::slices(e, c, out);
    hints::block(e, c, out);
    hints::layout(e, fails, out);
    hints::tiers(c, out);
    return out;
  }
  hints::nonfinite(e, c, fails, out);
  hints::isolated(e, c, fails, out);
  // Causes tested on the inputs first; "whole tiles lost" only when none of them explains the data.
  const size_t before = out.size();
  hints::scale_fetch(e, c, fails, out);
  hints::scale_ratio(e, c, fails, out);
  if (out.size() == before) hints::group_boundary(e, c, fails, out);
  const std::vector<hints::InputSample> samples = hints::input_samples(e, c, fails);
  if (!hints::code_mapping(e, samples, out) && !hints::dropped_chunk(e, samples, out))
    hints::low_precision(e, c, samples, out);
  hints::fp16_reduction(e, c, out);
  if (out.size() == before) hints::whole_tiles(e, c, fails, out);
  hints::slices(e, c, out);
  hints::block(e, c, out);
  hints::layout(e, fails, out);
  hints::tiers(c, out);
  return out;
}

}  // namespace tc
