// Hint from a hypothesis tested on the inputs, for grouped scales: got = y* with a neighbouring
// group's scale on part of K. A bug at a group boundary (a block's k-range starting inside a group,
// a group scale fetched for one pipeline stage and read by another) dequantizes some k-rows of a
// group with the scale of the group before or after. Then, down one output column of one tile,
//   got_i - y*_i = sum over the affected k-units x of D_ix,
//   D_ix = sum_{k in x} a_ik * (w^(q_kj, s[g(k) + d, j]) - w^(q_kj, s[g(k), j])),
// for one set of units shared by every row of the tile (they share the k-ranges of its slices).
// The rule solves for that set (least squares rounded to 0/1 when there are enough rows, else every
// subset of up to 12 units) and reports when one offset d explains most sampled tile columns, every
// row of each within its rounding. Rows of one column must agree, so a chance fit is negligible.
#include <Eigen/QR>
#include <algorithm>
#include <bitset>
#include <cmath>
#include <map>
#include <set>

#include "hints_internal.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/core/error.h"

namespace tc::hints {
namespace {

constexpr int kMaxUnits = 16;       // K / unit: beyond that the sets are too many to tell apart
constexpr int kEnumerateUnits = 12;  // every subset when the rows are too few for least squares
constexpr size_t kMaxColumns = 12;
constexpr int kOffsets[] = {-1, 1, -2, 2};

// One tile column's data: the rows' errors, tolerances and the unit differences per offset.
struct ColumnData {
  int tile = 0, j = 0;
  std::vector<double> eps, tol;
  std::vector<F64Matrix> d;  // per offset: (rows, units); NaN where g + offset is no group
};

bool column_data(const Expectation& e, const Comparison& c, int tile, int j, int unit, ColumnData& out) {
  const TileInfo& t = e.grid.tiles[tile];
  const int rows = std::min(t.rows, e.M() - t.row0), units = e.shape().K / unit;
  const int G = static_cast<int>(e.w.scales.rows());
  const bool fp16_partials = e.numerics.numerics.partials == Partials::fp16;
  out.tile = tile;
  out.j = j;
  for (int r = 0; r < rows; ++r) {
    const int i = t.row0 + r;
    const double got = half_to_double(c.got(i, j));
    if (!std::isfinite(got)) return false;
    const double S = e.ref.S(i, j);
    out.eps.push_back(got - e.ref.y_exact(i, j));
    out.tol.push_back(2 * half_ulp(got) + 0x1p-16 * S + (fp16_partials ? 0x1p-11 * S : 0.0));
  }
  for (int offset : kOffsets) {
    F64Matrix d = F64Matrix::Zero(rows, units);
    for (int x = 0; x < units; ++x) {
      for (int k = x * unit; k < (x + 1) * unit; ++k) {
        const int g = k / e.w.group, g2 = g + offset;
        if (g2 < 0 || g2 >= G) {
          d.col(x).setConstant(std::nan(""));
          break;
        }
        const int q = e.w.codes(k, j);
        const double delta = half_to_double(dequantized_weight(q, e.w.scales(g2, j), e.w.group)) -
                             half_to_double(dequantized_weight(q, e.w.scales(g, j), e.w.group));
        if (delta == 0) continue;
        for (int r = 0; r < rows; ++r) d(r, x) += half_to_double(e.A(t.row0 + r, k)) * delta;
      }
    }
    out.d.push_back(std::move(d));
  }
  return true;
}

// Whether units `set` (a bit mask) explain every row, and some row by more than its tolerance.
bool explains(const ColumnData& col, const F64Matrix& d, unsigned set) {
  bool moved = false;
  for (Eigen::Index r = 0; r < d.rows(); ++r) {
    double predicted = 0;
    for (Eigen::Index x = 0; x < d.cols(); ++x)
      if (set >> x & 1u) predicted += d(r, x);
    if (!(std::fabs(col.eps[r] - predicted) <= col.tol[r])) return false;  // false for NaN
    moved |= std::fabs(predicted) > col.tol[r];
  }
  return moved;
}

// The units whose neighbouring group exists and whose weights change with it (a bit mask).
unsigned usable_units(const F64Matrix& d) {
  unsigned mask = 0;
  for (Eigen::Index x = 0; x < d.cols(); ++x)
    if (std::isfinite(d.col(x).sum()) && d.col(x).cwiseAbs().maxCoeff() > 0) mask |= 1u << x;
  return mask;
}

// The set of units that explains the column under one offset, or 0; `mask`: its usable units.
unsigned solve(const ColumnData& col, const F64Matrix& d, unsigned mask) {
  const Eigen::Index rows = d.rows();
  std::vector<Eigen::Index> usable;
  for (Eigen::Index x = 0; x < d.cols(); ++x)
    if (mask >> x & 1u) usable.push_back(x);
  if (usable.empty()) return 0;
  if (explains(col, d, mask)) return mask;  // the simplest: every unit
  if (rows >= static_cast<Eigen::Index>(usable.size()) + 2) {
    F64Matrix m(rows, usable.size());
    Eigen::VectorXd eps(rows);
    for (Eigen::Index r = 0; r < rows; ++r) {
      eps(r) = col.eps[r];
      for (size_t u = 0; u < usable.size(); ++u) m(r, u) = d(r, usable[u]);
    }
    const Eigen::VectorXd z = m.colPivHouseholderQr().solve(eps);
    unsigned set = 0;
    for (size_t u = 0; u < usable.size(); ++u)
      if (z(u) > 0.5) set |= 1u << usable[u];
    return set != 0 && explains(col, d, set) ? set : 0;
  }
  if (usable.size() > static_cast<size_t>(kEnumerateUnits)) return 0;
  for (unsigned pick = 1; pick < (1u << usable.size()); ++pick) {
    unsigned set = 0;
    for (size_t u = 0; u < usable.size(); ++u)
      if (pick >> u & 1u) set |= 1u << usable[u];
    if (explains(col, d, set)) return set;
  }
  return 0;
}

std::string unit_ranges(unsigned set, int unit) {  // "k 64-127, 192-383"
  std::string s;
  for (int x = 0; x < kMaxUnits; ++x) {
    if (!(set >> x & 1u)) continue;
    int end = x;
    while (end + 1 < kMaxUnits && (set >> (end + 1) & 1u)) ++end;
    s += cat(s.empty() ? "k " : ", ", x * unit, "-", (end + 1) * unit - 1);
    x = end;
  }
  return s;
}

// Up to kMaxColumns tile columns (tile, j) of the sampled out-of-bound elements, spread over them.
std::vector<std::pair<int, int>> sampled_columns(const Expectation& e, const Comparison& c,
                                                 const std::vector<Element>& fails) {
  std::vector<std::pair<int, int>> all;
  for (const Element& f : out_of_bound_sample(c, fails)) {
    const std::pair<int, int> column{e.grid.index(f.first, f.second), f.second};
    if (std::find(all.begin(), all.end(), column) == all.end()) all.push_back(column);
  }
  if (all.size() <= kMaxColumns) return all;
  std::vector<std::pair<int, int>> spread;
  for (size_t i = 0; i < kMaxColumns; ++i) spread.push_back(all[i * all.size() / kMaxColumns]);
  return spread;
}

}  // namespace

void group_boundary(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                    std::vector<Hint>& out) {
  if (is_per_column(e.w.group) || e.w.scales.rows() < 2 || fails.empty()) return;
  const int unit = std::min(e.w.group, 16 * e.schedule.config.k_blocks);
  if (e.shape().K / unit > kMaxUnits) return;
  const std::vector<std::pair<int, int>> columns = sampled_columns(e, c, fails);
  if (columns.size() < 2) return;
  struct Fit {
    int tile, j;
    unsigned set, usable;
  };
  std::map<int, std::vector<Fit>> explained;  // offset -> the columns it explains
  for (const auto& [tile, j] : columns) {
    ColumnData col;
    if (!column_data(e, c, tile, j, unit, col)) continue;
    for (size_t o = 0; o < std::size(kOffsets); ++o) {
      const unsigned mask = usable_units(col.d[o]);
      if (const unsigned set = solve(col, col.d[o], mask)) {
        explained[kOffsets[o]].push_back({tile, j, set, mask});
        break;
      }
    }
  }
  int best = 0;
  size_t best_count = 0;
  for (const auto& [offset, list] : explained)
    if (list.size() > best_count) best = offset, best_count = list.size();
  if (best_count < 2 || best_count < needed(columns.size())) return;
  const Fit& example = explained[best].front();
  const TileInfo& t = e.grid.tiles[example.tile];
  const bool whole = std::all_of(explained[best].begin(), explained[best].end(),
                                 [](const Fit& f) { return f.set == f.usable; });
  std::set<int> tiles;
  for (const Fit& f : explained[best]) tiles.insert(f.tile);
  std::string tile_text;
  for (int ti : tiles) {
    if (tile_text.size() > 60) {
      tile_text += ", ...";
      break;
    }
    const TileInfo& info = e.grid.tiles[ti];
    tile_text += cat(tile_text.empty() ? "" : ", ", "(", info.tile_row, ", ", info.tile_col, ")");
  }
  std::string slices;  // where the model puts the example tile's slices
  if (e.numerics.schedule == ScheduleKind::model) {
    const int tile_k = 16 * e.schedule.config.k_blocks;
    for (const Slice& sl : t.slices)
      slices += cat(slices.empty() ? "; its slices (schedule model): " : ", ", "b", sl.block, " k ",
                    sl.k_tile_begin * tile_k, "-", sl.k_tile_end * tile_k - 1);
  }
  out.push_back({HintKind::group_boundary,
                 cat("got = y* with the scale of group g", best > 0 ? "+" : "", best, " instead of g on ",
                     whole ? "every k-row that has one" : "part of K", " in ", best_count, " of ", columns.size(),
                     " sampled tile columns (e.g. column ", example.j, " of tile (", t.tile_row, ", ", t.tile_col,
                     "): ", unit_ranges(example.set, unit), slices, "; tiles ", tile_text, ") -> ",
                     whole ? "the scale group index is off by " + std::to_string(best)
                           : "a scale group boundary: rows of a group dequantized with a neighbouring group's "
                             "scale (a block's k-range starting inside a group, or a group scale fetched for one "
                             "pipeline stage and read by another)")});
}

}  // namespace tc::hints
