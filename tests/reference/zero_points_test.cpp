// Packed zero points (reference/zero_points.h): a row worked by hand, the three steps of
// shared/research/formats.md ("Zero-point layout") carried out literally and compared, and round
// trips.
#include "tilecheck/reference/zero_points.h"

#include <array>

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"
#include "tilecheck/reference/rng.h"

namespace tc {
namespace {

CodeMatrix random_zero_points(int G, int N, std::uint64_t seed) {
  const CounterRng rng(seed, "zero_points");
  CodeMatrix z(G, N);
  for (Eigen::Index i = 0; i < z.size(); ++i) z.data()[i] = static_cast<std::uint8_t>(rng.integer(i, 0, 15));
  return z;
}

// N = 64, z[n] = n / 4. Step 1 sends column n to p = 8*(n%8) + n/8, so word w (= p/8) holds the
// columns with n%8 = w; step 2 puts position p%8 = n/8 in nibble 4*((n/8)%2) + (n/8)/2. Word 0:
// columns 0 16 32 48 8 24 40 56, zero points 0 4 8 12 2 6 10 14 in nibbles 0..7: 0xEA62C840.
// Word 1: columns 1 17 33 49 9 25 41 57, the same zero points.
TEST(ZeroPoints, ARowWorkedByHand) {
  CodeMatrix z(1, 64);
  for (int n = 0; n < 64; ++n) z(0, n) = static_cast<std::uint8_t>(n / 4);
  const PackedMatrix p = pack_zero_points(z);
  ASSERT_EQ(p.rows(), 1);
  ASSERT_EQ(p.cols(), 8);
  EXPECT_EQ(static_cast<std::uint32_t>(p(0, 0)), 0xEA62C840u);
  EXPECT_EQ(static_cast<std::uint32_t>(p(0, 1)), 0xEA62C840u);
  // Word 3 holds columns 3 19 35 51 11 27 43 59: z = 0 4 8 12 2 6 10 14 again (n/4 drops n%4 = 3).
  EXPECT_EQ(static_cast<std::uint32_t>(p(0, 3)), 0xEA62C840u);
  // Word 4 holds columns 4 20 36 52 12 28 44 60: z = 1 5 9 13 3 7 11 15.
  EXPECT_EQ(static_cast<std::uint32_t>(p(0, 4)), 0xFB73D951u);
}

// formats.md's steps, one by one: (2) permute the columns with the grouped scale_perm, an 8x8
// transpose in each 64-column chunk (new[8i + j] = old[i + 8j]); (3) interleave each 8 columns
// as [0,2,4,6,1,3,5,7]; (4) pack column i of each 8 into nibble i.
PackedMatrix pack_as_formats_md_says(const CodeMatrix& z) {
  const int G = static_cast<int>(z.rows()), N = static_cast<int>(z.cols());
  CodeMatrix permuted(G, N), interleaved(G, N);
  for (int g = 0; g < G; ++g)
    for (int c = 0; c < N; c += 64)
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) permuted(g, c + 8 * i + j) = z(g, c + i + 8 * j);
  constexpr std::array<int, 8> interleave = {0, 2, 4, 6, 1, 3, 5, 7};
  for (int g = 0; g < G; ++g)
    for (int c = 0; c < N; c += 8)
      for (int i = 0; i < 8; ++i) interleaved(g, c + i) = permuted(g, c + interleave[static_cast<size_t>(i)]);
  PackedMatrix packed = PackedMatrix::Zero(G, N / 8);
  for (int g = 0; g < G; ++g)
    for (int w = 0; w < N / 8; ++w) {
      std::uint32_t word = 0;
      for (int i = 0; i < 8; ++i) word |= static_cast<std::uint32_t>(interleaved(g, 8 * w + i)) << (4 * i);
      packed(g, w) = static_cast<std::int32_t>(word);
    }
  return packed;
}

TEST(ZeroPoints, PackingFollowsTheStepsOfVllmsLayout) {
  const CodeMatrix z = random_zero_points(3, 192, 5);
  EXPECT_EQ(pack_zero_points(z), pack_as_formats_md_says(z));
}

TEST(ZeroPoints, UnpackInvertsPack) {
  for (int G : {1, 4}) {
    const CodeMatrix z = random_zero_points(G, 256, static_cast<std::uint64_t>(G));
    EXPECT_EQ(unpack_zero_points(pack_zero_points(z)), z) << "G=" << G;
  }
}

TEST(ZeroPoints, OutOfRangeValuesAndShapesAreRefusedNamingThem) {
  CodeMatrix z = CodeMatrix::Zero(2, 64);
  z(1, 5) = 16;
  try {
    pack_zero_points(z);
    FAIL() << "packed a zero point of 16";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("zero point 16 at (1, 5)"), std::string::npos) << e.what();
  }
  try {
    pack_zero_points(CodeMatrix::Zero(1, 72));
    FAIL() << "packed N=72";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(1, 72)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tc
