// Hints from where the failures sit: on the tile grid (tiles, slices, blocks), in the mma fragment
// layout (n8 halves, row halves, warps), in the guard band, and in the tiers' statistics. Each rule
// fires only when the pattern is unlikely by chance (enough failures, a discriminating complement),
// and its text cites the numbers it rests on.
#include "tilecheck/compare/hints.h"

#include <algorithm>
#include <bitset>
#include <cmath>
#include <cstdio>
#include <set>

#include "hints_internal.h"
#include "tilecheck/compare/compare.h"
#include "tilecheck/reference/error.h"

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
    case HintKind::dropped_chunk: return "dropped_chunk";
    case HintKind::low_precision: return "low_precision";
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
  }
  return "?";
}

bool has_hint(const std::vector<Hint>& hints, HintKind kind) {
  return std::any_of(hints.begin(), hints.end(), [&](const Hint& h) { return h.kind == kind; });
}

namespace hints {

std::vector<std::pair<int, int>> failing_elements(const Comparison& c) {
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < c.M; ++i)
    for (int j = 0; j < c.N; ++j)
      if (c.verdict(i, j) != static_cast<std::uint8_t>(Verdict::pass)) out.push_back({i, j});
  return out;
}

std::vector<std::pair<int, int>> sample(const std::vector<std::pair<int, int>>& all, size_t count) {
  if (all.size() <= count) return all;
  std::vector<std::pair<int, int>> out;
  for (size_t i = 0; i < count; ++i) out.push_back(all[i * all.size() / count]);
  return out;
}

std::string describe_tile(const TileInfo& t) {
  return cat("(", t.tile_row, ", ", t.tile_col, ") [rows ", t.row0, "-", t.row0 + t.rows - 1, ", cols ", t.col0,
             "-", t.col0 + t.cols - 1, "]");
}

std::string describe_slices(const TileInfo& t) { return reduction_order_text(t.slices); }

