// Signature hints: rule-based guesses at the cause of a mismatch, each computed from where the
// failures sit (the tile grid, the schedule, the mma fragment layout) or from a hypothesis tested on
// the inputs (a dropped k-chunk, a wrong scale). A hint states the evidence it rests on; it is a
// lead for the engineer, not a diagnosis.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace tc {

struct Comparison;
struct Expectation;

enum class HintKind {
  row_predication,     // failures only in the last, partial M tile, or writes below row M
  column_predication,  // writes right of column N (or left of column 0)
  multi_slice,         // only tiles with slice_count > 1: cross-block reduction or locks
  single_slice,        // only tiles with slice_count == 1
  scale_fetch,         // per-column scales: whole tile columns off by one factor (final scale fetch)
  column_half,         // every other 8 columns: B permutation or fragment layout
  row_half,            // only rows 0-7 or 8-15 of each 16: accumulator fragment halves
  warp,                // only the columns of one warp of each tile
  scale_ratio,         // got / expected is an exact ratio of two scales: wrong scale group/column
  group_boundary,      // part of K dequantized with a neighbouring scale group's scale
  code_mapping,        // every code dequantized by a wrong mapping (zero point, signed nibble, top bit)
  dropped_chunk,       // got = y* minus one 16-deep k-chunk's sum
  low_precision,       // errors grow with the running sum like fp16 rounding: fp16 accumulation
  fp16_reduction,      // got = the cross-block reduction with fp16 partials or fp16 adds, bit for bit
  block,               // every failing tile involves one thread block
  whole_tiles,         // failures fill whole tiles
  unwritten,           // the poison survived
  isolated,            // a few isolated elements
  bit_flip,            // got differs from expected in exactly one bit
  nonfinite,           // NaN / Inf where the reference is finite
  rounding_bias,       // T2: a directed rounding (toward zero, up or down)
  wide_errors,         // T2: errors use much of their allowance (more rounding than the contract)
  not_exact,           // T0 fails while T1 passes: last-bit rounding
  race,                // T3: results differ between repeats
  // The served formats' bugs, tested on the inputs: got = y* with the bf16 scales converted to fp16
  // and back; with the zero points of some groups read as z + 1 or z - 1; with act-order's perm
  // applied to A's columns the wrong way round (scattered instead of gathered).
  bf16_scale_through_fp16,
  zero_point_off_by_one,
  act_order_scatter,
};
std::string_view name(HintKind kind);

struct Hint {
  HintKind kind;
  std::string text;
};

// All hints that apply to a comparison (nothing when it passed).
std::vector<Hint> find_hints(const Expectation& e, const Comparison& c);

bool has_hint(const std::vector<Hint>& hints, HintKind kind);

}  // namespace tc
