#include "tilecheck/compare/guard_band.h"

#include <algorithm>

#include "tilecheck/compare/poison.h"
#include "tilecheck/core/error.h"

namespace tc {

HalfMatrix interior(const HalfMatrix& buffer, int top, int left, int bottom, int right) {
  require(top >= 0 && left >= 0 && bottom >= 0 && right >= 0, "guard margins must be non-negative");
  const Eigen::Index rows = buffer.rows() - top - bottom, cols = buffer.cols() - left - right;
  require(rows > 0 && cols > 0, "a (", buffer.rows(), ", ", buffer.cols(), ") buffer has no interior inside margins ",
          top, ", ", left, ", ", bottom, ", ", right);
  return buffer.block(top, left, rows, cols);
}

GuardBand guard_band(const HalfMatrix& buffer, int top, int left, int bottom, int right) {
  const HalfMatrix inner = interior(buffer, top, left, bottom, right);  // validates the margins
  GuardBand g;
  const int rows = static_cast<int>(buffer.rows()), cols = static_cast<int>(buffer.cols());
  for (int r = 0; r < rows; ++r) {
    const bool inside_rows = r >= top && r < rows - bottom;
    for (int c = 0; c < cols; ++c) {
      if (inside_rows && c >= left && c < cols - right) continue;
      ++g.cells;
      if (!is_poison(buffer(r, c))) g.written.push_back({r - top, c - left, buffer(r, c)});
    }
  }
  return g;
}

std::pair<int, int> nearest_element(const GuardCell& g, int M, int N) {
  return {std::clamp(g.row, 0, M - 1), std::clamp(g.col, 0, N - 1)};
}

}  // namespace tc