std::string number(double x, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string percent(long long part, long long whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

}  // namespace hints

namespace {

using Element = std::pair<int, int>;
constexpr double kChance = 0.05;  // a location pattern must be this unlikely under random placement

long long failing_in(const TileSummary& t) {
  return t.verdicts[int(Verdict::fail_bound)] + t.verdicts[int(Verdict::nonfinite)] +
         t.verdicts[int(Verdict::unwritten)];
}
bool tile_fails(const TileSummary& t) { return failing_in(t) + t.verdicts[int(Verdict::guard)] > 0; }

std::string tile_list(const Expectation& e, const std::vector<int>& tiles, size_t limit = 4) {
  std::string s;
  for (size_t i = 0; i < tiles.size() && i < limit; ++i)
    s += cat(i ? ", " : "", hints::describe_tile(e.grid.tiles[tiles[i]]), " written by b",
             e.grid.tiles[tiles[i]].writer());
  if (tiles.size() > limit) s += cat(" and ", tiles.size() - limit, " more");
  return s;
}

void unwritten(const Expectation& e, const Comparison& c, std::vector<Hint>& out) {
  if (c.counts.unwritten == 0) return;
  std::vector<int> with, whole;
  for (size_t t = 0; t < c.tiles.size(); ++t) {
    const long long n = c.tiles[t].verdicts[int(Verdict::unwritten)];
    if (n == 0) continue;
    with.push_back(static_cast<int>(t));
    if (n == static_cast<long long>(e.grid.tiles[t].rows) * e.grid.tiles[t].cols) whole.push_back(static_cast<int>(t));
  }
  if (whole.size() == with.size()) {
    out.push_back({HintKind::unwritten,
                   cat("the poison survived in ", whole.size(), " whole tile(s): ", tile_list(e, whole),
                       " -> their write-out never ran (write predicate, the block never reached `last`, an early exit)")});
  } else {
    out.push_back({HintKind::unwritten,
                   cat("the poison survived in ", c.counts.unwritten, " element(s) across ", with.size(), " tile(s), ",
                       whole.size(), " of them whole -> part of a tile was never written: a write predicate or the "
                       "fragment-to-memory mapping skips them")});
  }
}

void guard_and_rows(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                    std::vector<Hint>& out) {
  const GuardCell* below = nullptr;
  const GuardCell* side = nullptr;
  const GuardCell* above = nullptr;
  for (const GuardCell& g : c.guard.written) {
    if (g.row >= c.M && !below) below = &g;
    if (g.row < 0 && !above) above = &g;
    if ((g.col >= c.N || g.col < 0) && !side) side = &g;
  }
  if (below)
    out.push_back({HintKind::row_predication,
                   cat("writes below the last row (M=", c.M, "), first at (", below->row, ", ", below->col,
                       ") -> the row predicate of the C writes in the M tail (16*m_blocks > remaining rows)")});
  if (above)
    out.push_back({HintKind::row_predication, cat("writes above row 0, first at (", above->row, ", ", above->col,
                                                  ") -> a negative row offset (batched-launch pointer arithmetic)")});
  if (side)
    out.push_back({HintKind::column_predication,
                   cat("writes outside columns [0, ", c.N, "), first at (", side->row, ", ", side->col,
                       ") -> the column bound of the C writes (the `c_gl_wr < end` predicate) or the column offset")});
  if (below || fails.empty() || e.grid.rows < 2) return;
  const int last = e.grid.rows - 1;
  const TileInfo& t = e.grid.tiles[static_cast<size_t>(last) * e.grid.cols];
  const bool only_last = std::all_of(fails.begin(), fails.end(),
                                     [&](const Element& f) { return e.grid.tile_row_of_row[f.first] == last; });
  if (only_last && t.partial)
    out.push_back({HintKind::row_predication,
                   cat("failures only in the last tile row, the partial M tile (rows ", t.row0, "-", t.row0 + t.rows - 1,
                       ", ", t.rows, " of ", e.schedule.config.tile_m(),
                       ") -> row predication in the M tail (A loads or C writes)")});
}

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
    why = is_per_column(e.w.group) && e.contract == Contract::fp32
              ? "the unscaled sum exceeds 65504: the kernel rounds to fp16 before applying the per-column scale "
                "(the marlin epilogue) while the contract is fp32"
              : "the unscaled sum exceeds 65504 before scaling";
  out.push_back({HintKind::nonfinite, cat(nan, " NaN and ", inf, " Inf where the reference is finite, first at (",
                                          first->first, ", ", first->second, ") -> ", why)});
}

void isolated(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
              std::vector<Hint>& out) {
  if (fails.empty() || fails.size() > 4) return;
  std::string where, flips;
  for (const Element& f : fails) {
    const ElementPlace p = locate(e.schedule, f.first, f.second);
    where += cat(where.empty() ? "" : "; ", "(", f.first, ", ", f.second, ") warp ", p.warp, " lane ", p.lane, " c",
                 p.reg);
    const unsigned diff = c.got(f.first, f.second) ^ e.ref.expected(f.first, f.second);
    if (std::bitset<16>(diff).count() == 1) {
      const int bit = static_cast<int>(std::log2(diff));
      flips += cat(flips.empty() ? "" : "; ", "(", f.first, ", ", f.second, ") bit ", bit,
                   bit == 15 ? " (sign)" : bit >= 10 ? " (exponent)" : " (mantissa)");
    }
  }
  out.push_back({HintKind::isolated, cat(fails.size(), " isolated element(s): ", where,
                                         " -> not a tile-wide pattern: one lane or register, or corrupted memory")});
  if (!flips.empty())
    out.push_back({HintKind::bit_flip, cat("got differs from expected in exactly one bit: ", flips,
                                           " -> a flipped bit (memory or register corruption), not arithmetic")});
}

void whole_tiles(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                 std::vector<Hint>& out) {
  if (fails.size() <= 4) return;
  std::vector<int> whole;
  long long inside = 0;
  for (size_t t = 0; t < c.tiles.size(); ++t) {
    const long long size = static_cast<long long>(e.grid.tiles[t].rows) * e.grid.tiles[t].cols;
    const TileSummary& s = c.tiles[t];
    if (failing_in(s) * 10 < size * 9) continue;
    if (s.verdicts[int(Verdict::unwritten)] * 10 >= size * 9) continue;  // the unwritten hint covers it
    whole.push_back(static_cast<int>(t));
    inside += failing_in(s);
  }
  if (whole.empty() || inside * 10 < static_cast<long long>(fails.size()) * 9) return;
  bool zero = true, constant = true;
  const TileInfo& t0 = e.grid.tiles[whole[0]];
  const half_bits v0 = c.got(t0.row0, t0.col0);
  for (int t : whole) {
    const TileInfo& t1 = e.grid.tiles[t];
    for (int i = t1.row0; i < t1.row0 + t1.rows; ++i)
      for (int j = t1.col0; j < t1.col0 + t1.cols; ++j) {
        zero = zero && (c.got(i, j) & 0x7FFF) == 0;
        constant = constant && c.got(i, j) == v0;
      }
  }
  const std::string got = zero ? " (got is 0 throughout)" : constant ? cat(" (got is ", half_to_double(v0), " throughout)") : "";
  out.push_back({HintKind::whole_tiles,
                 cat("failures fill ", whole.size(), " whole tile(s)", got, ": ", tile_list(e, whole),
                     whole.size() == 1 ? cat(", slices ", hints::describe_slices(e.grid.tiles[whole[0]])) : "",
                     " -> the tile's result was lost or replaced: accumulators never filled, a slice's partial sum "
                     "dropped, or the write-out stored the wrong registers")});
}

void slices(const Expectation& e, const Comparison& c, std::vector<Hint>& out) {
  long long failing = 0, multi = 0, failing_multi = 0;
  for (size_t t = 0; t < c.tiles.size(); ++t) {
    const bool m = e.grid.tiles[t].slice_count() > 1, f = tile_fails(c.tiles[t]);
    multi += m;
    failing += f;
    failing_multi += m && f;
  }
  const long long total = static_cast<long long>(c.tiles.size()), single = total - multi;
  if (failing < 2) return;
  if (failing_multi == failing && single > 0 && std::pow(double(multi) / total, double(failing)) <= kChance)
    out.push_back({HintKind::multi_slice,
                   cat("failures only in tiles reduced across thread blocks (slice_count > 1): ", failing, " of ", multi,
                       " such tiles fail, none of the ", single,
                       " single-slice tiles -> the cross-block reduction (global_reduce) or its locks")});
  if (failing_multi == 0 && multi > 0 && std::pow(double(single) / total, double(failing)) <= kChance)
    out.push_back({HintKind::single_slice,
                   cat("failures only in tiles computed by a single block (slice_count == 1): ", failing, " of ", single,
                       ", none of the ", multi,
                       " multi-slice tiles -> the path without reduction, e.g. a block that writes a tile and starts "
                       "its next slice without a barrier")});
}

void block(const Expectation& e, const Comparison& c, std::vector<Hint>& out) {
  std::vector<int> failing;
  for (size_t t = 0; t < c.tiles.size(); ++t)
    if (tile_fails(c.tiles[t])) failing.push_back(static_cast<int>(t));
  if (failing.size() < 2) return;
  int best = -1;
  long long best_tiles = 0;
  for (int b = 0; b < e.schedule.sms; ++b) {
    if (!std::all_of(failing.begin(), failing.end(), [&](int t) { return e.grid.tiles[t].involves(b); })) continue;
    const long long tiles = std::count_if(e.grid.tiles.begin(), e.grid.tiles.end(),
                                          [&](const TileInfo& t) { return t.involves(b); });
    if (best < 0 || tiles < best_tiles) best = b, best_tiles = tiles;
  }
  const double share = double(best_tiles) / c.tiles.size();
  if (best < 0 || best_tiles == static_cast<long long>(c.tiles.size()) ||
      std::pow(share, double(failing.size())) > kChance)
    return;
  std::string work;
  int shown = 0;
  for (const TileInfo& t : e.grid.tiles)
    for (const Slice& s : t.slices)
      if (s.block == best && shown++ < 4)
        work += cat(work.empty() ? "" : ", ", "tile (", t.tile_row, ", ", t.tile_col, ") k-tiles [", s.k_tile_begin,
                    ",", s.k_tile_end, ") slice ", s.slice_index, "/", s.slice_count);
  out.push_back({HintKind::block, cat("every failing tile involves thread block ", best, " (", failing.size(), " of its ",
                                      best_tiles, " tiles fail; its work: ", work,
                                      ") -> that block's k-range, pipeline, or its step of the reduction")});
}

// Fragment layout: failures confined to one class of a position split, with the other class clean.
void layout(const Expectation& e, const std::vector<Element>& fails, std::vector<Hint>& out) {
  if (fails.size() < 8) return;
  struct Split {
    std::set<int> classes, groups;
  };
  Split cols, rows, warps;
  std::set<int> tiles;
  for (const Element& f : fails) {
    const TileInfo& t = e.grid.at(f.first, f.second);
    const int r = f.first - t.row0, col = f.second - t.col0;
    cols.classes.insert((f.second % 16) / 8);
    cols.groups.insert(f.second / 16);
    rows.classes.insert((r % 16) / 8);
    rows.groups.insert(e.grid.index(f.first, f.second) * 64 + r / 16);
    warps.classes.insert(col / 64);
    tiles.insert(e.grid.index(f.first, f.second));
  }
  if (cols.classes.size() == 1 && cols.groups.size() >= 2) {
    const int h = *cols.classes.begin();
    out.push_back({HintKind::column_half,
                   cat("failures only in columns ", 8 * h, "-", 8 * h + 7, " of each 16 (n8 block ", h, " of the mma), in ",
                       cols.groups.size(), " column groups -> every other 8 columns: the B permutation (packed nibble "
                       "order) or the mma B/C fragment layout")});
  }
  bool tall = false;  // rows 8-15 exist somewhere, so "only rows 0-7" means something
  for (const TileInfo& t : e.grid.tiles) tall = tall || t.rows > 8;
  if (rows.classes.size() == 1 && tall && (rows.groups.size() >= 2 || cols.groups.size() >= 2)) {
    const int h = *rows.classes.begin();
    out.push_back({HintKind::row_half, cat("failures only in rows ", 8 * h, "-", 8 * h + 7,
                                           " of each 16 (accumulator registers c", 2 * h, "/c", 2 * h + 1,
                                           ") -> the row half of the mma C fragment (lane/4 + 8*(reg/2))")});
  }
  if (warps.classes.size() == 1 && e.grid.tile_n >= 128 && (tiles.size() >= 2 || rows.groups.size() >= 2)) {
    const int w = *warps.classes.begin();
    out.push_back({HintKind::warp, cat("failures only in columns ", 64 * w, "-", 64 * w + 63,
                                       " of each tile (warp column ", w, ") in ", tiles.size(),
                                       " tile(s) -> that warp's share: its B/scale offsets or its step of the "
                                       "in-block reduction")});
  }
}

// Per-column scales: when a tile column is off by one common factor in every row, the scale applied
// in the epilogue was wrong. That scale is fetched once, at the end, by the block that writes.
void scale_fetch(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                 std::vector<Hint>& out) {
  if (!is_per_column(e.w.group) || fails.empty()) return;
  std::set<std::pair<int, int>> columns;  // (tile index, column)
  for (const Element& f : fails) columns.insert({e.grid.index(f.first, f.second), f.second});
  long long consistent = 0, explained = 0, zero = 0;
  std::set<int> writers, tiles;
  long long multi = 0;
  for (const auto& [t, j] : columns) {
    const TileInfo& tile = e.grid.tiles[t];
    if (tile.rows < 2) return;  // one row: every column is trivially "consistent"
    std::vector<double> ratios;
    long long failing = 0;
    for (int i = tile.row0; i < tile.row0 + tile.rows; ++i) {
      failing += c.verdict(i, j) != static_cast<std::uint8_t>(Verdict::pass);
      const double x = half_to_double(e.ref.expected(i, j)), g = half_to_double(c.got(i, j));
      if (std::isfinite(x) && std::isfinite(g) && std::fabs(x) >= kHalfMinNormal) ratios.push_back(g / x);
    }
    if (ratios.size() < 2) continue;
    std::nth_element(ratios.begin(), ratios.begin() + ratios.size() / 2, ratios.end());
    const double median = ratios[ratios.size() / 2];
    const bool same = std::all_of(ratios.begin(), ratios.end(), [&](double r) {
      return std::fabs(r - median) <= 0x1p-8 * std::fabs(median) + (median == 0 ? 0x1p-20 : 0.0);
    });
    if (!same || std::fabs(median - 1.0) <= 0x1p-8) continue;
    ++consistent;
    explained += failing;
    zero += median == 0;
    writers.insert(tile.writer());
    if (tiles.insert(t).second) multi += tile.slice_count() > 1;
  }
  if (consistent == 0 || explained * 10 < static_cast<long long>(fails.size()) * 9) return;
  std::string blocks;
  for (int b : writers) blocks += cat(blocks.empty() ? "b" : ", b", b);
  out.push_back({HintKind::scale_fetch,
                 cat("per-column scales: in ", consistent, " tile column(s) every row is off by one common factor",
                     zero ? cat(" (", zero, " of them zero)") : "", ", covering ", hints::percent(explained, fails.size()),
                     " of the failures -> the scale applied in the epilogue is wrong: the final scale fetch by the "
                     "last block (written by ", blocks, "; ", multi, " of ", tiles.size(),
                     " tiles have slice_count > 1)")});
}

void tiers(const Comparison& c, std::vector<Hint>& out) {
  if (c.t2.status == TierStatus::fail) {
    if (std::fabs(c.stats.bias_toward_zero) > c.stats.bias_limit())
      out.push_back({HintKind::rounding_bias,
                     cat("errors lean ", c.stats.bias_toward_zero < 0 ? "toward" : "away from", " zero by ",
                         hints::number(std::fabs(c.stats.bias_toward_zero), 3), " ULP on average -> a directed rounding: a truncating "
                         "conversion (e.g. __float2half_rz in the epilogue) or rounding away from zero")});
    if (std::fabs(c.stats.bias) > c.stats.bias_limit())
      out.push_back({HintKind::rounding_bias, cat("errors lean ", c.stats.bias < 0 ? "down" : "up", " by ",
                                                  hints::number(std::fabs(c.stats.bias), 3), " ULP on average -> rounding toward ",
                                                  c.stats.bias < 0 ? "-Inf" : "+Inf", " somewhere")});
    if (c.stats.rms > kRmsLimit)
      out.push_back({HintKind::wide_errors,
                     cat("errors use a large share of their allowance (rms ", hints::number(c.stats.rms, 3), " > ", kRmsLimit,
                         ") -> more rounding than the contract models: fp16 partial sums where it promises fp32, "
                         "or a lower-precision accumulation")});
  }
  if (c.t0.status == TierStatus::fail && c.t1.status == TierStatus::pass)
    out.push_back({HintKind::not_exact,
                   cat(c.counts.not_exact, " element(s) of an exact case differ while all are within the bound -> "
                       "last-bit rounding: the epilogue's rounding mode or tie-breaking, or a lost low bit")});
}

}  // namespace

std::vector<Hint> find_hints(const Expectation& e, const Comparison& c) {
  std::vector<Hint> out;
  const std::vector<Element> fails = hints::failing_elements(c);
  unwritten(e, c, out);
  guard_and_rows(e, c, fails, out);
  nonfinite(e, c, fails, out);
  isolated(e, c, fails, out);
  // Causes tested on the inputs first; "whole tiles lost" only when none of them explains the data.
  const size_t before = out.size();
  scale_fetch(e, c, fails, out);
  hints::scale_ratio(e, c, fails, out);
  const std::vector<hints::InputSample> samples = hints::input_samples(e, c, fails);
  if (!hints::dropped_chunk(e, samples, out)) hints::low_precision(e, c, samples, out);
  if (out.size() == before) whole_tiles(e, c, fails, out);
  slices(e, c, out);
  block(e, c, out);
  layout(e, fails, out);
  tiers(c, out);
  return out;
}

}  // namespace tc
