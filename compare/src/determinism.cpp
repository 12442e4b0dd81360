#include "tilecheck/compare/determinism.h"

#include <algorithm>
#include <cstdio>

#include "tilecheck/core/error.h"
#include "tilecheck/reference/fp16.h"
#include "tilecheck/compare/report.h"
#include "tilecheck/compare/tiles.h"

namespace tc {

namespace {

// Marks every element not bitwise equal in all repeats, counts them per tile, and records the first
// one's distinct values and the repeats that differ from repeat 0.
void find_differences(const std::vector<HalfMatrix>& outputs, const TileGrid& grid, Determinism& d) {
  std::vector<bool> repeat_differs(outputs.size(), false);
  for (int i = 0; i < d.M; ++i) {
    for (int j = 0; j < d.N; ++j) {
      const half_bits v0 = outputs[0](i, j);
      bool differs = false;
      for (size_t r = 1; r < outputs.size(); ++r)
        if (outputs[r](i, j) != v0) differs = repeat_differs[r] = true;
      if (!differs) continue;
      d.differs(i, j) = 1;
      ++d.differing;
      ++d.tile_differing[grid.index(i, j)];
      if (d.first.first >= 0) continue;
      d.first = {i, j};
      for (const HalfMatrix& o : outputs)
        if (std::find(d.first_values.begin(), d.first_values.end(), o(i, j)) == d.first_values.end())
          d.first_values.push_back(o(i, j));
    }
  }
  for (size_t r = 1; r < outputs.size(); ++r)
    if (repeat_differs[r]) d.differing_repeats.push_back(static_cast<int>(r));
}

// Where the race most likely is, from which tiles differ and the schedule.
Hint race_hint(const Schedule& s, const TileGrid& grid, const Determinism& d) {
  long long tiles = 0, multi = 0, multi_total = 0;
  for (size_t t = 0; t < grid.tiles.size(); ++t) {
    const bool m = grid.tiles[t].slice_count() > 1;
    multi_total += m;
    if (d.tile_differing[t] == 0) continue;
    ++tiles;
    multi += m;
  }
  std::string where;
  if (multi == tiles && multi_total < static_cast<long long>(grid.tiles.size()))
    where = cat("only tiles reduced across thread blocks differ (", tiles, " of ", multi_total,
                " with slice_count > 1, none of the single-slice tiles) -> the cross-block reduction: a partial sum "
                "read before it was written, a skipped barrier_acquire, a lock not reset");
  else if (s.config.group_blocks > s.config.k_blocks)
    where = cat("grouped scales spanning ", s.config.group_blocks / s.config.k_blocks,
                " k-tiles: the scale slot of a stage can be refilled by a prefetch while a slower warp still reads it "
                "(the pipelined grouped-scale race); or a missing cp.async wait / barrier");
  else
    where = "inside a block: a shared-memory race in the pipeline (a missing cp.async wait or barrier) or in the "
            "in-block reduction";
  return {HintKind::race, cat("different results on repeat (", d.differing, " elements in ", tiles,
                              " tiles) -> a race; ", where)};
}

}  // namespace

Determinism check_determinism(const Schedule& s, const std::vector<HalfMatrix>& outputs) {
  require(outputs.size() >= 2, "determinism needs at least two outputs, got ", outputs.size());
  const int M = s.shape.M, N = s.shape.N;
  for (size_t r = 0; r < outputs.size(); ++r)
    require(outputs[r].rows() == M && outputs[r].cols() == N, "repeat ", r, " is (", outputs[r].rows(), ", ",
            outputs[r].cols(), ") but the case is (", M, ", ", N, ")");
  const TileGrid grid = tile_grid(s);
  Determinism d;
  d.repeats = static_cast<int>(outputs.size());
  d.M = M;
  d.N = N;
  d.differs = RowMatrix<std::uint8_t>::Zero(M, N);
  d.tile_differing.assign(grid.tiles.size(), 0);
  find_differences(outputs, grid, d);
  if (!d.passed()) d.hints.push_back(race_hint(s, grid, d));
  return d;
}

std::string determinism_report(const Schedule& s, const Determinism& d, std::size_t max_chars) {
  char buf[512];
  const double pct = 100.0 * d.differing / (static_cast<double>(d.M) * d.N);
  std::snprintf(buf, sizeof buf, "%s: %lld / %lld elements (%.*f%%) differ across %d repeats", d.passed() ? "Deterministic" : "Nondeterministic",
                d.differing, static_cast<long long>(d.M) * d.N, pct < 1 ? 3 : 1, pct, d.repeats);
  std::string out = buf;
  out += cat(" [", name(s.config), " sms ", s.sms, "]\n");
  if (d.passed()) return out;
  std::string reps;
  for (int r : d.differing_repeats) reps += cat(reps.empty() ? "" : ", ", r);
  out += "repeats that differ from repeat 0: " + reps + "\n";
  const auto [i, j] = d.first;
  const ElementPlace p = locate(s, i, j);
  const std::vector<Slice> slices = slices_of(s, p);
  const std::string order = reduction_order_text(slices);
  out += cat("first difference (", i, ", ", j, "): tile (", p.tile_row, ", ", p.tile_col, "), written by block ",
             slices.back().block, " (slice_count ", slices.size(), "; ", order, "), warp ", p.warp, " lane ", p.lane,
             " register c", p.reg, "; values seen:");
  for (half_bits v : d.first_values) {
    std::snprintf(buf, sizeof buf, " 0x%04x (%.6g)", v, half_to_double(v));
    out += buf;
  }
  const TileGrid grid = tile_grid(s);
  std::vector<char> symbols(grid.tiles.size());
  for (size_t t = 0; t < symbols.size(); ++t) symbols[t] = d.tile_differing[t] ? 'R' : '.';
  out += cat("\ntile map (", grid.rows, " x ", grid.cols, " tiles; R differs between repeats, . identical):\n");
  out += tile_map(grid.rows, grid.cols, symbols, ".R");
  out += "hints:\n";
  for (const Hint& h : d.hints) out += "  - [" + std::string(name(h.kind)) + "] " + h.text + "\n";
  return cap(std::move(out), max_chars);
}

}  // namespace tc
