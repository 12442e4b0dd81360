// The reference GEMM for every format (reference/format_gemm.h):
//   - on fp16 / uint4b8 it equals tc::reference_gemm bit for bit (y*, S, expected; both contracts,
//     grouped and per column, specials included);
//   - each new format reduces to it where the formats coincide (uint4 with every zero point 8,
//     uint8b128 with codes 120..135, act-order with g_idx = k / group), and act-order is a pure
//     relabelling: permuting the K rows of A, the codes and g_idx together changes nothing;
//   - bf16 sums are exact where a 64-bit fixed-point oracle can check them, and its epilogues are
//     the definitions in bf16;
//   - bad weights are refused with a message naming the problem.
#include "tilecheck/reference/format_gemm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include <gtest/gtest.h>

#include "common/test_inputs.h"
#include "tilecheck/reference/bf16.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/rng.h"

namespace tc {
namespace {

// Bitwise, except that any NaN equals any NaN: a NaN's sign is the CPU's choice (x86 makes -NaN for
// Inf - Inf, tc::reference_gemm keeps it), the references promise only NaN.
bool same_bits_or_both_nan(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); }

::testing::AssertionResult FormatBitwiseEqual(const ReferenceOutput& got, const ReferenceOutput& want) {
  for (Eigen::Index i = 0; i < want.expected.rows(); ++i)
    for (Eigen::Index j = 0; j < want.expected.cols(); ++j)
      if (!same_bits_or_both_nan(got.y_exact(i, j), want.y_exact(i, j)) || !same_bits_or_both_nan(got.S(i, j), want.S(i, j)) ||
          got.expected(i, j) != want.expected(i, j))
        return ::testing::AssertionFailure() << "first difference at (" << i << ", " << j << "): y "
                                             << got.y_exact(i, j) << " vs " << want.y_exact(i, j) << ", S "
                                             << got.S(i, j) << " vs " << want.S(i, j) << ", expected "
                                             << got.expected(i, j) << " vs " << want.expected(i, j);
  return ::testing::AssertionSuccess();
}

FormatWeights from(const QuantizedWeights& q) {
  FormatWeights w;
  w.group = q.group;
  w.codes = q.codes;
  w.scales = q.scales;
  return w;
}

Epilogue epilogue_of(Contract c) { return contract_numerics(c).epilogue; }

TEST(FormatGemm, Fp16Uint4b8IsTheReferenceGemmBitForBit) {
  for (int group : {32, 128, kPerColumn}) {
    for (Contract contract : {Contract::marlin, Contract::fp32}) {
      HalfMatrix A = test_support::normal_half(9, 256, 100 + group, "A");
      A(1, 5) = kHalfPosInf;  // specials: Inf, NaN, a subnormal, -0
      A(2, 7) = kHalfCanonicalNan;
      A(3, 9) = 0x0003;
      A(4, 11) = 0x8000;
      QuantizedWeights q = test_support::normal_weights(256, 128, group, 7 + group);
      q.scales(0, 3) = 0x7BFF;  // 65504: grouped weights overflow to Inf
      q.scales(0, 4) = 0x0010;  // subnormal
      const ReferenceOutput want = reference_gemm(A, q, contract, GemmPath::scalar);
      EXPECT_TRUE(FormatBitwiseEqual(format_reference_gemm(A, from(q), epilogue_of(contract)), want))
          << "group " << group << ", " << name(contract);
    }
  }
}

TEST(FormatGemm, Uint4WithZeroPointEightIsUint4b8) {
  const HalfMatrix A = test_support::normal_half(5, 128, 1, "A");
  const QuantizedWeights q = test_support::normal_weights(128, 64, 64, 2);
  FormatWeights zp = from(q);
  zp.type = WeightType::uint4;
  zp.zero_points = CodeMatrix::Constant(q.scales.rows(), q.scales.cols(), 8);
  EXPECT_TRUE(FormatBitwiseEqual(format_reference_gemm(A, zp, Epilogue::scale_then_round),
                           format_reference_gemm(A, from(q), Epilogue::scale_then_round)));
  zp.zero_points(1, 3) = 7;  // one group of one column moves by one scale step
  const ReferenceOutput moved = format_reference_gemm(A, zp, Epilogue::scale_then_round);
  const ReferenceOutput base = format_reference_gemm(A, from(q), Epilogue::scale_then_round);
  for (int i = 0; i < 5; ++i) {
    double shift = 0;  // (q - 7) s - (q - 8) s = s on rows 64..127 of column 3
    for (int k = 64; k < 128; ++k) shift += half_to_double(A(i, k)) * half_to_double(q.scales(1, 3));
    EXPECT_NEAR(moved.y_exact(i, 3) - base.y_exact(i, 3), shift, 1e-9 * std::max(1.0, std::fabs(shift)));
    EXPECT_TRUE(same_bits_or_both_nan(moved.y_exact(i, 4), base.y_exact(i, 4)));
  }
}

TEST(FormatGemm, Uint8b128WithCodesNearTheBiasIsUint4b8) {
  const HalfMatrix A = test_support::normal_half(4, 128, 3, "A");
  for (int group : {64, kPerColumn}) {
    const QuantizedWeights q = test_support::normal_weights(128, 64, group, 4);
    FormatWeights eight = from(q);
    eight.type = WeightType::uint8b128;
    for (Eigen::Index i = 0; i < eight.codes.size(); ++i) eight.codes.data()[i] = q.codes.data()[i] + 120;
    EXPECT_TRUE(FormatBitwiseEqual(format_reference_gemm(A, eight, Epilogue::round_then_scale),
                             format_reference_gemm(A, from(q), Epilogue::round_then_scale)))
        << "group " << group;
  }
}

TEST(FormatGemm, ActOrderIsARelabellingOfTheRows) {
  const int K = 256, group = 64;
  const HalfMatrix A = test_support::normal_half(6, K, 5, "A");
  const QuantizedWeights q = test_support::normal_weights(K, 64, group, 6);
  FormatWeights plain = from(q), trivial = from(q);
  trivial.g_idx.resize(K);
  for (int k = 0; k < K; ++k) trivial.g_idx[k] = k / group;
  const ReferenceOutput base = format_reference_gemm(A, plain, Epilogue::scale_then_round);
  EXPECT_TRUE(FormatBitwiseEqual(format_reference_gemm(A, trivial, Epilogue::scale_then_round), base));
  // A random permutation of the K rows, applied to A's columns, the codes and g_idx together.
  std::vector<int> perm(K);
  std::iota(perm.begin(), perm.end(), 0);
  const CounterRng rng(9, "perm");
  for (int k = K - 1; k > 0; --k) std::swap(perm[k], perm[rng.integer(k, 0, k)]);
  HalfMatrix A2(A.rows(), K);
  FormatWeights shuffled = trivial;
  for (int k = 0; k < K; ++k) {
    A2.col(k) = A.col(perm[k]);
    shuffled.codes.row(k) = q.codes.row(perm[k]);
    shuffled.g_idx[k] = trivial.g_idx[perm[k]];
  }
  EXPECT_TRUE(FormatBitwiseEqual(format_reference_gemm(A2, shuffled, Epilogue::scale_then_round), base));
}

// bf16 with exponents in a window a 64-bit fixed point covers: y* exact (the oracle sums the
// products as integers), expected = the definitions of the two epilogues in bf16.
TEST(FormatGemm, Bf16SumsAreExactAndItsEpiloguesAreTheDefinitions) {
  const int M = 4, K = 128, N = 64;
  const CounterRng rng(21, "bf16");
  HalfMatrix A(M, K);
  for (Eigen::Index i = 0; i < A.size(); ++i)  // +-(128..255) * 2^e, e in -17..-5: sums below 2^12
    A.data()[i] = round_to_bf16((rng.integer(2 * i, 0, 1) ? -1 : 1) *
                                std::ldexp(static_cast<double>(rng.integer(i, 128, 255)), static_cast<int>(rng.integer(3 * i, -17, -5))));
  for (int group : {32, kPerColumn}) {
    FormatWeights w;
    w.dtype = Dtype::bf16;
    w.type = WeightType::uint4b8;
    w.group = group;
    w.codes = CodeMatrix(K, N);
    for (Eigen::Index i = 0; i < w.codes.size(); ++i) w.codes.data()[i] = static_cast<std::uint8_t>(rng.integer(5 * i, 0, 15));
    w.scales = HalfMatrix(scale_rows(K, group), N);
    for (Eigen::Index i = 0; i < w.scales.size(); ++i)
      w.scales.data()[i] = round_to_bf16(std::ldexp(static_cast<double>(rng.integer(7 * i, 128, 255)), -9));
    for (Epilogue epilogue : {Epilogue::round_then_scale, Epilogue::scale_then_round}) {
      const ReferenceOutput r = format_reference_gemm(A, w, epilogue);
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          std::int64_t units = 0;  // every product is an integer number of 2^-40, the sum below 2^53
          for (int k = 0; k < K; ++k)
            units += static_cast<std::int64_t>(std::ldexp(bf16_to_double(A(i, k)) * dequantized_weight(w, k, j), 40));
          ASSERT_LT(std::llabs(units), std::int64_t{1} << 53) << "the oracle's sum must be exact in double";
          const double y = std::ldexp(static_cast<double>(units), -40);
          ASSERT_EQ(r.y_exact(i, j), y) << i << ", " << j;
          const double s = bf16_to_double(w.scales(0, j));
          std::uint16_t e = round_to_bf16(y);
          if (is_per_column(group))
            e = epilogue == Epilogue::round_then_scale ? round_to_bf16(bf16_to_double(round_to_bf16(y)) * s)
                                                       : round_to_bf16(static_cast<float>(y * s));
          ASSERT_EQ(r.expected(i, j), e) << i << ", " << j << " group " << group;
        }
    }
  }
}

