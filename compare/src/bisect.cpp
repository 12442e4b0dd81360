#include "tilecheck/compare/bisect.h"

#include <cmath>
#include <optional>

#include "tilecheck/reference/bound.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

constexpr int kWarpRowAdds = 8;  // the block reduction adds at most this many warp partials

struct Worst {
  int row = -1, col = -1;
  double got = 0, want = 0, allowed = 0, excess = 0;
};

// The element of `got` farthest outside want +- allowed (excess > 0 means out of bounds).
Worst worst_of(const F64Matrix& got, const F64Matrix& want, const F64Matrix& allowed, int row0, int col0) {
  Worst w;
  for (Eigen::Index r = 0; r < got.rows(); ++r) {
    for (Eigen::Index c = 0; c < got.cols(); ++c) {
      const double d = std::fabs(got(r, c) - want(r, c));
      const double excess = std::isnan(got(r, c)) ? INFINITY : d - allowed(r, c);
      if (w.row < 0 || excess > w.excess) {
        w = {row0 + static_cast<int>(r), col0 + static_cast<int>(c), got(r, c), want(r, c), allowed(r, c), excess};
      }
    }
  }
  return w;
}

// The tile's inputs in double: A's rows and w^'s columns, and their magnitudes (for S).
struct TileInputs {
  int tile_k;
  F64Matrix a, w, a_abs, w_abs;
  TileInputs(const Expectation& e, const TileInfo& t)
      : tile_k(e.schedule.config.tile_k()),
        a(to_double(e.A).middleRows(t.row0, t.rows)),
        w(to_double(dequantize(e.w, 0, t.col0, e.shape().K, t.cols))),
        a_abs(a.cwiseAbs()),
        w_abs(w.cwiseAbs()) {}
};

Worst worst_in_tile(const TileInfo& t, const F64Matrix& got, const F64Matrix& want, const F64Matrix& allowed) {
  require(got.rows() == t.rows && got.cols() == t.cols, "a dumped sum is (", got.rows(), ", ", got.cols(),
          "); the tile is (", t.rows, ", ", t.cols, ")");
  return worst_of(got, want, allowed, t.row0, t.col0);
}

// 1. Each block's running sum after each of its k-tiles, slices in reduction order.
std::optional<Departure> k_tile_departure(const TileInfo& t, const AccumulatorDump& dump, const TileInputs& in) {
  const int tile_k = in.tile_k;
  for (const Slice& s : t.slices) {
    F64Matrix prefix = F64Matrix::Zero(t.rows, t.cols), magnitude = F64Matrix::Zero(t.rows, t.cols);
    for (int kt = s.k_tile_begin; kt < s.k_tile_end; ++kt) {
      prefix.noalias() += in.a.middleCols(kt * tile_k, tile_k) * in.w.middleRows(kt * tile_k, tile_k);
      magnitude.noalias() += in.a_abs.middleCols(kt * tile_k, tile_k) * in.w_abs.middleRows(kt * tile_k, tile_k);
      if (dump.after_k_tile.empty() || dump.after_k_tile[kt].size() == 0) continue;
      const int products = (kt + 1 - s.k_tile_begin) * tile_k;
      const F64Matrix allowed = magnitude.unaryExpr([&](double S) { return error_bound(S, products, kWarpRowAdds, {}); });
      const Worst worst = worst_in_tile(t, dump.after_k_tile[kt], prefix, allowed);
      if (!(worst.excess > 0)) continue;  // a NaN excess is no departure
      Departure d{Departure::Stage::k_tile, s.block, kt, -1, worst.row, worst.col, worst.got, worst.want, worst.allowed, {}};
      d.text = cat("thread block ", s.block, " departs after k-tile ", kt, " of its slice [", s.k_tile_begin, ", ",
                   s.k_tile_end, "): element (", worst.row, ", ", worst.col, ") holds ", worst.got,
                   " where the reference prefix sum is ", worst.want, " +- ", worst.allowed,
                   kt > s.k_tile_begin ? "; its earlier k-tiles were right" : "; it is the slice's first k-tile",
                   ". Look at what that k-tile loads: its A columns, B rows and scale group, and the pipeline stage "
                   "it used (k-tile ", kt - s.k_tile_begin, " of the slice: stage ", (kt - s.k_tile_begin) % 4, ").");
      return d;
    }
  }
  return std::nullopt;
}

