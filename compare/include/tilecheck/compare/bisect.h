// K-bisection: where, along one output tile's computation, the kernel first departs from the
// reference. The dump variant of the kernel (TC_ACC_DUMP) records, for one chosen tile, each
// block's fp32 running sum after every k-tile it processes, and the running sum after every step of
// the cross-block reduction; this compares them with the reference's prefix sums over the same
// k-ranges, each within its own error allowance (docs/numerics.md), in processing order.
#pragma once
#include <string>
#include <vector>

#include "tilecheck/compare/expectation.h"

namespace tc {

// What the dump variant records for one tile (rows x cols of the output tile).
struct AccumulatorDump {
  // after_k_tile[kt]: the running sum of the block that processes k-tile kt of this column, after
  // it (from the first k-tile of that block's slice); empty where nothing was recorded.
  std::vector<F64Matrix> after_k_tile;
  // after_step[j]: the running sum after reduction step j (slice j of the reduction order added
  // its part to the partials before it); empty for a tile with one slice.
  std::vector<F64Matrix> after_step;
};

struct Departure {
  enum class Stage { none, k_tile, reduction, epilogue };
  Stage stage = Stage::none;
  int block = -1;      // the block whose work departs
  int k_tile = -1;     // k_tile stage: the first k-tile after which its sum is out of bounds
  int step = -1;       // reduction stage: the reduction step
  int row = -1, col = -1;  // the worst element there (output coordinates)
  double got = 0, want = 0, allowed = 0;
  std::string text;    // one paragraph for the user
};

// `output_failed` says whether the tile's output failed the comparison: if every recorded sum is
// within bounds, the departure is the epilogue's (scale, rounding, write-out).
Departure bisect(const Expectation& e, const TileInfo& tile, const AccumulatorDump& dump, bool output_failed);

}  // namespace tc
