// The comparator: judges a kernel's output against an Expectation, element by element and tier by
// tier, and aggregates the verdicts per output tile. It returns a Comparison (a report, never a
// bool); tilecheck/compare/report.h turns it into text, tilecheck/compare/errormap.h into an HDF5 error map.
//
// Tiers (thresholds and their justification: docs/numerics.md, "Statistics tier (T2)"):
//   T0 exact       cases of the `exact` distribution: every element bitwise equal to the expected
//                  output (+-0 equal, any NaN for NaN)
//   T1 bound       every element admissible, no guard cell written, nothing left unwritten
//   T2 statistics  on cases drawn at random (Expectation::statistics_tier_absent), over the elements
//                  that pass T1 with got and expected finite (at least
//                  kStatsMinElements; gross failures are T1's, T2 looks for subtle ones):
//                  |bias| and |bias toward zero| <= max(kBiasLimit, 5 standard errors) ULP, each
//                  element's error clipped to +-1 ULP; RMS(ulp / max(1, allowance)) <= kRmsLimit
//   T3 determinism repeated outputs bitwise equal (tilecheck/compare/determinism.h)
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilecheck/compare/expectation.h"
#include "tilecheck/compare/guard_band.h"
#include "tilecheck/compare/hints.h"
#include "tilecheck/reference/matrix.h"
#include "tilecheck/compare/verdict.h"

namespace tc {

constexpr long long kStatsMinElements = 256;
// Measured on the kernel model (docs/numerics.md, "Statistics tier (T2)"):
constexpr double kBiasLimit = 0.1;   // ULP; correct <= 0.018, a directed rounding 0.25-0.51 where T1 passes
constexpr double kBiasSigmas = 5;    // and the bias must be this many standard errors from zero
constexpr double kRmsLimit = 0.5;    // correct kernels measured <= 0.373 (positive data, marlin, 5 blocks)

// Histogram of |ulp| over comparable elements: {0, 1, 2, 3-4, 5-8, 9-16, 17-64, >64}.
constexpr int kHistogramBins = 8;
const char* histogram_label(int bin);
int histogram_bin(std::int32_t abs_ulp);

struct Counts {
  long long elements = 0;      // M * N
  long long bound = 0;         // FAIL_BOUND elements
  long long nonfinite = 0;
  long long unwritten = 0;
  long long guard = 0;         // guard cells written
  long long not_exact = 0;     // elements that are not bitwise exact (T0's count)
  long long mismatched() const { return bound + nonfinite + unwritten + guard; }
};

struct Statistics {
  long long n = 0;              // passing elements with got and expected finite and a bounded allowance
  double bias = 0;              // mean of clamp(ulp, -1, 1)
  double bias_toward_zero = 0;  // mean of clamp(ulp, -1, 1) * sign(expected): < 0 toward zero
  double bias_error = 0;        // standard error of either mean, bounded by sqrt(mean(clamp^2) / n)
  double rms = 0;               // sqrt(mean((ulp / max(1, allowance))^2))
  double bias_limit() const;    // max(kBiasLimit, kBiasSigmas * bias_error)
};

enum class TierStatus { pass, fail, not_applicable };
const char* name(TierStatus s);  // "pass", "fail", "n/a"
// One tier's result. The tiers are data: compare() returns them as a list (T0 exact, T1 bound,
// T2 statistics, in that order), and the report, the error map, the judge's message and the run's
// JSON all print that list, so a new tier is added in compare.cpp (and docs/compare.md) alone.
struct TierResult {
  std::string key;    // "t0": the JSON's and the error map's name
  std::string title;  // "T0 exact": the report's
  TierStatus status = TierStatus::not_applicable;
  std::string detail;  // one line: why
};

struct TileSummary {
  std::array<long long, kVerdicts> verdicts{};  // per Verdict; guard counts guard cells next to it
  Mark worst = Mark::exact;
  std::int32_t max_abs_ulp = 0;     // over comparable elements
  double max_utilization = 0;
};

struct CompareOptions {
  bool exact_tier = true;       // run T0 when the case is of the exact distribution
  bool statistics_tier = true;  // run T2 (skipped below kStatsMinElements elements)
};

struct Comparison {
  int M = 0;
  int N = 0;
  HalfMatrix got;                         // (M, N) what was judged
  RowMatrix<std::uint8_t> verdict;        // (M, N) Verdict
  RowMatrix<std::uint8_t> mark;           // (M, N) Mark (heatmap class)
  RowMatrix<std::int32_t> ulp;            // (M, N) signed ULP distance to expected; kNotComparable
  RowMatrix<std::int32_t> allowance;      // (M, N) ULPs; kUnbounded
  GuardBand guard;
  Counts counts;
  std::array<long long, kHistogramBins> histogram{};
  long long not_comparable = 0;
  Statistics stats;
  std::vector<TierResult> tiers;          // T0, T1, T2 (above)
  std::vector<TileSummary> tiles;         // the Expectation's tile grid, row-major
  std::vector<std::pair<int, int>> worst; // up to 16 (row, col), worst first (verdict, utilization)
  std::vector<Hint> hints;
  bool passed() const;                    // no applicable tier failed
  const TierResult& tier(std::string_view key) const;  // throws naming an unknown key
};

Comparison compare(const Expectation& e, const HalfMatrix& got, const GuardBand& guard = {},
                   const CompareOptions& options = {});

}  // namespace tc
