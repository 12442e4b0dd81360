#include "tilecheck/compare/tiles.h"

#include <algorithm>

namespace tc {

bool TileInfo::involves(int block) const {
  return std::any_of(slices.begin(), slices.end(), [&](const Slice& s) { return s.block == block; });
}

TileGrid tile_grid(const Schedule& s) {
  TileGrid g;
  g.rows = s.tile_rows();
  g.cols = s.tile_cols();
  g.tile_n = s.config.tile_n();
  g.tiles.resize(static_cast<size_t>(g.rows) * g.cols);
  g.tile_row_of_row.assign(s.shape.M, 0);
  for_each_tile(s, [&](const OutputTile& o) {
    if (o.tile_col == 0)
      for (int r = o.row0; r < o.row0 + o.rows; ++r) g.tile_row_of_row[r] = o.tile_row;
    TileInfo& t = g.tiles[static_cast<size_t>(o.tile_row) * g.cols + o.tile_col];
    t.tile_row = o.tile_row;
    t.tile_col = o.tile_col;
    t.row0 = o.row0;
    t.rows = o.rows;
    t.col0 = o.col0;
    t.cols = o.cols;
    t.launch = o.launch;
    t.column = o.column;
    t.partial = o.rows < s.config.tile_m();
    t.slices = slices_of(s.launches[o.launch], o.column);
  });
  return g;
}

}  // namespace tc
