// The packed format checked three ways: round trips, one-hot codes landing in the word and nibble
// the format defines, and an emulation of what each mma lane decodes from its 16-byte load.
#include "tilecheck/reference/marlin_format.h"

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"
#include "tilecheck/reference/rng.h"
#include "tilecheck/reference/shape.h"

namespace tc {
namespace {

CodeMatrix random_codes(int K, int N, std::uint64_t seed) {
  const CounterRng rng(seed, "codes");
  CodeMatrix c(K, N);
  for (Eigen::Index i = 0; i < c.size(); ++i) c.data()[i] = static_cast<std::uint8_t>(rng.integer(i, 0, 15));
  return c;
}

HalfMatrix random_scales(int G, int N, std::uint64_t seed) {
  const CounterRng rng(seed, "scales");
  HalfMatrix s(G, N);
  for (Eigen::Index i = 0; i < s.size(); ++i) s.data()[i] = static_cast<half_bits>(rng.integer(i, 0, 0xFFFF));
  return s;
}

struct PackCase { int K, N; };
void PrintTo(const PackCase& c, std::ostream* out) { *out << "K" << c.K << "N" << c.N; }

class PackRoundTrip : public ::testing::TestWithParam<PackCase> {};

TEST_P(PackRoundTrip, UnpackInvertsPack) {
  const auto [K, N] = GetParam();
  const CodeMatrix codes = random_codes(K, N, K * 7 + N);
  const PackedMatrix packed = pack_weights(codes);
  ASSERT_EQ(packed.rows(), K / 16);
  ASSERT_EQ(packed.cols(), 2 * N);
  EXPECT_EQ(unpack_weights(packed), codes);
}

TEST_P(PackRoundTrip, ScalePermutationsAreInvertibleForEveryGroup) {
  const auto [K, N] = GetParam();
  for (int group : {32, 64, 128, -1}) {
    if (group > 0 && K % group != 0) continue;
    const HalfMatrix s = random_scales(scale_rows(K, group), N, K + N + group);
    const HalfMatrix p = permute_scales(s, group);
    EXPECT_EQ(unpermute_scales(p, group), s) << "group " << group;
    if (N >= 64) {
      EXPECT_NE(p, s) << "group " << group << ": the permutation moved nothing";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, PackRoundTrip,
                         ::testing::Values(PackCase{16, 64}, PackCase{64, 128}, PackCase{128, 192},
                                           PackCase{256, 256}, PackCase{704, 512}, PackCase{128, 4096}),
                         [](const auto& test_info) {
                           return "K" + std::to_string(test_info.param.K) + "N" + std::to_string(test_info.param.N);
                         });

// A single non-zero code must land in exactly one nibble of the whole packed matrix: the one
// packed_position() names, with the values the format's definition gives.
TEST(PackOneHot, EachCodeLandsInExactlyItsWordAndNibble) {
  const int K = 32, N = 128;
  for (int k = 0; k < K; ++k) {
    for (int n = 0; n < N; ++n) {
      CodeMatrix codes = CodeMatrix::Zero(K, N);
      codes(k, n) = 0xB;
      const PackedMatrix packed = pack_weights(codes);
      const NibblePosition p = packed_position(k, n);
      int nonzero = 0;
      for (Eigen::Index i = 0; i < packed.size(); ++i) nonzero += packed.data()[i] != 0;
      ASSERT_EQ(nonzero, 1) << "(" << k << ", " << n << ")";
      ASSERT_EQ(static_cast<std::uint32_t>(packed(p.row, p.col)), 0xBu << (4 * p.nibble))
          << "(" << k << ", " << n << ")";
    }
  }
}

TEST(PackOneHot, PositionsMatchTheFormatDefinition) {
  // lane = 4 * (n % 8) + (k % 8) / 2; word = 128 * chunk + 4 * lane + tile-in-chunk;
  // nibbles: 0 b0:r, 1 b0:r+8, 2 b1:r, 3 b1:r+8, 4 b0:r+1, 5 b0:r+9, 6 b1:r+1, 7 b1:r+9.
  const struct { int k, n, row, col, nibble; } cases[] = {
      {0, 0, 0, 0, 0},    {1, 0, 0, 0, 4},     {8, 0, 0, 0, 1},  {9, 0, 0, 0, 5},
      {0, 8, 0, 0, 2},    {1, 8, 0, 0, 6},     {8, 8, 0, 0, 3},  {9, 15, 0, 112, 7},
      {2, 0, 0, 4, 0},    {7, 0, 0, 12, 4},    {0, 1, 0, 16, 0}, {0, 16, 0, 1, 0},
      {0, 48, 0, 3, 0},   {0, 64, 0, 128, 0},  {16, 0, 1, 0, 0}, {31, 127, 1, 128 + 124 + 3, 7},
  };
  for (const auto& c : cases) {
    const NibblePosition p = packed_position(c.k, c.n);
    EXPECT_EQ(p.row, c.row) << "(" << c.k << ", " << c.n << ")";
    EXPECT_EQ(p.col, c.col) << "(" << c.k << ", " << c.n << ")";
    EXPECT_EQ(p.nibble, c.nibble) << "(" << c.k << ", " << c.n << ")";
  }
}

// What the kernel does: lane `lane` loads the 16-byte vector (chunk * 32 + lane) of a packed row and
// decodes, for tile j of the chunk, block 0 from (w & 0x000f000f) / (w & 0x00f000f0) and block 1
// from w >> 8. Those must be the m16n8k16 B fragment: B[r][n], B[r+1][n], B[r+8][n], B[r+9][n] with
// r = 2 * (lane % 4), n = lane / 4 within each n8 block.
TEST(PackFragments, EveryLaneDecodesItsMmaFragment) {
  const int K = 64, N = 256;
  const CodeMatrix codes = random_codes(K, N, 11);
  const PackedMatrix packed = pack_weights(codes);
  for (int kb = 0; kb < K / 16; ++kb) {
    for (int chunk = 0; chunk < N / 64; ++chunk) {
      for (int lane = 0; lane < 32; ++lane) {
        for (int j = 0; j < 4; ++j) {
          const auto w = static_cast<std::uint32_t>(packed(kb, chunk * 128 + 4 * lane + j));
          for (int block = 0; block < 2; ++block) {
            const std::uint32_t v = block == 0 ? w : w >> 8;
            const int r = 16 * kb + 2 * (lane % 4), n = 64 * chunk + 16 * j + 8 * block + lane / 4;
            ASSERT_EQ(v & 0xF, codes(r, n));
            ASSERT_EQ((v >> 16) & 0xF, codes(r + 1, n));
            ASSERT_EQ((v >> 4) & 0xF, codes(r + 8, n));
            ASSERT_EQ((v >> 20) & 0xF, codes(r + 9, n));
          }
        }
      }
    }
  }
}

// Grouped: lane reads 8 scales at 8 * (lane / 4) of each 64-column chunk: columns lane/4 + 8j.
// Per-column: lane reads 8 scales at 8 * (lane % 4) and 8 more 32 later: the accumulator columns
// 8b + 2 * (lane % 4) + {0, 1} of n8 blocks b = 0..3 (and 4..7).
TEST(ScalePermutation, LanesReadTheScalesOfTheirColumns) {
  const int N = 128;
  HalfMatrix s(1, N);
  for (int n = 0; n < N; ++n) s(0, n) = static_cast<half_bits>(n);
  const HalfMatrix grouped = permute_scales(s, 128), per_column = permute_scales(s, -1);
  for (int chunk = 0; chunk < N / 64; ++chunk) {
    for (int lane = 0; lane < 32; ++lane) {
      for (int j = 0; j < 8; ++j)
        ASSERT_EQ(grouped(0, 64 * chunk + 8 * (lane / 4) + j), 64 * chunk + lane / 4 + 8 * j);
      for (int half = 0; half < 2; ++half)
        for (int m = 0; m < 8; ++m)
          ASSERT_EQ(per_column(0, 64 * chunk + 32 * half + 8 * (lane % 4) + m),
                    64 * chunk + 32 * half + 8 * (m / 2) + 2 * (lane % 4) + m % 2);
    }
  }
}

TEST(Pack, RejectsShapesOutsideTheFormat) {
  EXPECT_THROW(pack_weights(CodeMatrix::Zero(24, 64)), Error);   // K not a multiple of 16
  EXPECT_THROW(pack_weights(CodeMatrix::Zero(32, 96)), Error);   // N not a multiple of 64
  EXPECT_THROW(pack_weights(CodeMatrix::Zero(0, 64)), Error);
  CodeMatrix bad = CodeMatrix::Zero(16, 64);
  bad(3, 4) = 200;
  EXPECT_THROW(pack_weights(bad), Error);
  EXPECT_THROW(unpack_weights(PackedMatrix::Zero(2, 100)), Error);
  EXPECT_THROW(permute_scales(HalfMatrix::Zero(1, 32), 128), Error);
}

}  // namespace
}  // namespace tc
