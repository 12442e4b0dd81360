#include "tilecheck/reference/schedule.h"

#include <algorithm>
#include <cstdio>

#include "tilecheck/core/error.h"
#include "tilecheck/reference/mma_layout.h"
#include "tilecheck/reference/stripe.h"

namespace tc {

bool operator==(const TileConfig& a, const TileConfig& b) {
  return a.m_blocks == b.m_blocks && a.n_blocks == b.n_blocks && a.k_blocks == b.k_blocks &&
         a.group_blocks == b.group_blocks;
}

std::string name(const TileConfig& c) {
  const std::string group = c.group_blocks < 0 ? "col" : std::to_string(c.group_blocks);
  return cat("m", c.m_blocks, "n", c.n_blocks, "k", c.k_blocks, "g", group);
}

std::ostream& operator<<(std::ostream& out, const TileConfig& c) { return out << name(c); }

TileConfig parse_config(std::string_view text) {
  TileConfig c;
  char group[8] = {0};
  const std::string s(text);
  int consumed = 0;
  const bool ok = std::sscanf(s.c_str(), "m%dn%dk%dg%7[a-z0-9]%n", &c.m_blocks, &c.n_blocks,
                              &c.k_blocks, group, &consumed) == 4 &&
                  consumed == static_cast<int>(s.size());
  require(ok, "config '", text, "' is not of the form m<M>n<N>k<K>g<G|col>, e.g. m1n8k8g8");
  if (std::string(group) == "col") {
    c.group_blocks = -1;
  } else {
    require(std::all_of(group, group + std::char_traits<char>::length(group), ::isdigit), "config '",
            text, "' has group '", group, "' (expected a number of 16-row blocks or col)");
    c.group_blocks = std::atoi(group);
  }
  require(c.m_blocks >= 1 && c.m_blocks <= 4, "config '", text, "' has m_blocks=", c.m_blocks,
          " (expected 1..4)");
  require(c.n_blocks >= 4 && c.n_blocks % 4 == 0, "config '", text, "' has n_blocks=", c.n_blocks,
          " (expected a positive multiple of 4)");
  require(c.k_blocks >= 1, "config '", text, "' has k_blocks=", c.k_blocks, " (expected >= 1)");
  require(c.group_blocks == -1 || c.group_blocks == 2 || c.group_blocks == 4 || c.group_blocks == 8,
          "config '", text, "' has group_blocks=", c.group_blocks, " (expected 2, 4, 8 or col)");
  return c;
}

int group_blocks_for(int group) {
  validate_group(group, is_per_column(group) ? 16 : group);
  return is_per_column(group) ? -1 : group / 16;
}

void validate_config(const TileConfig& c, const Shape& shape) {
  validate_shape(shape);
  // Runs on every kernel launch: the messages (name(c) formats a string) are built only on failure.
  if (shape.N % c.tile_n() != 0)
    throw Error(cat("N=", shape.N, " is not a multiple of the tile width ", c.tile_n(), " of config ", name(c)));
  if (shape.K % c.tile_k() != 0)
    throw Error(cat("K=", shape.K, " is not a multiple of the tile depth ", c.tile_k(), " of config ", name(c)));
  if (c.group_blocks != group_blocks_for(shape.group))
    throw Error(cat("config ", name(c), " has group_blocks=", c.group_blocks, " but the problem's group size ",
                    shape.group, " needs ", group_blocks_for(shape.group)));
}

TileConfig choose_config(const Shape& shape) {
  validate_shape(shape);
  TileConfig c;
  c.m_blocks = std::min(4, stripe::ceil_div(shape.M, 16));
  c.group_blocks = group_blocks_for(shape.group);
  const bool small = shape.M <= 16;
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool square = small != (attempt == 1);
    c.n_blocks = square ? 8 : 16;
    c.k_blocks = square ? 8 : 4;
    if (shape.N % c.tile_n() == 0 && shape.K % c.tile_k() == 0) return c;
  }
  throw Error(cat("no tile fits N=", shape.N, " K=", shape.K,
                  " (expected N % 128 == 0 and K % 128 == 0, or N % 256 == 0 and K % 64 == 0)"));
}

std::vector<LaunchPlan> plan_launches(int M, int m_blocks, int max_par) {
  require(M > 0, "M=", M, " must be positive");
  require(m_blocks >= 1 && m_blocks <= 4, "m_blocks=", m_blocks, " (expected 1..4)");
  require(max_par >= 1, "max_par=", max_par, " must be at least 1");
  std::vector<LaunchPlan> plans;
  const int chunk = 16 * m_blocks;
  int row = 0;
  for (int full = M / chunk; full > 0;) {
    const int par = std::min(full, max_par);
    plans.push_back({row, par * chunk, m_blocks, par});
    row += par * chunk;
    full -= par;
  }
  if (row < M) plans.push_back({row, M - row, stripe::ceil_div(M - row, 16), 1});
  return plans;
}

