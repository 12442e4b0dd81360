// GoogleTest predicate-formatters for every numerical test: they return the comparator's report as
// the failure message, and on failure write the error map named after the case and configuration.
//   EXPECT_PRED_FORMAT2(tc::MatchesReference, expectation, C);
//   EXPECT_PRED_FORMAT3(tc::MatchesReferenceWithGuard, expectation, C, guard);   // + guard band
//   EXPECT_PRED_FORMAT2(tc::Matches(options), expectation, C);                  // chosen tiers
//   EXPECT_PRED_FORMAT2(tc::Deterministic, schedule, repeated_outputs);         // T3
// A separate library (tc_compare_gtest) so that tc_compare itself does not depend on GoogleTest.
#pragma once
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/determinism.h"
#include "tilecheck/compare/expectation.h"

namespace tc {

// Where failing comparisons write error maps: $TC_ERRMAP_DIR, else "tilecheck-errmaps" under the
// working directory (for ctest, the test's build directory). TC_ERRMAP_DIR=off writes none.
std::string error_map_dir();

class Matches {
 public:
  explicit Matches(CompareOptions options = {}, bool write_error_map = true)
      : options_(options), write_error_map_(write_error_map) {}
  ::testing::AssertionResult operator()(const char* expectation_text, const char* output_text, const Expectation& e,
                                        const HalfMatrix& got) const;
  ::testing::AssertionResult operator()(const char* expectation_text, const char* output_text, const char* guard_text,
                                        const Expectation& e, const HalfMatrix& got, const GuardBand& guard) const;

 private:
  CompareOptions options_;
  bool write_error_map_;
};

// Every applicable tier: T0 for exact cases, T1, T2.
::testing::AssertionResult MatchesReference(const char* expectation_text, const char* output_text,
                                            const Expectation& e, const HalfMatrix& got);
::testing::AssertionResult MatchesReferenceWithGuard(const char* expectation_text, const char* output_text,
                                                     const char* guard_text, const Expectation& e,
                                                     const HalfMatrix& got, const GuardBand& guard);

::testing::AssertionResult Deterministic(const char* schedule_text, const char* outputs_text, const Schedule& s,
                                         const std::vector<HalfMatrix>& outputs);

}  // namespace tc
