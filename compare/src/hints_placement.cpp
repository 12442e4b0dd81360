// Hints from where the failures sit: on the tile grid (whole tiles, the unwritten ones, slices,
// blocks), in the guard band and the M tail, and in the mma fragment layout (n8 halves, row halves,
// warps). A location pattern is reported only when random placement would rarely produce it.
#include <algorithm>
#include <bitset>
#include <cmath>
#include <set>

#include "hints_internal.h"
#include "tilecheck/core/error.h"

namespace tc::hints {
namespace {

constexpr double kChance = 0.05;  // a location pattern must be this unlikely under random placement

long long failing_in(const TileSummary& t) {
  return t.verdicts[int(Verdict::fail_bound)] + t.verdicts[int(Verdict::nonfinite)] +
         t.verdicts[int(Verdict::unwritten)];
}
bool tile_fails(const TileSummary& t) { return failing_in(t) + t.verdicts[int(Verdict::guard)] > 0; }

std::string describe_tile(const TileInfo& t) {  // "(1, 2) [rows 32-63, cols 256-511]"
  return cat("(", t.tile_row, ", ", t.tile_col, ") [rows ", t.row0, "-", t.row0 + t.rows - 1, ", cols ", t.col0,
             "-", t.col0 + t.cols - 1, "]");
}

std::string tile_list(const Expectation& e, const std::vector<int>& tiles, size_t limit = 4) {
  std::string s;
  for (size_t i = 0; i < tiles.size() && i < limit; ++i)
    s += cat(i ? ", " : "", describe_tile(e.grid.tiles[tiles[i]]), " written by b",
             e.grid.tiles[tiles[i]].writer());
  if (tiles.size() > limit) s += cat(" and ", tiles.size() - limit, " more");
  return s;
}

}  // namespace

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

namespace {

// Guard cells written below, above and beside the output; returns whether any was below.
bool guard_writes(const Comparison& c, std::vector<Hint>& out) {
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
  return below != nullptr;
}

// Failures only in the last tile row, when that is the partial M tile.
void partial_m_tile(const Expectation& e, const std::vector<Element>& fails, std::vector<Hint>& out) {
  if (fails.empty() || e.grid.rows < 2) return;
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

// " (got is 0 throughout)" or " (got is 1.5 throughout)" when the tiles hold one value, else "".
std::string constant_got_text(const Expectation& e, const Comparison& c, const std::vector<int>& tiles) {
  bool zero = true, constant = true;
  const TileInfo& t0 = e.grid.tiles[tiles[0]];
  const half_bits v0 = c.got(t0.row0, t0.col0);
  for (int t : tiles) {
    const TileInfo& t1 = e.grid.tiles[t];
    for (int i = t1.row0; i < t1.row0 + t1.rows; ++i)
      for (int j = t1.col0; j < t1.col0 + t1.cols; ++j) {
        zero = zero && (c.got(i, j) & 0x7FFF) == 0;
        constant = constant && c.got(i, j) == v0;
      }
  }
  return zero ? " (got is 0 throughout)" : constant ? cat(" (got is ", half_to_double(v0), " throughout)") : "";
}

// "tile (0, 1) k-tiles [0,2) slice 1/2, ..." for the first 4 slices of block b.
std::string block_work_text(const Expectation& e, int b) {
  std::string work;
  int shown = 0;
  for (const TileInfo& t : e.grid.tiles)
    for (const Slice& s : t.slices)
      if (s.block == b && shown++ < 4)
        work += cat(work.empty() ? "" : ", ", "tile (", t.tile_row, ", ", t.tile_col, ") k-tiles [", s.k_tile_begin,
                    ",", s.k_tile_end, ") slice ", s.slice_index, "/", s.slice_count);
  return work;
}

}  // namespace

void guard_and_rows(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                    std::vector<Hint>& out) {
  // Writes below the output already explain failures in the M tail.
  if (!guard_writes(c, out)) partial_m_tile(e, fails, out);
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
  const std::string got = constant_got_text(e, c, whole);
  out.push_back({HintKind::whole_tiles,
                 cat("failures fill ", whole.size(), " whole tile(s)", got, ": ", tile_list(e, whole),
                     whole.size() == 1 ? cat(", slices ", reduction_order_text(e.grid.tiles[whole[0]].slices)) : "",
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
  const std::string work = block_work_text(e, best);
  out.push_back({HintKind::block, cat("every failing tile involves thread block ", best, " (", failing.size(), " of its ",
                                      best_tiles, " tiles fail; its work: ", work,
                                      ") -> that block's k-range, pipeline, or its step of the reduction")});
}

namespace {

// The failing elements' classes (which half, which warp) and groups (where) under each position
// split of the mma fragment layout.
struct Split {
  std::set<int> classes, groups;
};
struct LayoutSplits {
  Split cols;   // n8 half of each 16 columns; groups: 16-column groups
  Split rows;   // 8-row half of each 16 rows of a tile; groups: 16-row blocks of tiles
  Split warps;  // 64-column warp share of a tile
  std::set<int> tiles;
};

LayoutSplits layout_splits(const Expectation& e, const std::vector<Element>& fails) {
  LayoutSplits s;
  for (const Element& f : fails) {
    const TileInfo& t = e.grid.at(f.first, f.second);
    const int r = f.first - t.row0, col = f.second - t.col0;
    s.cols.classes.insert((f.second % 16) / 8);
    s.cols.groups.insert(f.second / 16);
    s.rows.classes.insert((r % 16) / 8);
    s.rows.groups.insert(e.grid.index(f.first, f.second) * 64 + r / 16);
    s.warps.classes.insert(col / 64);
    s.tiles.insert(e.grid.index(f.first, f.second));
  }
  return s;
}

void column_half(const LayoutSplits& s, std::vector<Hint>& out) {
  if (s.cols.classes.size() != 1 || s.cols.groups.size() < 2) return;
  const int h = *s.cols.classes.begin();
  out.push_back({HintKind::column_half,
                 cat("failures only in columns ", 8 * h, "-", 8 * h + 7, " of each 16 (n8 block ", h, " of the mma), in ",
                     s.cols.groups.size(), " column groups -> every other 8 columns: the B permutation (packed nibble "
                     "order) or the mma B/C fragment layout")});
}

void row_half(const Expectation& e, const LayoutSplits& s, std::vector<Hint>& out) {
  bool tall = false;  // rows 8-15 exist somewhere, so "only rows 0-7" means something
  for (const TileInfo& t : e.grid.tiles) tall = tall || t.rows > 8;
  if (s.rows.classes.size() != 1 || !tall || (s.rows.groups.size() < 2 && s.cols.groups.size() < 2)) return;
  const int h = *s.rows.classes.begin();
  out.push_back({HintKind::row_half, cat("failures only in rows ", 8 * h, "-", 8 * h + 7,
                                         " of each 16 (accumulator registers c", 2 * h, "/c", 2 * h + 1,
                                         ") -> the row half of the mma C fragment (lane/4 + 8*(reg/2))")});
}

void warp(const Expectation& e, const LayoutSplits& s, std::vector<Hint>& out) {
  if (s.warps.classes.size() != 1 || e.grid.tile_n < 128 || (s.tiles.size() < 2 && s.rows.groups.size() < 2)) return;
  const int w = *s.warps.classes.begin();
  out.push_back({HintKind::warp, cat("failures only in columns ", 64 * w, "-", 64 * w + 63,
                                     " of each tile (warp column ", w, ") in ", s.tiles.size(),
                                     " tile(s) -> that warp's share: its B/scale offsets or its step of the "
                                     "in-block reduction")});
}

}  // namespace

// Fragment layout: failures confined to one class of a position split, with the other class clean.
void layout(const Expectation& e, const std::vector<Element>& fails, std::vector<Hint>& out) {
  if (fails.size() < 8) return;
  const LayoutSplits s = layout_splits(e, fails);
  column_half(s, out);
  row_half(e, s, out);
  warp(e, s, out);
}

}  // namespace tc::hints
