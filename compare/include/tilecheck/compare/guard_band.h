// The guard band: the harness allocates C with margins (rows above/below, columns left/right)
// poisoned like C (tilecheck/compare/poison.h); a margin cell that no longer holds the poison was
// written out of bounds. These split such a buffer into the output and its guard band.
#pragma once
#include <utility>
#include <vector>

#include "tilecheck/reference/fp16.h"
#include "tilecheck/reference/matrix.h"

namespace tc {

// A guard cell in output coordinates: outside [0, M) x [0, N), e.g. row M or column -1.
struct GuardCell {
  int row = 0;
  int col = 0;
  half_bits bits = 0;
};
struct GuardBand {
  long long cells = 0;             // guard cells checked
  std::vector<GuardCell> written;  // those that no longer hold kPoison
};
// Throw unless the margins are non-negative and leave an interior.
HalfMatrix interior(const HalfMatrix& buffer, int top, int left, int bottom, int right);
GuardBand guard_band(const HalfMatrix& buffer, int top, int left, int bottom, int right);

// The element of the output nearest to a guard cell (its coordinates clamped into the output).
std::pair<int, int> nearest_element(const GuardCell& g, int M, int N);

}  // namespace tc
