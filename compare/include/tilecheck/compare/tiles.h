// The output-tile grid of a schedule, with each tile's attribution: which launch and schedule column
// compute it, which thread blocks sum which k-tiles of it (its slices, in reduction order) and which
// block writes it (the last slice's). The comparator aggregates verdicts per tile on this grid.
#pragma once
#include <vector>

#include "tilecheck/reference/schedule.h"

namespace tc {

struct TileInfo {
  int tile_row = 0;  // grid coordinates
  int tile_col = 0;
  int row0 = 0;      // output rows [row0, row0 + rows), columns [col0, col0 + cols)
  int rows = 0;
  int col0 = 0;
  int cols = 0;
  int launch = 0;    // schedule coordinates (tc::LaunchSchedule, its column)
  int column = 0;
  bool partial = false;       // fewer rows than the configuration's tile height (the M tail)
  std::vector<Slice> slices;  // reduction order: slices.back() is the last block, which writes
  int writer() const { return slices.back().block; }
  int slice_count() const { return static_cast<int>(slices.size()); }
  bool involves(int block) const;
};

struct TileGrid {
  int rows = 0;  // tile rows (M chunks over all launches) and tile columns (N / tile_n)
  int cols = 0;
  int tile_n = 0;
  std::vector<TileInfo> tiles;       // row-major, rows * cols
  std::vector<int> tile_row_of_row;  // (M): the tile row of each output row
  int index(int row, int col) const { return tile_row_of_row[row] * cols + col / tile_n; }
  const TileInfo& at(int row, int col) const { return tiles[index(row, col)]; }
};

TileGrid tile_grid(const Schedule& s);

}  // namespace tc
