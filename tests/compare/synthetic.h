// Synthetic problems and outputs for the comparator's tests: inputs from tc::CounterRng, the
// reference from tc::reference_gemm, and a CPU model of a Marlin-style kernel whose faults can be
// switched on one at a time, each a real bug class with a known signature.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>

#include "tilecheck/compare/expectation.h"

namespace tc::synthetic {

struct Problem {
  Shape shape;
  TileConfig config;
  int sms = 1;
  Contract contract = Contract::fp32;
  std::string distribution = "normal";  // normal | positive | exact | onehot_a
  std::uint64_t seed = 1;
};
std::string name(const Problem& p);  // "m17n256k256g64_m2n16k4g4_fp32_sms7_normal"
void PrintTo(const Problem& p, std::ostream* out);

Expectation synthetic_expectation(const Problem& p);

// 40 rows (tile rows 0-1 full, tile row 2 the 8-row tail), 4 tile columns of 128, K = 512 in 4
// k-tiles, 7 blocks: a mix of single- and multi-slice tiles.
Problem grid_problem(Contract contract = Contract::fp32, int group = 64, const char* distribution = "normal");

// The model: every output tile's slices each sum their k-range in 16-deep steps into an fp32
// accumulator that truncates (the worst case the bounds model), the slices combine in reduction
// order (fp16 partial sums under the marlin contract), then the contract's epilogue.
struct Faults {
  bool fp16_accumulation = false;  // round the running sum to fp16 after every 16-deep step
  int drop_first_step_of = -1;     // this block skips the first 16-deep step of each of its slices
  bool writer_skips_partials = false;  // the last block of a tile writes only its own slice's sum
  int scale_group_offset = 0;      // grouped scales: k in group g dequantized with group g + offset
  int lagging_group_scale_of = -1;  // this block's slices: a k-tile at an odd position of its slice reads
                                    // the scales of the k-tile before (group scales fetched at even ones)
  bool epilogue_toward_zero = false;  // the final conversion to fp16 truncates
  int code_map = 0;  // codes dequantized as 1: q - 7 (zero point 7), 2: a signed int4 (no offset), 3: (q & 7) - 8
  int wrong_column_scale_of = -1;  // per-column: tiles this block writes use the scale of column j ^ 1
  int fp16_reduction = 0;  // 1: partial sums stored in fp16 whatever the contract; 2: besides, each
                           // block rounds its own sum to fp16 before adding the partial it reads
};
HalfMatrix model_kernel(const Expectation& e, const Faults& faults = {});

}  // namespace tc::synthetic
