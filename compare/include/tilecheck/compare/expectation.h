// What a correct kernel may produce for one case under one schedule: the inputs, the reference
// (y*, S, the correctly rounded expected output), the per-element admissible intervals and the tile
// grid used to attribute every element. Built once per (case, contract, config, sms), then used to
// judge any number of outputs.
#pragma once
#include <cstdint>
#include <string>

#include "tilecheck/reference/bound.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/gemm.h"
#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/quantize.h"
#include "tilecheck/reference/schedule.h"
#include "tilecheck/compare/tiles.h"

namespace tc {

struct Fixture;  // tilecheck/fixtures/fixture.h

// Where a case comes from; printed in reports and stored in error maps.
struct CaseInfo {
  std::string case_id;       // e.g. "normal_m17n256k256g64"; names error-map files
  std::string distribution;  // "exact" turns on the T0 tier (bitwise equality)
  std::uint64_t seed = 0;
  std::string provenance;    // free text: fixture path and generator version, or "synthetic"
};

struct Expectation {
  CaseInfo info;
  Contract contract = Contract::fp32;
  Schedule schedule;
  HalfMatrix A;           // (M, K) fp16: hints test hypotheses (a dropped k-chunk) on the inputs
  QuantizedWeights w;     // codes (K, N), scales (G, N)
  ReferenceOutput ref;    // y_exact, S, expected: (M, N)
  OutputBounds bounds;    // (M, N)
  TileGrid grid;
  const Shape& shape() const { return schedule.shape; }
  int M() const { return schedule.shape.M; }
  int N() const { return schedule.shape.N; }
  bool exact_tier() const { return info.distribution == "exact"; }
};

// Takes the reference as computed by the caller (or loaded from a fixture); computes the bounds for
// the schedule. Throws tc::Error when the shapes disagree.
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

}  // namespace tc
