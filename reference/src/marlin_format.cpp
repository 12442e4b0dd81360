#include "tilecheck/reference/marlin_format.h"

#include <array>
#include <cstdint>

#include "tilecheck/core/error.h"
#include "tilecheck/reference/scale_permutation.h"
#include "tilecheck/reference/shape.h"

namespace tc {
namespace {

// Position of code (k, n) in the mma m16n8k16 B fragments of its 16x16 tile: which lane holds it
// and which of the lane's eight codes it is (block * 4 + {r, r+1, r+8, r+9} index).
struct FragmentSlot {
  int lane;
  int element;
};

FragmentSlot fragment_slot(int k_in_tile, int n_in_tile) {
  const int block = n_in_tile / 8;
  const int lane = 4 * (n_in_tile % 8) + (k_in_tile % 8) / 2;
  const int element = 4 * block + 2 * (k_in_tile / 8) + (k_in_tile % 2);
  return {lane, element};
}

// Nibble that holds fragment element e: the order [0, 2, 4, 6, 1, 3, 5, 7] puts rows r / r+8 of both
// blocks in the low byte of each 16-bit half and rows r+1 / r+9 in the high one.
int nibble_of_element(int e) { return (e % 2) * 4 + e / 2; }

void require_packable(const CodeMatrix& codes) {
  require(codes.rows() > 0 && codes.rows() % 16 == 0, "codes have K=", codes.rows(),
          " rows; expected a positive multiple of 16");
  require(codes.cols() > 0 && codes.cols() % 64 == 0, "codes have N=", codes.cols(),
          " columns; expected a positive multiple of 64");
}

}  // namespace

NibblePosition packed_position(int k, int n) {
  const int tile = n / 16;
  const FragmentSlot slot = fragment_slot(k % 16, n % 16);
  const int word = (tile / 4) * 128 + 4 * slot.lane + tile % 4;
  return {k / 16, word, nibble_of_element(slot.element)};
}

PackedMatrix pack_weights(const CodeMatrix& codes) {
  require_packable(codes);
  for (int k = 0; k < codes.rows(); ++k)  // checked before the parallel loop, which cannot throw
    for (int n = 0; n < codes.cols(); ++n)
      require(codes(k, n) <= 15, "code ", int(codes(k, n)), " at (", k, ", ", n, ") is out of range (expected 0..15)");
  // packed_position repeats every 16 rows and 64 columns (one group of four 16x16 tiles fills 128
  // words of a packed row): one table of those 1,024 places packs the whole matrix.
  struct Place {
    int word;
    int shift;
  };
  std::array<Place, 16 * 64> place{};
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 64; ++n) {
      const NibblePosition p = packed_position(k, n);
      place[k * 64 + n] = {p.col, 4 * p.nibble};
    }
  const int row_blocks = static_cast<int>(codes.rows()) / 16, N = static_cast<int>(codes.cols());
  PackedMatrix packed = PackedMatrix::Zero(row_blocks, 2 * N);
#pragma omp parallel for schedule(static)  // each 16 rows of codes fill their own packed row
  for (int b = 0; b < row_blocks; ++b) {
    auto* row = reinterpret_cast<std::uint32_t*>(packed.row(b).data());
    for (int k = 0; k < 16; ++k) {
      const std::uint8_t* in = codes.row(16 * b + k).data();
      for (int n = 0; n < N; ++n) {
        const Place& p = place[k * 64 + n % 64];
        row[(n / 64) * 128 + p.word] |= static_cast<std::uint32_t>(in[n]) << p.shift;
      }
    }
  }
  return packed;
}

CodeMatrix unpack_weights(const PackedMatrix& packed) {
  require(packed.rows() > 0 && packed.cols() > 0 && packed.cols() % 128 == 0, "packed weights are (",
          packed.rows(), ", ", packed.cols(), "); expected (K/16, 2N) with N a multiple of 64");
  const int K = static_cast<int>(packed.rows()) * 16;
  const int N = static_cast<int>(packed.cols()) / 2;
  CodeMatrix codes(K, N);
  for (int k = 0; k < K; ++k) {
    for (int n = 0; n < N; ++n) {
      const NibblePosition p = packed_position(k, n);
      const auto word = static_cast<std::uint32_t>(packed(p.row, p.col));
      codes(k, n) = static_cast<std::uint8_t>((word >> (4 * p.nibble)) & 0xF);
    }
  }
  return codes;
}

int permuted_scale_column(int n, int group) {
  return is_per_column(group) ? scale_permutation::per_column_position(n) : scale_permutation::grouped_position(n);
}

HalfMatrix permute_scales(const HalfMatrix& scales, int group) {
  require(scales.cols() > 0 && scales.cols() % 64 == 0, "scales have N=", scales.cols(),
          " columns; expected a positive multiple of 64");
  HalfMatrix out(scales.rows(), scales.cols());
  for (int n = 0; n < scales.cols(); ++n) out.col(permuted_scale_column(n, group)) = scales.col(n);
  return out;
}

HalfMatrix unpermute_scales(const HalfMatrix& permuted, int group) {
  require(permuted.cols() > 0 && permuted.cols() % 64 == 0, "scales have N=", permuted.cols(),
          " columns; expected a positive multiple of 64");
  HalfMatrix out(permuted.rows(), permuted.cols());
  for (int n = 0; n < permuted.cols(); ++n) out.col(n) = permuted.col(permuted_scale_column(n, group));
  return out;
}

}  // namespace tc
