// What the served formats' hypotheses share (hints_bf16.cpp, hints_zero_points.cpp,
// hints_act_order.cpp): the weight under a hypothesis, and the test of an element against the exact
// result the hypothesis gives.
// The test is the comparator's own acceptance rule moved to the hypothesised y: a kernel with the
// bug and otherwise correct numerics lands inside it, exactly as a correct kernel lands inside y*'s.
#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "hints_internal.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/dtype.h"

namespace tc::hints {

int scale_group(const Expectation& e, int k) {
  if (!e.g_idx.empty()) return e.g_idx[k];
  return is_per_column(e.w.group) ? 0 : k / e.w.group;
}

double format_weight(const Expectation& e, int k, int j, int dz, std::uint16_t scale) {
  const int q = e.w.codes(k, j);
  // A zero point read wrong may leave 0..15 (z + 1 of 15): computed here, not through code_value.
  const int z = e.zero_points.size() > 0 ? e.zero_points(scale_group(e, k), j) : 0;
  const int v = code_value(e.weight_type, q, z) - dz;
  if (is_per_column(e.w.group)) return v;
  return to_double(e.dtype, round_to(e.dtype, v * to_double(e.dtype, scale)));
}

Match match(const Expectation& e, const Comparison& c, int i, int j, double y, double S, std::uint16_t scale) {
  const Epilogue epilogue = e.numerics.numerics.epilogue;
  const std::uint16_t got = c.got(i, j);
  // The rounding of y itself; `unbounded` here is a NaN from the epilogue (0 times an Inf scale).
  const Admissible rounded = admissible_output(e.dtype, y, 0, scale, e.w.group, epilogue);
  const bool nan = rounded.nan_expected || rounded.unbounded;
  const bool exact =
      nan ? is_nan(e.dtype, got)
          : !is_nan(e.dtype, got) && rounded.key_lo == rounded.key_hi && key(e.dtype, got) == rounded.key_lo;
  const double y_star = e.ref.y_exact(i, j), S_star = e.ref.S(i, j);
  if (!std::isfinite(y_star) || !std::isfinite(S_star)) return Match::unusable;
  // A NaN or an Inf from an Inf weight or scale comes out in any order of the sum: no bound needed,
  // except that a partial sum overflowing to the other Inf turns an Inf into NaN.
  const bool unbounded = e.bounds.at(i, j).unbounded;
  if (nan || !std::isfinite(y)) {
    if (exact) return Match::exact;
    return !nan && unbounded && is_nan(e.dtype, got) ? Match::within : Match::outside;
  }
  if (unbounded) return Match::unusable;
  // The bound grows with the magnitude sum, each term at most linearly (docs/numerics.md): the
  // element's own E plus the bound of the extra magnitude, charged to every stored partial.
  const int P = e.numerics.schedule == ScheduleKind::model ? e.grid.at(i, j).slice_count() - 1 : e.max_slices - 1;
  const double extra = std::isfinite(S) ? std::max(0.0, S - S_star) : 0.0;
  const std::vector<double> partials(e.numerics.numerics.partials == Partials::fp16 ? P : 0, extra);
  const double ps = partial_scale(e.dtype, scale, e.w.group, epilogue);
  const double E = e.bounds.E(i, j) + error_bound(e.dtype, extra, e.shape().K, P, partials, ps);
  // Where a partial sum may overflow, as the bounds have it (a partial stored in the dtype is at
  // most (S + E) times its scale), every result is admissible.
  const bool dtype_partials = e.numerics.numerics.partials == Partials::fp16 && P > 0;
  if (accumulator_may_overflow(e.dtype, S, E) || (dtype_partials && (S + E) * ps >= overflow_threshold(e.dtype)) ||
      scaled_partial_may_overflow(S, E, P + 1, ps))
    return Match::unusable;
  if (exact) return Match::exact;
  const Admissible near = admissible_output(e.dtype, y, E, scale, e.w.group, epilogue);
  return !near.unbounded && admits(e.dtype, near, got) ? Match::within : Match::outside;
}

std::vector<int> tile_columns(const Expectation& e, const std::vector<int>& columns) {
  std::set<int> out;
  for (const TileInfo& t : e.grid.tiles)
    for (int j : columns)
      if (t.tile_row == 0 && j >= t.col0 && j < t.col0 + t.cols) out.insert(t.tile_col);
  return {out.begin(), out.end()};
}

std::string index_ranges(const std::vector<int>& sorted, size_t max_items) {
  std::string s;
  size_t items = 0;
  for (size_t a = 0; a < sorted.size(); ++a) {
    size_t b = a;
    while (b + 1 < sorted.size() && sorted[b + 1] == sorted[b] + 1) ++b;
    if (items == max_items) return cat(s, ", ... (", sorted.size(), " in all)");
    s += cat(s.empty() ? "" : ", ", sorted[a], b > a ? cat("-", sorted[b]) : "");
    ++items;
    a = b;
  }
  return s;
}

}  // namespace tc::hints
