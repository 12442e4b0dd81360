// Hints from ratios of scales: a wrong scale multiplies got by a ratio of scales, exactly (up to
// fp16 rounding) where nothing else is wrong.
//   scale_fetch  per-column scales: whole tile columns off by one common factor -> the final scale
//                fetch of the block that writes
//   scale_ratio  got / expected = s[g2, j2] / s[g1, j1] on a sample of out-of-bound elements: the
//                wrong scale group or column, or a scale applied twice or not at all (exact with
//                probe inputs and per-column scales)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "hints_internal.h"
#include "tilecheck/core/error.h"

namespace tc::hints {
namespace {

std::string percent(long long part, long long whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

// ---- scale_fetch

// got / expected down tile column j when every row of it agrees on one factor other than 1.
struct ColumnFactor {
  bool common = false;
  double factor = 0;
  long long failing = 0;  // failing elements in the tile column
};

ColumnFactor column_factor(const Expectation& e, const Comparison& c, const TileInfo& tile, int j) {
  ColumnFactor out;
  std::vector<double> ratios;
  for (int i = tile.row0; i < tile.row0 + tile.rows; ++i) {
    out.failing += c.verdict(i, j) != static_cast<std::uint8_t>(Verdict::pass);
    const double x = half_to_double(e.ref.expected(i, j)), g = half_to_double(c.got(i, j));
    if (std::isfinite(x) && std::isfinite(g) && std::fabs(x) >= kHalfMinNormal) ratios.push_back(g / x);
  }
  if (ratios.size() < 2) return out;
  std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
  const double median = ratios[ratios.size() / 2];
  const bool same = std::all_of(ratios.begin(), ratios.end(), [&](double r) {
    return std::fabs(r - median) <= 0x1p-8 * std::fabs(median) + (median == 0 ? 0x1p-20 : 0.0);
  });
  out.common = same && !(std::fabs(median - 1.0) <= 0x1p-8);
  out.factor = median;
  return out;
}

// ---- scale_ratio

// A relation got / expected = q between an element's ratio and the scales of its column j and
// scale group g: q = s[g + dg, j] / s[g, j] (a wrong group), s[g, j + dj] / s[g, j] (a wrong
// column), s[g, j] (applied twice) or 1 / s[g, j] (not applied).
enum class RatioKind { group, column, times_scale, unscaled };
using Relation = std::tuple<RatioKind, int, int>;  // kind, dg, dj

constexpr double kRatioTolerance = 0x1p-9;  // each side rounded to fp16 (2^-11 relative) at most twice

// The relations of scale group g1 of column j that predict ratio r.
void relations_of_group(const Expectation& e, int g1, int j, double r, std::set<Relation>& matched) {
  const double s1 = half_to_double(e.w.scales(g1, j));
  if (s1 == 0 || !std::isfinite(s1)) return;
  const auto check = [&](double q, Relation rel) {
    if (std::isfinite(q) && q != 0 && std::fabs(q - 1) > 0x1p-8 && std::fabs(r - q) <= kRatioTolerance * std::fabs(q))
      matched.insert(rel);
  };
  const int G = static_cast<int>(e.w.scales.rows()), chunk = j / 64 * 64;
  for (int g2 = std::max(0, g1 - 8); g2 < std::min(G, g1 + 9); ++g2)
    if (g2 != g1) check(half_to_double(e.w.scales(g2, j)) / s1, {RatioKind::group, g2 - g1, 0});
  for (int j2 = chunk; j2 < std::min(e.N(), chunk + 64); ++j2)
    if (j2 != j) check(half_to_double(e.w.scales(g1, j2)) / s1, {RatioKind::column, 0, j2 - j});
  check(s1, {RatioKind::times_scale, 0, 0});
  check(1 / s1, {RatioKind::unscaled, 0, 0});
}

// How many sampled elements each relation, and each kind of relation, explains.
struct RatioTally {
  size_t n = 0;  // sampled elements with a usable ratio
  std::map<Relation, size_t> count;
  std::map<RatioKind, size_t> kind_count;
  size_t of_kind(RatioKind k) const { return kind_count.count(k) ? kind_count.at(k) : 0; }
};

RatioTally tally_ratios(const Expectation& e, const Comparison& c, const std::vector<Element>& fails) {
  RatioTally tally;
  for (const auto& [i, j] : out_of_bound_sample(c, fails)) {
    const double x = half_to_double(e.ref.expected(i, j)), g = half_to_double(c.got(i, j));
    if (!std::isfinite(x) || !std::isfinite(g) || std::fabs(x) < kHalfMinNormal || g == 0) continue;
    ++tally.n;
    std::set<Relation> matched;
    for (int g1 = 0; g1 < e.w.scales.rows(); ++g1) relations_of_group(e, g1, j, g / x, matched);
    std::set<RatioKind> kinds;
    for (const Relation& rel : matched) {
      ++tally.count[rel];
      kinds.insert(std::get<0>(rel));
    }
    for (RatioKind k : kinds) ++tally.kind_count[k];
  }
  return tally;
}

std::string describe(const Relation& rel) {
  const auto [kind, dg, dj] = rel;
  switch (kind) {
    case RatioKind::group:
      return cat("s[g", dg > 0 ? "+" : "", dg, ", j] / s[g, j] -> the wrong scale group (group index off by ",
                 dg > 0 ? "+" : "", dg, ")");
    case RatioKind::column: return cat("s[g, j", dj > 0 ? "+" : "", dj, "] / s[g, j] -> the wrong scale column (the scale permutation)");
    case RatioKind::times_scale: return "s[g, j] -> the scale applied twice";
    case RatioKind::unscaled: break;
  }
  return "1 / s[g, j] -> the scale not applied";
}

}  // namespace

// Per-column scales: when a tile column is off by one common factor in every row, the scale applied
// in the epilogue was wrong. That scale is fetched once, at the end, by the block that writes.
void scale_fetch(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                 std::vector<Hint>& out) {
  if (!is_per_column(e.w.group) || fails.empty()) return;
  std::set<std::pair<int, int>> columns;  // (tile index, column)
  for (const Element& f : fails) columns.insert({e.grid.index(f.first, f.second), f.second});
  // One row: every column is trivially "consistent".
  if (std::any_of(columns.begin(), columns.end(), [&](const auto& tj) { return e.grid.tiles[tj.first].rows < 2; }))
    return;
  long long consistent = 0, explained = 0, zero = 0, multi = 0;
  std::set<int> writers, tiles;
  for (const auto& [t, j] : columns) {
    const TileInfo& tile = e.grid.tiles[t];
    const ColumnFactor f = column_factor(e, c, tile, j);
    if (!f.common) continue;
    ++consistent;
    explained += f.failing;
    zero += f.factor == 0;
    writers.insert(tile.writer());
    if (tiles.insert(t).second) multi += tile.slice_count() > 1;
  }
  if (consistent == 0 || explained * 10 < static_cast<long long>(fails.size()) * 9) return;
  std::string blocks;
  for (int b : writers) blocks += cat(blocks.empty() ? "b" : ", b", b);
  out.push_back({HintKind::scale_fetch,
                 cat("per-column scales: in ", consistent, " tile column(s) every row is off by one common factor",
                     zero ? cat(" (", zero, " of them zero)") : "", ", covering ", percent(explained, fails.size()),
                     " of the failures -> the scale applied in the epilogue is wrong: the final scale fetch by the "
                     "last block (written by ", blocks, "; ", multi, " of ", tiles.size(),
                     " tiles have slice_count > 1)")});
}

void scale_ratio(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                 std::vector<Hint>& out) {
  const RatioTally tally = tally_ratios(e, c, fails);
  if (tally.n < 3) return;
  Relation best{};
  size_t best_count = 0;
  for (const auto& [rel, k] : tally.count)  // the first in order on ties
    if (k > best_count) best = rel, best_count = k;
  std::string what;
  if (best_count >= needed(tally.n)) {
    what = describe(best);
  } else if (e.w.scales.rows() == 1 && tally.of_kind(RatioKind::column) >= needed(tally.n)) {
    // Few candidates: the family as a whole counts.
    best_count = tally.of_kind(RatioKind::column);
    what = "s[j'] / s[j] for another column j' of the same 64-column chunk -> the wrong scale column (the scale "
           "permutation)";
  } else {
    return;
  }
  out.push_back({HintKind::scale_ratio, cat("got / expected equals an exact ratio of two scales, ", what, ", for ",
                                            best_count, " of ", tally.n, " sampled failures")});
}

}  // namespace tc::hints
