// The kernel's zero-point lookup (tilecheck/kernel/zero_point_lanes.h, what kernel/src/zero_points.cuh
// and the uint4 instances' dequantization use), host only, against the reference: every column's
// zero point, packed by tc::pack_zero_points as the ABI hands them, is found where the lane that
// holds the column's codes (tc::packed_position, the B layout) looks for it, for both tile widths.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "tilecheck/core/matrix.h"
#include "tilecheck/kernel/zero_point_lanes.h"
#include "tilecheck/reference/marlin_format.h"
#include "tilecheck/reference/zero_points.h"

namespace tc {
namespace {

// (G, N) zero points, every value 0..15 in every row, no two neighbours alike in a row or a column.
CodeMatrix zero_points(int G, int N) {
  CodeMatrix z(G, N);
  for (int g = 0; g < G; ++g)
    for (int n = 0; n < N; ++n) z(g, n) = static_cast<std::uint8_t>((5 * n + n / 16 + 3 * g) % 16);
  return z;
}

// Which lane, n16 tile and n8 block of which warp column and tile hold column n's codes: read off
// the packed B word of code (0, n), as the kernel loads it (a 64-column chunk is 128 words, word
// 4 * lane + tile; row 0 of a slab is nibble 0 in block 0, nibble 2 in block 1).
struct Holder {
  int n_tile, warp_col, lane, tile, block;
};
Holder holder_of(int n, int n_blocks) {
  const NibblePosition p = packed_position(0, n);
  EXPECT_TRUE(p.nibble == 0 || p.nibble == 2) << "column " << n << ": nibble " << p.nibble;
  const int chunk = p.col / 128, word = p.col % 128, warp_cols = n_blocks / 4;
  return {chunk / warp_cols, chunk % warp_cols, word / 4, word % 4, p.nibble / 2};
}

class ZeroPointLanes : public ::testing::TestWithParam<int> {};  // n_blocks

TEST_P(ZeroPointLanes, EveryColumnsZeroPointIsWhereItsLaneLooks) {
  const int n_blocks = GetParam(), G = 3, N = 512;
  const CodeMatrix z = zero_points(G, N);
  const PackedMatrix packed = pack_zero_points(z);
  const int tile_words = 2 * n_blocks;  // a tile's 16 * n_blocks columns at 4 bits
  std::set<int> seen;
  for (int g = 0; g < G; ++g)
    for (int n = 0; n < N; ++n) {
      const Holder h = holder_of(n, n_blocks);
      ASSERT_EQ(h.n_tile * 16 * n_blocks + 64 * h.warp_col + 16 * h.tile + 8 * h.block + h.lane / 4, n)
          << "the B layout places column " << n << " elsewhere than the kernel's warp tiling";
      const auto word =
          static_cast<std::uint32_t>(packed(g, h.n_tile * tile_words + zero_point_lanes::word(h.warp_col, h.lane)));
      const int found = static_cast<int>((word >> (zero_point_lanes::shift(h.tile) + 16 * h.block)) & 0xF);
      EXPECT_EQ(found, z(g, n)) << "group " << g << ", column " << n << ": lane " << h.lane << " of warp column "
                                << h.warp_col << ", tile " << h.tile << ", block " << h.block;
      seen.insert(found);
    }
  EXPECT_EQ(seen.size(), 16u) << "the check must see every zero point 0..15";
}

// The check itself can fail: the lookup of a kernel that paired a tile's blocks the other way round
// (bits 16-19 for block 0) misses most columns.
TEST(ZeroPointLanesCheck, ASwappedBlockPairIsCaught) {
  const CodeMatrix z = zero_points(1, 128);
  const PackedMatrix packed = pack_zero_points(z);
  int wrong = 0;
  for (int n = 0; n < 128; ++n) {
    const Holder h = holder_of(n, 8);
    const auto word = static_cast<std::uint32_t>(packed(0, h.n_tile * 16 + zero_point_lanes::word(h.warp_col, h.lane)));
    wrong += static_cast<int>((word >> (zero_point_lanes::shift(h.tile) + 16 * (1 - h.block))) & 0xF) != z(0, n);
  }
  EXPECT_EQ(wrong, 128);
}

INSTANTIATE_TEST_SUITE_P(Tiles, ZeroPointLanes, ::testing::Values(8, 16),
                         [](const auto& test_info) { return "n" + std::to_string(test_info.param); });

}  // namespace
}  // namespace tc
