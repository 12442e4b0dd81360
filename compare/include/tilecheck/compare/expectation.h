// What a correct kernel may produce for one case under one schedule: the inputs, the reference
// (y*, S, the correctly rounded expected output), the per-element admissible intervals and the tile
// grid used to attribute every element. Built once per (case, contract, numerics, config, sms), then
// used to judge any number of outputs. The numerics (tilecheck/reference/numerics.h) are the
// contract's unless the kernel declared its own; under an unknown schedule the bounds hold for any
// split of K (output_bounds_any_schedule) and the schedule only attributes elements to blocks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tilecheck/reference/bound.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/gemm.h"
#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/numerics.h"
#include "tilecheck/reference/quantize.h"
#include "tilecheck/reference/schedule.h"
#include "tilecheck/reference/weight_format.h"
#include "tilecheck/compare/tiles.h"

namespace tc {

struct Fixture;  // tilecheck/fixtures/fixture.h

// Where a case comes from; printed in reports and stored in error maps.
struct CaseInfo {
  std::string case_id;       // e.g. "normal_m17n256k256g64"; names error-map files
  std::string distribution;  // "exact", "slices", "ties", "extremes" turn on T0 (bitwise equality)
  std::uint64_t seed = 0;
  std::string provenance;    // free text: fixture path and generator version, or "synthetic"
  std::string format;        // "bf16-uint4-actrandom" (tc::FixtureFormat); empty: fp16-uint4b8
};

struct Expectation {
  CaseInfo info;
  Contract contract = Contract::fp32;  // the contract the case is judged under (the launch's)
  KernelNumerics numerics;             // what the bounds assume: contract_default(contract) unless declared
  int max_slices = 0;                  // unknown schedule: the most slices the bounds allow; 0 under the model
  Schedule schedule;
  Dtype dtype = Dtype::fp16;  // of A, the scales, the expected output and the output judged
  HalfMatrix A;           // (M, K) dtype bits: hints test hypotheses (a dropped k-chunk) on the inputs
  QuantizedWeights w;     // codes (K, N), scales (G, N) in dtype bits; fp16-uint4b8 codes unless `format` says
  // What the rest of the format says (hints test hypotheses on it: a zero point off by one).
  WeightType weight_type = WeightType::uint4b8;
  CodeMatrix zero_points;  // (G, N) 0..15 for uint4; empty otherwise
  std::vector<int> g_idx;  // act-order: the scale group of each row k of A's columns and the codes
  std::vector<int> perm;   // act-order: row i of the kernel's order is row perm[i] (a hint tests A permuted wrong)
  ReferenceOutput ref;    // y_exact, S, expected (dtype bits): (M, N)
  OutputBounds bounds;    // (M, N)
  TileGrid grid;
  const Shape& shape() const { return schedule.shape; }
  int M() const { return schedule.shape.M; }
  int N() const { return schedule.shape.N; }
  // fp16 activations and uint4b8 codes without act-order: what the hints' input hypotheses (code
  // maps, scale groups, dropped k-chunks) and the exact families (T0) are built for.
  bool v1_format() const { return info.format.empty() || info.format == "fp16-uint4b8"; }
  std::string format_name() const { return info.format.empty() ? "fp16-uint4b8" : info.format; }
  // T0 applies to exact cases whose exactness survives the numerics (exact_under): fp16 partials
  // cannot hold every partial sum of the fp32 contract's exact cases. A `slices` case keeps exact the
  // partial sums a striped (contiguous) reduction stores; fp16 ones are exact in no other order, so
  // with fp16 partials T0 needs the modelled schedule (docs/numerics.md, "Slice fixtures").
  bool exact_tier() const;
  // Why T0 does not apply ("" when it does).
  std::string exact_tier_absent() const;
  // Why T2 does not apply ("" when it does): its 5-sigma limit needs the elements' errors to be
  // independent, which holds for data drawn at random (normal, specials, overflow) or of unknown origin,
  // not for the constructed distributions, which repeat inputs along rows and columns.
  std::string statistics_tier_absent() const;
};

// Takes the reference as computed by the caller (or loaded from a fixture; its expected output must
// be under the numerics' epilogue, i.e. reference_gemm under epilogue_contract); computes the bounds
// for the schedule, or for any schedule of at most max_slices_for(K, min_k_slice) slices when the
// numerics say unknown. Throws tc::Error when the shapes disagree or the numerics cannot be bounded.
Expectation make_expectation(HalfMatrix A, QuantizedWeights w, Contract contract, const KernelNumerics& numerics,
                             ReferenceOutput ref, Schedule schedule, CaseInfo info = {});
// The same under the contract's own numerics and Marlin's schedule.
Expectation make_expectation(HalfMatrix A, QuantizedWeights w, Contract contract, ReferenceOutput ref,
                             Schedule schedule, CaseInfo info = {});
// The same, computing the reference with tc::reference_gemm on the default path.
Expectation make_expectation(HalfMatrix A, QuantizedWeights w, Contract contract, Schedule schedule,
                             CaseInfo info = {});

// A golden fixture's case (its inputs, contract and reference) under a schedule for its shape.
// `source` (e.g. the file's path) goes into the provenance with the generator version and RNG.
CaseInfo case_info(const Fixture& f, const std::string& source);
Expectation make_expectation(const Fixture& f, Schedule schedule, const std::string& source = {});
// The fixture's case under `contract`: its stored reference when `contract` is the one the case was
// generated for, otherwise the reference recomputed under `contract` (the stored one is for the
// other contract's rounding). The one way `tilecheck compare`, `tilecheck tiles` and the suite's
// runner build what they judge against.
Expectation make_expectation(const Fixture& f, Contract contract, Schedule schedule, const std::string& source = {});
// The fixture's case under `contract` judged with a kernel's declared numerics: the stored reference
// when its expected output is the one the numerics' epilogue gives (the same epilogue, or grouped
// scales, where both epilogues are one rounding), otherwise the reference recomputed. Every format
// of schema v2 (bf16, zero points, 8-bit codes, act-order) is judged in its dtype with the bounds of
// docs/numerics.md ("Bounds for the served formats"); these three are the only entry points that
// take one.
Expectation make_expectation(const Fixture& f, Contract contract, const KernelNumerics& numerics, Schedule schedule,
                             const std::string& source = {});

}  // namespace tc
