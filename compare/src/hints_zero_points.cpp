// zero_point_off_by_one (uint4 with zero points, AWQ's w = (q - z) s): got = y* with the zero
// points of some groups read as z + 1 or z - 1. Every weight of such a group g moves by one scale
// step, so element (i, j) moves by
//   D_gd(i, j) = sum_{k in g} a_ik * (w^(q_kj, z_gj + d) - w^(q_kj, z_gj)),   about -d s[g, j] sum_{k in g} a_ik,
// the same set of (group, d) for every row of a column: a structure of rank G per column that a
// wrong k-range, scale or code does not have. For each sampled failing column the rule tries, per
// group, d in {-1, 0, +1}: every group alike (a kernel that always reads z + 1), one group alone,
// every assignment when G <= 6, else least squares rounded to -1/0/1 when the column has enough
// rows. An assignment explains the column when every checked row fits the exact result it gives
// (hints_formats.cpp: match), a failing row is among them and it removes most of the column's error.
// Reported when assignments explain needed(n) of the n sampled failing columns (n >= 3), naming the
// groups, their k-ranges, the directions and the columns.
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "hints_internal.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/dtype.h"

namespace tc::hints {
namespace {

constexpr size_t kZeroPointColumns = 12;
constexpr size_t kFailingRows = 4;        // failing rows checked per column, and
constexpr int kMaxRows = 64;              // up to this many rows spread over M
constexpr int kEnumerateGroups = 6;       // 3^6 = 729 assignments
constexpr int kSolveGroups = 32;          // least squares up to this many groups
constexpr int kListedGroups = 6;          // named in the text
constexpr double kExplainedShare = 0.25;  // what an assignment may leave of a column's error

// One column's data: per checked row, its error and, per group and offset, the change of its result.
struct ZeroPointColumn {
  int j = 0;
  std::vector<int> rows;
  std::vector<bool> failing;
  std::vector<double> eps;  // got - y* in accumulator units (per column got / s - y*); NaN if not finite
  F64Matrix D[2], mag[2];   // offset -1, +1: (rows, G) the change D_gd and its magnitude sum_k |a dw|
};

ZeroPointColumn column_data(const Expectation& e, const Comparison& c, int j, const std::set<int>& sampled_rows) {
  ZeroPointColumn col;
  col.j = j;
  std::set<int> rows(sampled_rows);
  const int step = std::max(1, e.M() / kMaxRows);
  for (int i = 0; i < e.M() && rows.size() < sampled_rows.size() + kMaxRows; i += step) rows.insert(i);
  col.rows.assign(rows.begin(), rows.end());
  const int G = static_cast<int>(e.w.scales.rows()), R = static_cast<int>(col.rows.size());
  const double column_scale = is_per_column(e.w.group) ? to_double(e.dtype, e.w.scales(0, j)) : 1.0;
  for (int i : col.rows) {
    col.failing.push_back(c.verdict(i, j) != static_cast<std::uint8_t>(Verdict::pass));
    const double eps = to_double(e.dtype, c.got(i, j)) / column_scale - e.ref.y_exact(i, j);
    col.eps.push_back(std::isfinite(eps) ? eps : std::nan(""));
  }
  for (int o = 0; o < 2; ++o) {
    col.D[o] = F64Matrix::Zero(R, G);
    col.mag[o] = F64Matrix::Zero(R, G);
  }
  for (int k = 0; k < e.shape().K; ++k) {
    const int g = scale_group(e, k);
    const std::uint16_t s = e.w.scales(g, j);
    const double w = format_weight(e, k, j, 0, s);
    const double dw[2] = {format_weight(e, k, j, -1, s) - w, format_weight(e, k, j, 1, s) - w};
    for (int r = 0; r < R; ++r) {
      const double a = to_double(e.dtype, e.A(col.rows[r], k));
      for (int o = 0; o < 2; ++o) {
        col.D[o](r, g) += a * dw[o];
        col.mag[o](r, g) += std::fabs(a * dw[o]);
      }
    }
  }
  return col;
}

std::vector<int> spread(const std::vector<int>& all, size_t count) {
  if (all.size() <= count) return all;
  std::vector<int> out;
  for (size_t n = 0; n < count; ++n) out.push_back(all[n * all.size() / count]);
  return out;
}

using Assignment = std::vector<int>;  // per group: -1, 0 or +1

struct ColumnFit {
  bool explains = false;
  int exact = 0;  // rows bit for bit
};

// An assignment explains a column when every checked row fits it, a failing row is among them, and
// it removes most of the column's error (with wide bounds, fp16 partials under an unknown schedule,
// some small assignment fits any error by chance; it does not remove it).
ColumnFit check(const Expectation& e, const Comparison& c, const ZeroPointColumn& col, const Assignment& d) {
  ColumnFit v;
  const std::uint16_t scale = e.w.scales(0, col.j);  // the epilogue's, per column
  bool moved = false;
  double left = 0, error = 0;  // sum |eps - delta|, sum |eps| over the rows with a finite got
  for (size_t r = 0; r < col.rows.size(); ++r) {
    const int i = col.rows[r];
    double delta = 0, magnitude = 0;
    for (size_t g = 0; g < d.size(); ++g) {
      if (d[g] == 0) continue;
      const int o = d[g] > 0 ? 1 : 0;
      delta += col.D[o](r, g);
      magnitude += col.mag[o](r, g);
    }
    const Match f = match(e, c, i, col.j, e.ref.y_exact(i, col.j) + delta, e.ref.S(i, col.j) + magnitude, scale);
    if (f == Match::unusable) continue;
    if (f == Match::outside) return {};
    moved |= col.failing[r];
    v.exact += f == Match::exact;
    if (std::isfinite(col.eps[r])) {
      left += std::fabs(col.eps[r] - delta);
      error += std::fabs(col.eps[r]);
    }
  }
  v.explains = moved && kExplainedShare * error >= left;
  return v;
}

// Least squares on the +1 changes, rounded to -1/0/+1 (a -1 group's change is about the negative);
// empty when it gives nothing.
Assignment solved(const ZeroPointColumn& col) {
  const Eigen::Index R = static_cast<Eigen::Index>(col.rows.size()), G = col.D[1].cols();
  const Eigen::VectorXd eps = Eigen::Map<const Eigen::VectorXd>(col.eps.data(), R);
  if (!eps.allFinite() || !col.D[1].allFinite()) return {};
  const Eigen::VectorXd z = col.D[1].colPivHouseholderQr().solve(eps);
  Assignment a(G);
  for (Eigen::Index g = 0; g < G; ++g) a[g] = static_cast<int>(std::clamp(std::round(z(g)), -1.0, 1.0));
  if (std::all_of(a.begin(), a.end(), [](int d) { return d == 0; })) return {};
  return a;
}

// The assignments tried for a column, simplest first.
template <typename Try>
bool search(const ZeroPointColumn& col, Try&& attempt) {
  const int G = static_cast<int>(col.D[0].cols());
  for (int d : {1, -1})
    if (attempt(Assignment(G, d))) return true;
  if (G > 1)
    for (int g = 0; g < G; ++g)
      for (int d : {1, -1}) {
        Assignment a(G, 0);
        a[g] = d;
        if (attempt(a)) return true;
      }
  if (G <= kEnumerateGroups) {
    int total = 1;
    for (int g = 0; g < G; ++g) total *= 3;
    for (int n = 1; n < total; ++n) {
      Assignment a(G);
      for (int g = 0, m = n; g < G; ++g, m /= 3) a[g] = m % 3 - 1;
      if (attempt(a)) return true;
    }
    return false;
  }
  if (G <= kSolveGroups && static_cast<int>(col.rows.size()) >= G + 2) {
    const Assignment a = solved(col);
    return !a.empty() && attempt(a);
  }
  return false;
}

}  // namespace

void zero_point_off_by_one(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                           std::vector<Hint>& out) {
  if (e.zero_points.size() == 0 || fails.empty()) return;
  // Up to kZeroPointColumns columns that fail on their values, spread over the output, each with up to
  // kFailingRows of its failing rows.
  std::map<int, std::vector<int>> failing;  // column -> its failing rows, in order
  for (const auto& [i, j] : fails) {
    const auto v = static_cast<Verdict>(c.verdict(i, j));
    if (v == Verdict::fail_bound || v == Verdict::nonfinite) failing[j].push_back(i);
  }
  std::vector<int> columns;
  for (const auto& entry : failing) columns.push_back(entry.first);
  columns = spread(columns, kZeroPointColumns);
  if (columns.size() < 3) return;
  struct Found {
    int j;
    Assignment d;
  };
  std::vector<Found> found;
  size_t rows = 0, exact = 0;
  for (int j : columns) {
    const std::vector<int> rows_of_j = spread(failing[j], kFailingRows);
    const ZeroPointColumn col = column_data(e, c, j, std::set<int>(rows_of_j.begin(), rows_of_j.end()));
    search(col, [&](const Assignment& d) {
      const ColumnFit f = check(e, c, col, d);
      if (!f.explains) return false;
      found.push_back({j, d});
      rows += col.rows.size();
      exact += f.exact;
      return true;
    });
  }
  if (found.size() < needed(columns.size())) return;
  const int G = static_cast<int>(e.w.scales.rows());
  std::vector<int> up(G), down(G), explained;  // per group: the columns that read it z + 1, z - 1
  bool every_group = true;
  for (const Found& f : found) {
    explained.push_back(f.j);
    every_group &= std::all_of(f.d.begin(), f.d.end(), [&](int d) { return d == found[0].d[0]; });
    for (int g = 0; g < G; ++g) {
      up[g] += f.d[g] > 0;
      down[g] += f.d[g] < 0;
    }
  }
  std::string groups;
  int listed = 0, moved = 0;
  for (int g = 0; g < G; ++g) moved += up[g] + down[g] > 0;
  for (int g = 0; g < G; ++g) {
    if (up[g] + down[g] == 0) continue;
    if (listed++ == kListedGroups) {
      groups += cat("; ... (", moved, " groups)");
      break;
    }
    const std::string k_range =
        !e.g_idx.empty() || G == 1 ? std::string() : cat(" (k ", g * e.w.group, "-", (g + 1) * e.w.group - 1, ")");
    groups += cat(groups.empty() ? "" : "; ", "group ", g, k_range, ": ", up[g] ? cat("z + 1 in ", up[g]) : "",
                  up[g] && down[g] ? ", " : "", down[g] ? cat("z - 1 in ", down[g]) : "", " column(s)");
  }
  const std::string where = every_group ? cat(G > 1 ? "every group's zero point" : "every (per-column) zero point",
                                              " read as z ", found[0].d[0] > 0 ? "+" : "-", " 1")
                                        : cat("the zero points read off by one: ", groups);
  out.push_back({HintKind::zero_point_off_by_one,
                 cat("got = y* with ", where, ", every checked row within its bound in ", found.size(), " of ",
                     columns.size(), " sampled failing columns (", exact, " of ", rows, " rows bit for bit; columns ",
                     index_ranges(explained), ", tile columns ", index_ranges(tile_columns(e, explained)), ") -> ",
                     every_group ? "the zero point's offset in the dequantization (z +- 1 applied to every code)"
                                 : "the zero points of those groups fetched or unpacked wrong",
                     ": each weight of the group moves by one scale step, in every tile of those columns")});
}

}  // namespace tc::hints
