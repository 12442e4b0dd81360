// Shared by the files of the hint finder: hints.cpp (names, the sampling rule, the order the rules
// run in) and the rules, grouped by the evidence they read: hints_placement.cpp (where the
// failures sit), hints_values.cpp (what the failing values and the tiers' statistics say),
// hints_scales.cpp (ratios of scales), hints_groups.cpp (a neighbouring group's scale on part of K)
// hints_codes.cpp (a wrong code mapping), hints_inputs.cpp (hypotheses tested on the k-chunk sums),
// hints_reduction.cpp (an fp16 reduction) and hints_formats.cpp, hints_bf16.cpp, hints_zero_points.cpp,
// hints_act_order.cpp (the served formats' bugs).
// Each rule appends the hints it finds to `out`.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tilecheck/compare/compare.h"

namespace tc::hints {

using Element = std::pair<int, int>;  // (row, column) of the output

// Up to `count` of `all`, evenly spread (all of them when there are no more).
std::vector<Element> spread_sample(const std::vector<Element>& all, size_t count);
// Failing elements (verdict != PASS), in row-major order.
std::vector<Element> failing_elements(const Comparison& c);
// The hypotheses on the inputs (scale ratios, dropped chunks) are tested on up to 64 out-of-bound
// elements, spread over the failures, and reported when they explain needed(n) of the n usable.
std::vector<Element> out_of_bound_sample(const Comparison& c, const std::vector<Element>& fails);
size_t needed(size_t n);
// The same spread over the elements that fail on their values (FAIL_BOUND or NONFINITE): the
// served formats' hypotheses also explain a NaN or an Inf.
std::vector<Element> value_failure_sample(const Comparison& c, const std::vector<Element>& fails);

// Where the failures sit (hints_placement.cpp).
void unwritten(const Expectation& e, const Comparison& c, std::vector<Hint>& out);
void guard_and_rows(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                    std::vector<Hint>& out);
void isolated(const Expectation& e, const Comparison& c, const std::vector<Element>& fails, std::vector<Hint>& out);
void whole_tiles(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                 std::vector<Hint>& out);
void slices(const Expectation& e, const Comparison& c, std::vector<Hint>& out);
void block(const Expectation& e, const Comparison& c, std::vector<Hint>& out);
void layout(const Expectation& e, const std::vector<Element>& fails, std::vector<Hint>& out);

// What the values say (hints_values.cpp).
void nonfinite(const Expectation& e, const Comparison& c, const std::vector<Element>& fails, std::vector<Hint>& out);
void tiers(const Comparison& c, std::vector<Hint>& out);

// Ratios of scales (hints_scales.cpp).
void scale_fetch(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                 std::vector<Hint>& out);
void scale_ratio(const Expectation& e, const Comparison& c, const std::vector<Element>& fails, std::vector<Hint>& out);

// A neighbouring group's scale on part of K (hints_groups.cpp).
void group_boundary(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                    std::vector<Hint>& out);

// Hypotheses on the inputs (hints_inputs.cpp). A sampled out-of-bound element with what the
// kernel's accumulator must have been and the 16-deep k-chunk sums of its dot product (computed
// once, used by both hypotheses below).
struct InputSample {
  int i = 0;
  int j = 0;
  double acc = 0;       // implied by got (per-column scales divided out)
  double rounding = 0;  // how far got's rounding can move it
  std::vector<double> chunks;
};
std::vector<InputSample> input_samples(const Expectation& e, const Comparison& c, const std::vector<Element>& fails);
// The 16-deep chunk sums of one element: cs[t] = sum_{k in [16t, 16t + 16)} a_ik * w^_kj, with w^
// from a 16-entry table per scale group (one rounding per code and group, not per k; per-column
// scales are left out). slice_sum adds those of one slice's k-tiles (kb chunks a k-tile).
std::vector<double> chunk_sums(const Expectation& e, int i, int j);
double slice_sum(const std::vector<double>& cs, const Slice& s, int kb);
// Returns true when a wrong code mapping explains the failures (hints_codes.cpp; then the two below
// are skipped).
bool code_mapping(const Expectation& e, const std::vector<InputSample>& samples, std::vector<Hint>& out);
// Returns true when a dropped-chunk pattern explains the failures (then low_precision is skipped).
bool dropped_chunk(const Expectation& e, const std::vector<InputSample>& samples, std::vector<Hint>& out);
void low_precision(const Expectation& e, const Comparison& c, const std::vector<InputSample>& samples,
                   std::vector<Hint>& out);

// The served formats' hypotheses (hints_formats.cpp: what they share; hints_bf16.cpp,
// hints_zero_points.cpp, hints_act_order.cpp: the rules). Each recomputes y for a failing element
// under the bug and asks whether got is what a correct kernel could give for that y.
int scale_group(const Expectation& e, int k);  // the scale group of row k (act-order: g_idx)
// The weight the MMA sees at (k, j) in the case's format with the zero point read as z + dz and
// the scale bits `scale` (grouped: RN_t(v * s); per column: v, the scale comes in the epilogue).
double format_weight(const Expectation& e, int k, int j, int dz, std::uint16_t scale);
// How got at (i, j) fits an exact accumulator y with magnitude sum S (a hypothesis's; `scale`: the
// per-column scale its epilogue uses): bit for bit its rounding, within the element's bound moved to
// y (E plus the bound of S - S*), outside it, or unusable (y* not finite, or the bound admits
// everything). A NaN or Inf y must be one in got: no order of the sum changes it.
enum class Match { unusable, outside, within, exact };
Match match(const Expectation& e, const Comparison& c, int i, int j, double y, double S, std::uint16_t scale);
// How many of `sample` fit a hypothesis: usable ones, those within the moved bound, those bit for bit.
// product(i, k, j) is the hypothesis's a * w at row k; column_scale(j) the per-column scale bits its
// epilogue uses (ignored for grouped scales).
struct Tally {
  size_t usable = 0, fitting = 0, exact = 0;
};
template <class Product, class ColumnScale>
Tally tally_hypothesis(const Expectation& e, const Comparison& c, const std::vector<Element>& sample,
                       Product product, ColumnScale column_scale) {
  const bool per_column = is_per_column(e.w.group);
  Tally t;
  for (const auto& [i, j] : sample) {
    double y = 0, S = 0;
    for (int k = 0; k < e.shape().K; ++k) {
      const double p = product(i, k, j);
      y += p;
      S += std::fabs(p);
    }
    const Match m = match(e, c, i, j, y, S, per_column ? column_scale(j) : std::uint16_t{0});
    if (m == Match::unusable) continue;
    ++t.usable;
    t.fitting += m == Match::within || m == Match::exact;
    t.exact += m == Match::exact;
  }
  return t;
}
// "0-3, 8, 12-15" for sorted indices; past `max_items` items, ", ... (n in all)".
std::string index_ranges(const std::vector<int>& sorted, size_t max_items = 12);
std::vector<int> tile_columns(const Expectation& e, const std::vector<int>& columns);  // tile_col of each, sorted
void bf16_scale_through_fp16(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                             std::vector<Hint>& out);
void zero_point_off_by_one(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                           std::vector<Hint>& out);
void act_order_scatter(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                       std::vector<Hint>& out);

// The cross-block reduction done in fp16 (hints_reduction.cpp), tested bit for bit on the elements
// that differ in tiles reduced across blocks.
void fp16_reduction(const Expectation& e, const Comparison& c, std::vector<Hint>& out);

std::string number(double x, int digits);  // fixed-point, for the texts

}  // namespace tc::hints
