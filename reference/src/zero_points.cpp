#include "tilecheck/reference/zero_points.h"

#include <cstdint>

#include "tilecheck/core/error.h"
#include "tilecheck/reference/scale_permutation.h"

namespace tc {

ZeroPointPosition packed_zero_point_position(int n) {
  const int p = scale_permutation::grouped_position(n);
  return {p / 8, 4 * (p % 2) + (p % 8) / 2};
}

PackedMatrix pack_zero_points(const CodeMatrix& zero_points) {
  require(zero_points.rows() > 0 && zero_points.cols() > 0 && zero_points.cols() % 64 == 0, "zero points are (",
          zero_points.rows(), ", ", zero_points.cols(), "); expected (G, N) with N a positive multiple of 64");
  PackedMatrix packed = PackedMatrix::Zero(zero_points.rows(), zero_points.cols() / 8);
  for (int g = 0; g < zero_points.rows(); ++g)
    for (int n = 0; n < zero_points.cols(); ++n) {
      const int z = zero_points(g, n);
      require(z <= 15, "zero point ", z, " at (", g, ", ", n, ") is out of range (expected 0..15)");
      const ZeroPointPosition p = packed_zero_point_position(n);
      reinterpret_cast<std::uint32_t&>(packed(g, p.word)) |= static_cast<std::uint32_t>(z) << (4 * p.nibble);
    }
  return packed;
}

CodeMatrix unpack_zero_points(const PackedMatrix& packed) {
  require(packed.rows() > 0 && packed.cols() > 0 && packed.cols() % 8 == 0, "packed zero points are (",
          packed.rows(), ", ", packed.cols(), "); expected (G, N/8) with N a multiple of 64");
  const int G = static_cast<int>(packed.rows()), N = static_cast<int>(packed.cols()) * 8;
  CodeMatrix z(G, N);
  for (int g = 0; g < G; ++g)
    for (int n = 0; n < N; ++n) {
      const ZeroPointPosition p = packed_zero_point_position(n);
      z(g, n) = static_cast<std::uint8_t>((static_cast<std::uint32_t>(packed(g, p.word)) >> (4 * p.nibble)) & 0xF);
    }
  return z;
}

}  // namespace tc
