// act_order_scatter: got = the product of B with A's columns permuted the wrong way round (the
// kernel's mutant 17). Under act-order a kernel gathers A, A'[:, i] = A[:, perm[i]], so that its row
// i of B, the checkpoint's row perm[i], meets the activation column it was quantized against
// (docs/plugin.md, "Formats"). A kernel that scatters instead, A''[:, perm[i]] = A[:, i], hands row
// i the column inv[i] (inv = perm^-1): the checkpoint's row k = perm[i] meets A's column inv[inv[k]],
// its scale group and zero point still its own. Every dot product pairs its weights with the wrong
// activations, so the errors sit everywhere, with no tile structure to read; the value itself is the
// evidence. For a sampled failure (FAIL_BOUND or NONFINITE) the rule recomputes the exact
// accumulator under that pairing and tests got against it (hints_formats.cpp: match); it reports
// when that explains needed(n) of the n usable, naming the columns and tile columns the failures
// lie in (all of them, for the bug). A perm that is its own inverse (the transpose of a square
// G x group grid) makes the scatter the gather: the bug cannot show there and the rule stays silent.
#include <cmath>

#include "hints_internal.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/dtype.h"

namespace tc::hints {
namespace {

// The column of A that the checkpoint's row k meets under the scatter: inv[inv[k]].
std::vector<int> scattered_columns(const std::vector<int>& perm) {
  std::vector<int> inv(perm.size()), out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int>(i);
  for (size_t k = 0; k < perm.size(); ++k) out[k] = inv[inv[k]];
  return out;
}

Tally tally(const Expectation& e, const Comparison& c, const std::vector<int>& column,
            const std::vector<Element>& sample) {
  return tally_hypothesis(
      e, c, sample,
      [&](int i, int k, int j) {
        return to_double(e.dtype, e.A(i, column[k])) * format_weight(e, k, j, 0, e.w.scales(scale_group(e, k), j));
      },
      [&](int j) { return e.w.scales(0, j); });
}

}  // namespace

void act_order_scatter(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                       std::vector<Hint>& out) {
  if (e.perm.empty() || fails.empty()) return;
  const std::vector<int> column = scattered_columns(e.perm);
  int moved = 0;  // rows of K whose activation column the scatter changes
  for (size_t k = 0; k < column.size(); ++k) moved += column[k] != static_cast<int>(k);
  if (moved == 0) return;
  const Tally t = tally(e, c, column, value_failure_sample(c, fails));
  if (t.usable < 3 || t.fitting < needed(t.usable)) return;
  std::vector<bool> failing(e.N(), false);
  long long value_failures = 0;
  for (const auto& [i, j] : fails) {
    const auto v = static_cast<Verdict>(c.verdict(i, j));
    if (v != Verdict::fail_bound && v != Verdict::nonfinite) continue;
    failing[j] = true;
    ++value_failures;
  }
  std::vector<int> columns;
  for (int j = 0; j < e.N(); ++j)
    if (failing[j]) columns.push_back(j);
  out.push_back(
      {HintKind::act_order_scatter,
       cat("got = the product with A's columns scattered by perm (A'[:, perm[i]] = A[:, i]) instead of "
           "gathered (A'[:, i] = A[:, perm[i]]), within the bound for ",
           t.fitting, " of ", t.usable, " sampled failures (", t.exact,
           " bit for bit); the scatter moves the activations of ", moved, " of ", e.shape().K, " rows of K; ",
           value_failures, " of ", static_cast<long long>(e.M()) * e.N(), " elements fail on their values, in columns ",
           index_ranges(columns), " (tile columns ", index_ranges(tile_columns(e, columns)),
           ") -> act-order's permutation applied to A the wrong way round (a scatter by perm is a gather "
           "by its inverse): every dot product pairs its weights with the wrong activations (it shows "
           "wherever a column's weights vary along K), in every tile, with no tile structure")});
}

}  // namespace tc::hints
