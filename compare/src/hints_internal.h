// Shared by the two halves of the hint finder: hints.cpp (where failures sit) and
// hints_inputs.cpp (hypotheses tested on the inputs).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "tilecheck/compare/compare.h"

namespace tc::hints {

// Failing elements (verdict != PASS), in row-major order, and a deterministic spread-out sample.
std::vector<std::pair<int, int>> failing_elements(const Comparison& c);
std::vector<std::pair<int, int>> sample(const std::vector<std::pair<int, int>>& all, size_t count);

// Hypotheses on the inputs; each appends at most one hint.
void scale_ratio(const Expectation& e, const Comparison& c, const std::vector<std::pair<int, int>>& fails,
                 std::vector<Hint>& out);
// A sampled out-of-bound element with what the kernel's accumulator must have been and the 16-deep
// k-chunk sums of its dot product (computed once, used by both hypotheses below).
struct InputSample {
  int i = 0;
  int j = 0;
  double acc = 0;       // implied by got (per-column scales divided out)
  double rounding = 0;  // how far got's rounding can move it
  std::vector<double> chunks;
};
std::vector<InputSample> input_samples(const Expectation& e, const Comparison& c,
                                       const std::vector<std::pair<int, int>>& fails);
// Returns true when a dropped-chunk pattern explains the failures (then low_precision is skipped).
bool dropped_chunk(const Expectation& e, const std::vector<InputSample>& samples, std::vector<Hint>& out);
void low_precision(const Expectation& e, const Comparison& c, const std::vector<InputSample>& samples,
                   std::vector<Hint>& out);

std::string describe_tile(const TileInfo& t);  // "(1, 2) [rows 32-63, cols 256-511]"
std::string describe_slices(const TileInfo& t);  // "b3 k-tiles [0,4) -> b2 [4,8) (writes)"
std::string percent(long long part, long long whole);
std::string number(double x, int digits);  // fixed-point

}  // namespace tc::hints