LaunchSchedule schedule_launch(const LaunchPlan& plan, const Shape& shape, const TileConfig& config,
                               int sms) {
  require(sms >= 1, "sms=", sms, " must be at least 1");
  LaunchSchedule s;
  s.plan = plan;
  s.config = config;
  s.config.m_blocks = plan.m_blocks;
  s.grid = sms;
  s.k_tiles = shape.K / config.tile_k();
  s.n_tiles = shape.N / config.tile_n();
  s.columns = s.n_tiles * plan.par;
  s.iters = stripe::iters_per_block(s.k_tiles, s.columns, sms, config.k_blocks, config.group_blocks);
  const int total = s.k_tiles * s.columns;
  for (int block = 0; block < sms; ++block) {
    int t = s.iters * block;
    const int end = std::min(total, t + s.iters);
    while (t < end) {
      Slice slice;
      slice.block = block;
      slice.column = t / s.k_tiles;
      slice.k_tile_begin = t % s.k_tiles;
      slice.k_tile_end = std::min(s.k_tiles, slice.k_tile_begin + (end - t));
      slice.slice_index = stripe::slice_index(block, slice.column, s.k_tiles, s.iters);
      slice.slice_count = stripe::slice_count(slice.column, s.k_tiles, s.iters);
      s.slices.push_back(slice);
      t += slice.k_tile_end - slice.k_tile_begin;
    }
  }
  // Index the slices by column, in reduction order.
  s.column_start.assign(s.columns + 1, 0);
  for (const Slice& slice : s.slices) ++s.column_start[slice.column + 1];
  for (int c = 0; c < s.columns; ++c) s.column_start[c + 1] += s.column_start[c];
  s.column_slices.assign(s.slices.size(), -1);
  for (int i = 0; i < static_cast<int>(s.slices.size()); ++i) {
    const Slice& slice = s.slices[i];
    s.column_slices[s.column_start[slice.column] + slice.slice_index] = i;
  }
  return s;
}

int Schedule::tile_rows() const {
  int rows = 0;
  for (const LaunchSchedule& l : launches) rows += l.plan.par;
  return rows;
}

Schedule make_schedule(const Shape& shape, const TileConfig& config, int sms, int max_par) {
  validate_config(config, shape);
  Schedule s{shape, config, sms, max_par, {}};
  for (const LaunchPlan& plan : plan_launches(shape.M, config.m_blocks, max_par))
    s.launches.push_back(schedule_launch(plan, shape, config, sms));
  return s;
}

AccumulatorPlace accumulator_place(int row_in_tile, int col_in_tile) {
  const int r = row_in_tile % mma::kAccumulatorRows, c = col_in_tile % mma::kAccumulatorCols;
  return {col_in_tile / mma::kWarpTileCols, mma::accumulator_lane(r, c), mma::accumulator_reg(r, c)};
}

ElementPlace locate(const Schedule& s, int row, int col) {
  require(row >= 0 && row < s.shape.M && col >= 0 && col < s.shape.N, "element (", row, ", ", col,
          ") is outside the (", s.shape.M, ", ", s.shape.N, ") output");
  ElementPlace p;
  for_each_tile(s, [&](const OutputTile& t) {
    if (row < t.row0 || row >= t.row0 + t.rows || col < t.col0 || col >= t.col0 + t.cols) return;
    p.launch = t.launch;
    p.column = t.column;
    p.tile_row = t.tile_row;
    p.tile_col = t.tile_col;
    p.row_in_tile = row - t.row0;
    p.col_in_tile = col - t.col0;
  });
  const AccumulatorPlace a = accumulator_place(p.row_in_tile, p.col_in_tile);
  p.warp = a.warp;
  p.lane = a.lane;
  p.reg = a.reg;
  return p;
}

std::vector<Slice> slices_of(const LaunchSchedule& launch, int column) {
  std::vector<Slice> out;
  for (int i = launch.column_start[column]; i < launch.column_start[column + 1]; ++i)
    out.push_back(launch.slices[launch.column_slices[i]]);
  return out;
}

std::vector<Slice> slices_of(const Schedule& s, const ElementPlace& place) {
  return slices_of(s.launches.at(place.launch), place.column);
}

std::string reduction_order_text(const std::vector<Slice>& slices) {
  std::string s;
  for (const Slice& sl : slices) {
    s += cat(s.empty() ? "" : " -> ", "block ", sl.block, " k-tiles [", sl.k_tile_begin, ",", sl.k_tile_end, ")",
             sl.last() ? " (last, writes)" : "");
  }
  return s;
}

}  // namespace tc
