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
  int tile_row = 0;
  for (int l = 0; l < static_cast<int>(s.launches.size()); ++l) {
    const LaunchSchedule& launch = s.launches[l];
    const int chunk_rows = 16 * launch.plan.m_blocks;
    for (int chunk = 0; chunk < launch.plan.par; ++chunk, ++tile_row) {
      const int row0 = launch.plan.row_begin + chunk * chunk_rows;
      const int rows = std::min(chunk_rows, launch.plan.row_begin + launch.plan.rows - row0);
      for (int r = row0; r < row0 + rows; ++r) g.tile_row_of_row[r] = tile_row;
      for (int tc = 0; tc < g.cols; ++tc) {
        TileInfo& t = g.tiles[static_cast<size_t>(tile_row) * g.cols + tc];
        t.tile_row = tile_row;
        t.tile_col = tc;
        t.row0 = row0;
        t.rows = rows;
        t.col0 = tc * g.tile_n;
        t.cols = g.tile_n;
        t.launch = l;
        t.column = chunk * launch.n_tiles + tc;
        t.partial = rows < s.config.tile_m();
        for (int i = launch.column_start[t.column]; i < launch.column_start[t.column + 1]; ++i)
          t.slices.push_back(launch.slices[launch.column_slices[i]]);
      }
    }
  }
  return g;
}

}  // namespace tc