// The allowance of the running sum after reduction step j, whose sum S covers k >= k0: with fp16
// partials each partial stored before it (magnitudes stored_S) was rounded to fp16.
F64Matrix step_allowance(Partials partials, const F64Matrix& S, int products, int j,
                         const std::vector<F64Matrix>& stored_S) {
  F64Matrix allowed(S.rows(), S.cols());
  for (Eigen::Index r = 0; r < S.rows(); ++r) {
    for (Eigen::Index c = 0; c < S.cols(); ++c) {
      std::vector<double> partial_S;
      if (partials == Partials::fp16)
        for (const F64Matrix& p : stored_S) partial_S.push_back(p(r, c));
      allowed(r, c) = error_bound(S(r, c), products, kWarpRowAdds + j, partial_S);
    }
  }
  return allowed;
}

// 2. The running sum after each reduction step (deepest slices first).
std::optional<Departure> reduction_departure(const Expectation& e, const TileInfo& t, const AccumulatorDump& dump,
                                             const TileInputs& in) {
  std::vector<F64Matrix> stored_S;  // magnitudes of the partials stored so far
  const int K = e.shape().K;
  for (int j = 0; j < static_cast<int>(dump.after_step.size()) && j < t.slice_count(); ++j) {
    const Slice& s = t.slices[j];
    const int k0 = s.k_tile_begin * in.tile_k;
    const F64Matrix want = in.a.middleCols(k0, K - k0) * in.w.middleRows(k0, K - k0);
    const F64Matrix S = in.a_abs.middleCols(k0, K - k0) * in.w_abs.middleRows(k0, K - k0);
    const F64Matrix allowed = step_allowance(e.numerics.numerics.partials, S, K - k0, j, stored_S);
    stored_S.push_back(S);
    if (dump.after_step[j].size() == 0) continue;
    const Worst worst = worst_in_tile(t, dump.after_step[j], want, allowed);
    if (!(worst.excess > 0)) continue;  // a NaN excess is no departure
    Departure d{Departure::Stage::reduction, s.block, -1, j, worst.row, worst.col, worst.got, worst.want, worst.allowed, {}};
    d.text = cat("reduction step ", j, " of ", t.slice_count(), " (thread block ", s.block, " adding k-tiles [",
                 s.k_tile_begin, ", ", s.k_tile_end, ") to the partial sum) departs: element (", worst.row, ", ",
                 worst.col, ") holds ", worst.got, " where the reference is ", worst.want, " +- ", worst.allowed,
                 "; every block's own k-tiles were right, so the partial it read or the order it read it in is "
                 "wrong: the lock protocol, the partial's slot, or a stale read.");
    return d;
  }
  return std::nullopt;
}

// 3. Every recorded sum within bounds: the epilogue's, if the output failed.
Departure no_departure(const TileInfo& t, bool output_failed) {
  Departure d;
  if (!output_failed) {
    d.text = "every recorded sum and the output are within bounds";
    return d;
  }
  d.stage = Departure::Stage::epilogue;
  d.block = t.writer();
  d.text = cat("every recorded sum of tile (", t.tile_row, ", ", t.tile_col, ") is within bounds, yet its output "
               "fails: the epilogue of thread block ", t.writer(), " is wrong (the per-column scale it read, the "
               "conversion to fp16, or where it wrote)");
  return d;
}

}  // namespace

Departure bisect(const Expectation& e, const TileInfo& t, const AccumulatorDump& dump, bool output_failed) {
  const int k_tiles = e.shape().K / e.schedule.config.tile_k();
  require(dump.after_k_tile.empty() || static_cast<int>(dump.after_k_tile.size()) == k_tiles, "the dump has ",
          dump.after_k_tile.size(), " k-tiles; the tile's column has ", k_tiles);
  const TileInputs in(e, t);
  if (std::optional<Departure> d = k_tile_departure(t, dump, in)) return *d;
  if (std::optional<Departure> d = reduction_departure(e, t, dump, in)) return *d;
  return no_departure(t, output_failed);
}

}  // namespace tc