TEST(FormatGemm, BadWeightsAreNamed) {
  const HalfMatrix A = test_support::normal_half(2, 64, 1, "A");
  FormatWeights w = from(test_support::normal_weights(64, 64, 32, 1));
  const auto message = [&](const FormatWeights& bad) -> std::string {
    try {
      format_reference_gemm(A, bad, Epilogue::scale_then_round);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  FormatWeights zp = w;
  zp.type = WeightType::uint4;
  EXPECT_EQ(message(zp), "zero points are (0, 0), expected (2, 64)");
  zp.zero_points = CodeMatrix::Constant(2, 64, 16);
  EXPECT_EQ(message(zp), "zero point 16 at (0, 0) is outside 0..15");
  FormatWeights big = w;
  big.codes(3, 1) = 16;
  EXPECT_EQ(message(big), "code 16 at (3, 1) is outside uint4b8's range 0..15");
  FormatWeights act = w;
  act.g_idx = std::vector<int>(64, 0);
  act.g_idx[10] = 2;
  EXPECT_EQ(message(act), "g_idx[10] = 2 is outside 0..1");
  act.g_idx.resize(3);
  EXPECT_EQ(message(act), "g_idx has 3 entries, expected K=64");
  FormatWeights extra = w;
  extra.zero_points = CodeMatrix::Constant(2, 64, 8);
  EXPECT_EQ(message(extra), "uint4b8 has no zero points, but 128 were given");
}

}  // namespace
}  // namespace tc
