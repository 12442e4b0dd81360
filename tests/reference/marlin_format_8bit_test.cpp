// The 8-bit packed format (reference/marlin_format_8bit.h) checked three ways: round trips, one-hot
// codes landing in the word and byte the format defines (worked by hand from the header's text),
// and what each mma lane reads from its words: bytes {0, 2} and {1, 3} are its fragment's two
// half2 registers, rows (r, r+1) and (r+8, r+9) at column lane/4.
#include "tilecheck/reference/marlin_format_8bit.h"

#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"
#include "tilecheck/reference/rng.h"

namespace tc {
namespace {

CodeMatrix random_codes_8bit(int K, int N, std::uint64_t seed) {
  const CounterRng rng(seed, "codes8");
  CodeMatrix c(K, N);
  for (Eigen::Index i = 0; i < c.size(); ++i) c.data()[i] = static_cast<std::uint8_t>(rng.integer(i, 0, 255));
  return c;
}

int byte_at(const PackedMatrix& p, int row, int col, int byte) {
  return static_cast<int>((static_cast<std::uint32_t>(p(row, col)) >> (8 * byte)) & 0xFF);
}

TEST(Pack8Bit, UnpackInvertsPack) {
  for (const auto& [K, N] : {std::pair{16, 64}, std::pair{32, 128}, std::pair{48, 320}}) {
    const CodeMatrix codes = random_codes_8bit(K, N, static_cast<std::uint64_t>(K * 7 + N));
    const PackedMatrix packed = pack_weights_8bit(codes);
    ASSERT_EQ(packed.rows(), K / 16);
    ASSERT_EQ(packed.cols(), 4 * N);
    EXPECT_EQ(unpack_weights_8bit(packed), codes) << "K=" << K << " N=" << N;
  }
}

TEST(Pack8Bit, EveryCodeHasItsOwnByte) {
  std::set<std::pair<int, int>> used;
  for (int k = 0; k < 16; ++k)
    for (int n = 0; n < 64; ++n) {
      const BytePosition p = packed_position_8bit(k, n);
      EXPECT_EQ(p.row, 0);
      ASSERT_TRUE(p.col >= 0 && p.col < 256 && p.byte >= 0 && p.byte < 4) << k << "," << n;
      used.insert({p.col, p.byte});
    }
  EXPECT_EQ(used.size(), 1024u);
}

// (k, n) -> word, byte, read off the layout by hand: lane = 4*(n%8) + (k%8)/2, tile j = n/16,
// block b = (n%16)/8, word 8*lane + 2*j + b (+256 per 64-column chunk), byte 0 2 1 3 for rows
// r, r+1, r+8, r+9.
TEST(Pack8Bit, OneHotCodesLandWhereTheLayoutSays) {
  struct Case { int k, n, row, word, byte; };
  const Case cases[] = {
      {0, 0, 0, 0, 0},    {1, 0, 0, 0, 2},    {8, 0, 0, 0, 1},     {9, 0, 0, 0, 3},   // rows r, r+1, r+8, r+9
      {0, 8, 0, 1, 0},                                                                 // n8 block 1
      {0, 16, 0, 2, 0},   {0, 48, 0, 6, 0},                                            // tiles 1 and 3
      {2, 0, 0, 8, 0},    {7, 0, 0, 24, 2},                                            // lanes 1 and 3
      {0, 1, 0, 32, 0},   {15, 63, 0, 8 * 31 + 7, 3},                                  // column lane/4
      {0, 64, 0, 256, 0}, {16, 0, 1, 0, 0},                                            // next chunk, next slab
  };
  for (const Case& c : cases) {
    CodeMatrix codes = CodeMatrix::Zero(32, 128);
    codes(c.k, c.n) = 0xA5;
    const PackedMatrix p = pack_weights_8bit(codes);
    EXPECT_EQ(byte_at(p, c.row, c.word, c.byte), 0xA5) << "code (" << c.k << ", " << c.n << ")";
    int nonzero = 0;
    for (Eigen::Index i = 0; i < p.size(); ++i) nonzero += p.data()[i] != 0;
    EXPECT_EQ(nonzero, 1) << "code (" << c.k << ", " << c.n << ")";
    const BytePosition at = packed_position_8bit(c.k, c.n);
    EXPECT_EQ(at.row, c.row);
    EXPECT_EQ(at.col, c.word);
    EXPECT_EQ(at.byte, c.byte);
  }
}

TEST(Pack8Bit, EachLaneReadsItsFragmentsHalf2s) {
  const CodeMatrix codes = random_codes_8bit(32, 128, 11);
  const PackedMatrix p = pack_weights_8bit(codes);
  for (int kb = 0; kb < 2; ++kb)
    for (int chunk = 0; chunk < 2; ++chunk)
      for (int lane = 0; lane < 32; ++lane)
        for (int j = 0; j < 4; ++j)
          for (int b = 0; b < 2; ++b) {
            const int word = chunk * 256 + 8 * lane + 2 * j + b;
            const int r = 16 * kb + 2 * (lane % 4), n = 64 * chunk + 16 * j + 8 * b + lane / 4;
            EXPECT_EQ(byte_at(p, kb, word, 0), codes(r, n));
            EXPECT_EQ(byte_at(p, kb, word, 2), codes(r + 1, n));
            EXPECT_EQ(byte_at(p, kb, word, 1), codes(r + 8, n));
            EXPECT_EQ(byte_at(p, kb, word, 3), codes(r + 9, n));
          }
}

TEST(Pack8Bit, ShapesThatDoNotTileAreRefusedNamingThem) {
  try {
    pack_weights_8bit(CodeMatrix::Zero(24, 64));
    FAIL() << "packed K=24";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("K=24"), std::string::npos) << e.what();
  }
  try {
    pack_weights_8bit(CodeMatrix::Zero(16, 96));
    FAIL() << "packed N=96";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("N=96"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tc
