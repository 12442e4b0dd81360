// The schedule model: the single source of truth for how the kernel splits a problem.
//   M is cut into chunks of 16*m_blocks rows; full chunks run as batched launches of up to max_par
//   chunks ("par"), the remaining rows (M % (16*m_blocks)) as one tail launch with fewer m-blocks.
//   Each launch runs `sms` thread blocks over a striped partition of k-tiles (tilecheck/reference/stripe.h).
// The kernel's host code plans its launches with plan_launches(); the comparator uses the whole
// schedule to attribute every output element to its thread block, slice and reduction order.
#pragma once
#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "tilecheck/reference/shape.h"

namespace tc {

constexpr int kDefaultMaxPar = 16;

// A kernel configuration, as the kernel's template parameters: 16-row, 16-column and 16-deep blocks
// per thread-block tile, and the scale group in 16-row blocks (-1: per column).
struct TileConfig {
  int m_blocks = 1;
  int n_blocks = 8;
  int k_blocks = 8;
  int group_blocks = -1;
  int tile_n() const { return 16 * n_blocks; }
  int tile_k() const { return 16 * k_blocks; }
  int tile_m() const { return 16 * m_blocks; }
  int group() const { return group_blocks < 0 ? -1 : 16 * group_blocks; }  // G in rows; -1: per column
};
bool operator==(const TileConfig& a, const TileConfig& b);
inline bool operator!=(const TileConfig& a, const TileConfig& b) { return !(a == b); }
std::string name(const TileConfig& c);  // "m1n8k8g8"; per-column scales: "m4n16k4gcol"
std::ostream& operator<<(std::ostream& out, const TileConfig& c);
TileConfig parse_config(std::string_view name);  // inverse of name(); throws naming the text

int group_blocks_for(int group);  // 32 -> 2, 64 -> 4, 128 -> 8, -1 -> -1
// Throws unless the config can run the shape: N % tile_n, K % tile_k, group_blocks matches group.
void validate_config(const TileConfig& c, const Shape& shape);
// What the kernel picks when the caller does not: Marlin's rule (M <= 16: 128x128 tile, else 256x64),
// m_blocks = min(4, ceil(M / 16)), falling back to the other tile if the shape does not divide.
TileConfig choose_config(const Shape& shape);

struct LaunchPlan {
  int row_begin = 0;  // first row of A and C
  int rows = 0;       // rows this launch covers (16 * m_blocks * par, or the tail)
  int m_blocks = 1;   // m_blocks of the kernel this launch runs
  int par = 1;        // independent chunks of 16 * m_blocks rows in this launch
};
std::vector<LaunchPlan> plan_launches(int M, int m_blocks, int max_par);

struct Slice {
  int block = 0;
  int column = 0;        // in [0, n_tiles * par)
  int k_tile_begin = 0;  // [begin, end) k-tiles of the column this block sums
  int k_tile_end = 0;
  int slice_index = 0;   // reduction order: 0 first, slice_count - 1 last
  int slice_count = 1;
  bool last() const { return slice_index == slice_count - 1; }
};

struct LaunchSchedule {
  LaunchPlan plan;
  TileConfig config;  // m_blocks is the plan's
  int grid = 1;
  int k_tiles = 0;
  int n_tiles = 0;
  int columns = 0;
  int iters = 0;
  std::vector<Slice> slices;        // block by block, each block's slices in processing order
  std::vector<int> column_start;    // slices of column c in reduction order are
  std::vector<int> column_slices;   //   column_slices[column_start[c] .. column_start[c + 1])
  int chunk_of(int column) const { return column / n_tiles; }  // par index
  int n_tile_of(int column) const { return column % n_tiles; }
};
LaunchSchedule schedule_launch(const LaunchPlan& plan, const Shape& shape, const TileConfig& config,
                               int sms);

struct Schedule {
  Shape shape;
  TileConfig config;
  int sms = 1;
  int max_par = kDefaultMaxPar;
  std::vector<LaunchSchedule> launches;
  int tile_rows() const;  // rows of the output tile grid (chunks over all launches)
  int tile_cols() const { return shape.N / config.tile_n(); }
};
Schedule make_schedule(const Shape& shape, const TileConfig& config, int sms,
                       int max_par = kDefaultMaxPar);

// One output tile: where it lies in the output and which launch column computes it.
struct OutputTile {
  int launch = 0;    // index into Schedule::launches
  int column = 0;    // schedule column within the launch: chunk * n_tiles + tile_col
  int tile_row = 0;  // output tile grid coordinates
  int tile_col = 0;
  int row0 = 0;      // output rows [row0, row0 + rows), columns [col0, col0 + cols)
  int rows = 0;      // fewer than the tile height on the M tail
  int col0 = 0;
  int cols = 0;
};

// Calls visit(const OutputTile&) for every output tile of the schedule, in the tile grid's
// row-major order: launch by launch, each launch's chunks (tile rows), each row left to right.
template <typename Visit>
void for_each_tile(const Schedule& s, Visit&& visit) {
  const int tile_n = s.config.tile_n();
  int tile_row = 0;
  for (int l = 0; l < static_cast<int>(s.launches.size()); ++l) {
    const LaunchSchedule& launch = s.launches[l];
    const int chunk_rows = 16 * launch.plan.m_blocks;
    for (int chunk = 0; chunk < launch.plan.par; ++chunk, ++tile_row) {
      const int row0 = launch.plan.row_begin + chunk * chunk_rows;
      const int rows = std::min(chunk_rows, launch.plan.row_begin + launch.plan.rows - row0);
      for (int tile_col = 0; tile_col < launch.n_tiles; ++tile_col) {
        const OutputTile t{l, chunk * launch.n_tiles + tile_col, tile_row, tile_col,
                           row0, rows, tile_col * tile_n, tile_n};
        visit(t);
      }
    }
  }
}

// The slices that sum schedule column `column` of a launch, in reduction order (the last writes).
std::vector<Slice> slices_of(const LaunchSchedule& launch, int column);

// Where output element (row, col) is computed.
struct ElementPlace {
  int launch = 0;
  int column = 0;     // schedule column within the launch
  int tile_row = 0;   // output tile grid coordinates
  int tile_col = 0;
  int row_in_tile = 0;
  int col_in_tile = 0;
  int warp = 0;       // warp that holds the element's accumulator after the block reduction
  int lane = 0;       // mma m16n8k16 accumulator fragment: lane and register (c0..c3)
  int reg = 0;
};
ElementPlace locate(const Schedule& s, int row, int col);
// The accumulator that holds element (row, col) of an output tile after the block reduction:
// the kernel's warp column and the mma lane and register (tilecheck/reference/mma_layout.h).
struct AccumulatorPlace {
  int warp = 0;
  int lane = 0;
  int reg = 0;
};
AccumulatorPlace accumulator_place(int row_in_tile, int col_in_tile);
// The slices that produce the element's output tile, in reduction order.
std::vector<Slice> slices_of(const Schedule& s, const ElementPlace& place);
// The reduction order as every report prints it:
// "block 5 k-tiles [1,4) -> block 4 k-tiles [0,1) (last, writes)".
std::string reduction_order_text(const std::vector<Slice>& slices);

}  // namespace tc
