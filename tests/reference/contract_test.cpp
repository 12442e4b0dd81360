// The numerics contracts (tilecheck/reference/contract.h): the dequantized weight the MMA sees, the
// epilogue of each contract, and the contracts' names.
#include "tilecheck/reference/contract.h"

#include <array>

#include <gtest/gtest.h>

#include "common/test_inputs.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

TEST(Contracts, PerColumnMarlinRoundsTwiceAndFp32Once) {
  // acc = 2049 (not an fp16 value: RN16 gives 2048), s = 1.5: marlin 2048*1.5 = 3072; fp32 gives
  // RN16(3073.5) = 3074.
  const half_bits s = round_to_half(1.5);
  EXPECT_EQ(half_to_double(epilogue(2049, 2049 * 1.5, s, -1, Contract::marlin)), 3072.0);
  EXPECT_EQ(half_to_double(epilogue(2049, 2049 * 1.5, s, -1, Contract::fp32)), 3074.0);
  EXPECT_EQ(half_to_double(epilogue(2049, 0, s, 128, Contract::fp32)), 2048.0);
  // marlin overflows on the unscaled sum even when the scaled result is small.
  EXPECT_EQ(epilogue(70000, 70000 * 0.001, round_to_half(0.001), -1, Contract::marlin), kHalfPosInf);
  EXPECT_LT(half_to_double(epilogue(70000, 70000 * 0.001, round_to_half(0.001), -1, Contract::fp32)), 71.0);
}

TEST(Dequantize, WeightRoundsTheProductForGroupsOnly) {
  const half_bits s = round_to_half(0.1);  // (q - 8) * s is not exact in fp16
  EXPECT_EQ(dequantized_weight(15, s, 128), round_to_half(7 * half_to_double(s)));
  EXPECT_NE(half_to_double(dequantized_weight(15, s, 128)), 7 * half_to_double(s));
  EXPECT_EQ(dequantized_weight(15, s, -1), round_to_half(7.0));  // per-column: scale comes later
  EXPECT_EQ(dequantized_weight(0, s, -1), round_to_half(-8.0));
}

// The block form (the bounds dequantize tile by tile) is the whole matrix's block, wherever the
// block starts relative to the scale groups; a block outside the weights is rejected.
TEST(Dequantize, BlockIsTheBlockOfTheWholeMatrix) {
  for (int group : {32, 64, 128, -1}) {
    const QuantizedWeights w = test_support::normal_weights(256, 128, group, 5);
    const HalfMatrix whole = dequantize(w);
    for (auto [k0, n0, rows, cols] : {std::array{0, 0, 256, 128}, std::array{16, 8, 100, 64}, std::array{250, 120, 6, 8},
                                      std::array{64, 0, 64, 128}, std::array{7, 3, 0, 0}})
      EXPECT_EQ(dequantize(w, k0, n0, rows, cols), whole.block(k0, n0, rows, cols))
          << "group " << group << " block (" << rows << ", " << cols << ") at (" << k0 << ", " << n0 << ")";
  }
  const QuantizedWeights w = test_support::normal_weights(64, 64, 32, 5);
  EXPECT_THROW(dequantize(w, 32, 0, 48, 64), Error);
  EXPECT_THROW(dequantize(w, 0, -1, 16, 16), Error);
}

TEST(Contracts, NamesRoundTripAndUnknownNamesAreRejectedNamingThem) {
  for (Contract c : {Contract::marlin, Contract::fp32}) EXPECT_EQ(parse_contract(name(c)), c) << name(c);
  EXPECT_EQ(parse_contract("marlin"), Contract::marlin);
  try {
    parse_contract("bf16");
    FAIL() << "bf16 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tc
