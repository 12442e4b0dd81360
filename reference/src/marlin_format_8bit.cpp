#include "tilecheck/reference/marlin_format_8bit.h"

#include <cstdint>

#include "tilecheck/core/error.h"

namespace tc {

BytePosition packed_position_8bit(int k, int n) {
  const int tile = n / 16, kt = k % 16, nt = n % 16;
  const int block = nt / 8;
  const int lane = 4 * (nt % 8) + (kt % 8) / 2;
  const int byte = 2 * (kt % 2) + kt / 8;  // rows r, r+8, r+1, r+9
  const int word = (tile / 4) * 256 + 8 * lane + 2 * (tile % 4) + block;
  return {k / 16, word, byte};
}

PackedMatrix pack_weights_8bit(const CodeMatrix& codes) {
  require(codes.rows() > 0 && codes.rows() % 16 == 0, "codes have K=", codes.rows(),
          " rows; expected a positive multiple of 16");
  require(codes.cols() > 0 && codes.cols() % 64 == 0, "codes have N=", codes.cols(),
          " columns; expected a positive multiple of 64");
  PackedMatrix packed = PackedMatrix::Zero(codes.rows() / 16, 4 * codes.cols());
  for (int k = 0; k < codes.rows(); ++k)
    for (int n = 0; n < codes.cols(); ++n) {
      const BytePosition p = packed_position_8bit(k, n);
      auto& word = reinterpret_cast<std::uint32_t&>(packed(p.row, p.col));
      word |= static_cast<std::uint32_t>(codes(k, n)) << (8 * p.byte);
    }
  return packed;
}

CodeMatrix unpack_weights_8bit(const PackedMatrix& packed) {
  require(packed.rows() > 0 && packed.cols() > 0 && packed.cols() % 256 == 0, "packed 8-bit weights are (",
          packed.rows(), ", ", packed.cols(), "); expected (K/16, 4N) with N a multiple of 64");
  const int K = static_cast<int>(packed.rows()) * 16, N = static_cast<int>(packed.cols()) / 4;
  CodeMatrix codes(K, N);
  for (int k = 0; k < K; ++k)
    for (int n = 0; n < N; ++n) {
      const BytePosition p = packed_position_8bit(k, n);
      const auto word = static_cast<std::uint32_t>(packed(p.row, p.col));
      codes(k, n) = static_cast<std::uint8_t>(word >> (8 * p.byte));
    }
  return codes;
}

}  // namespace tc
