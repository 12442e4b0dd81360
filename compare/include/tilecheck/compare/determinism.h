// T3, determinism: outputs of repeated launches at one grid size must be bitwise equal (NaN payloads
// and the sign of zero included). A difference means the result depends on timing: a race. The
// check needs no reference, only the schedule, which attributes the differing elements to tiles,
// slices and blocks.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tilecheck/compare/hints.h"
#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/schedule.h"

namespace tc {

struct Determinism {
  int repeats = 0;
  int M = 0;
  int N = 0;
  long long differing = 0;               // elements not bitwise equal in every repeat
  RowMatrix<std::uint8_t> differs;       // (M, N) 1 where they differ
  std::vector<int> differing_repeats;    // repeats r > 0 that differ from repeat 0
  std::vector<long long> tile_differing; // per tile of the schedule's grid, row-major
  std::pair<int, int> first{-1, -1};     // first differing element, row-major
  std::vector<half_bits> first_values;   // the distinct values seen there, in repeat order
  std::vector<Hint> hints;
  bool passed() const { return differing == 0; }
};

// Throws unless there are at least two outputs, all of the schedule's (M, N).
Determinism check_determinism(const Schedule& s, const std::vector<HalfMatrix>& outputs);

// "Nondeterministic: 37 / 65536 elements (0.056%) differ across 10 repeats ..." with the first
// differing element's attribution, a tile map (R differs, . identical) and the hints.
std::string determinism_report(const Schedule& s, const Determinism& d, std::size_t max_chars = 10000);

}  // namespace tc
