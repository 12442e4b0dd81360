#include "tilecheck/reference/gemm.h"

#include <cmath>

#include <gtest/gtest.h>

#include "tilecheck/reference/bound.h"
#include "tilecheck/reference/error.h"
#include "common/test_inputs.h"

namespace tc {
namespace {

struct GemmCase { int M, N, K, group; };
void PrintTo(const GemmCase& c, std::ostream* out) { *out << "m" << c.M << "n" << c.N << "k" << c.K << "g" << c.group; }

class ExactVsEigen : public ::testing::TestWithParam<GemmCase> {};

// The Eigen float64 path may differ from the exact one by at most its own rounding error,
// gamma_K(2^-53) * S, and the expected outputs agree except where that error straddles a rounding
// boundary (then they are adjacent).
TEST_P(ExactVsEigen, AgreeWithinTheEigenPathsOwnError) {
  const auto c = GetParam();
  const HalfMatrix A = test_support::normal_half(c.M, c.K, 5, "A");
  const QuantizedWeights w = test_support::normal_weights(c.K, c.N, c.group, 6);
  for (Contract contract : {Contract::marlin, Contract::fp32}) {
    const ReferenceOutput exact = reference_gemm(A, w, contract, GemmPath::exact);
    const ReferenceOutput eigen = reference_gemm(A, w, contract, GemmPath::eigen);
    for (int i = 0; i < c.M; ++i) {
      for (int j = 0; j < c.N; ++j) {
        const double tolerance = gamma(c.K, 0x1p-53) * exact.S(i, j);
        ASSERT_LE(std::fabs(exact.y_exact(i, j) - eigen.y_exact(i, j)), tolerance) << i << "," << j;
        ASSERT_NEAR(exact.S(i, j), eigen.S(i, j), tolerance) << i << "," << j;
        ASSERT_LE(ulp_distance(exact.expected(i, j), eigen.expected(i, j)), 1u) << i << "," << j;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, ExactVsEigen,
                         ::testing::Values(GemmCase{1, 64, 128, 32}, GemmCase{17, 128, 256, 64},
                                           GemmCase{33, 64, 1024, 128}, GemmCase{5, 256, 512, -1}),
                         [](const auto& test_info) {
                           const auto& p = test_info.param;
                           return "m" + std::to_string(p.M) + "n" + std::to_string(p.N) + "k" +
                                  std::to_string(p.K) + (p.group < 0 ? std::string("gcol") : "g" + std::to_string(p.group));
                         });

// A sum double cannot hold: 2 * 65504 * 14336 (about 2^30.8) plus 2^-24 * 2^-24 = 2^-48 needs 79 bits.
TEST(ExactPath, KeepsEveryBitThatDoubleWouldLose) {
  const int K = 64, N = 64;
  HalfMatrix A = HalfMatrix::Zero(1, K);
  QuantizedWeights w;
  w.group = 32;
  w.codes = CodeMatrix::Constant(K, N, 8);  // w^ = 0 except the three codes below
  w.scales = HalfMatrix::Constant(2, N, round_to_half(2048.0));
  w.scales(1, 0) = 0x0001;                  // group 1 of column 0: scale 2^-24
  A(0, 0) = A(0, 1) = round_to_half(65504.0);
  w.codes(0, 0) = w.codes(1, 0) = 15;       // w^ = 7 * 2048 = 14336
  A(0, 40) = 0x0001;
  w.codes(40, 0) = 9;                       // w^ = 2^-24
  const ReferenceOutput r = reference_gemm(A, w, Contract::fp32, GemmPath::exact);
  const double big = 2 * 65504.0 * 14336.0;
  EXPECT_EQ(r.y_exact(0, 0), std::nextafter(big, INFINITY));  // round-to-odd keeps the sticky bit
  EXPECT_EQ(r.S(0, 0), r.y_exact(0, 0));
  EXPECT_EQ(r.expected(0, 0), kHalfPosInf);
  const ReferenceOutput e = reference_gemm(A, w, Contract::fp32, GemmPath::eigen);
  EXPECT_EQ(e.y_exact(0, 0), big);  // double alone loses the 2^-48
}

TEST(Specials, InfinityTimesZeroWeightIsNanAndInfinityPropagates) {
  const int K = 16, N = 64;
  HalfMatrix A = HalfMatrix::Constant(2, K, round_to_half(1.0));
  A(0, 3) = kHalfPosInf;
  QuantizedWeights w;
  w.codes = CodeMatrix::Constant(K, N, 9);
  w.codes(3, 0) = 8;  // zero weight under the Inf: NaN in column 0
  w.scales = HalfMatrix::Constant(1, N, round_to_half(1.0));
  w.group = -1;
  for (GemmPath path : {GemmPath::exact, GemmPath::eigen}) {
    const ReferenceOutput r = reference_gemm(A, w, Contract::fp32, path);
    EXPECT_TRUE(is_nan(r.expected(0, 0)));
    EXPECT_EQ(r.expected(0, 1), kHalfPosInf);
    EXPECT_EQ(half_to_double(r.expected(1, 0)), 15.0);  // 15 * 1 + 1 * 0
    EXPECT_EQ(half_to_double(r.expected(1, 1)), 16.0);
  }
}

TEST(ReferenceGemm, RejectsMismatchedInputs) {
  const QuantizedWeights w = test_support::normal_weights(128, 64, 32, 1);
  EXPECT_THROW(reference_gemm(HalfMatrix::Zero(4, 64), w, Contract::fp32, GemmPath::exact), Error);
  EXPECT_THROW(reference_gemm(HalfMatrix::Zero(0, 128), w, Contract::fp32, GemmPath::exact), Error);
  QuantizedWeights bad = w;
  bad.scales.resize(2, 64);
  EXPECT_THROW(reference_gemm(HalfMatrix::Zero(4, 128), bad, Contract::fp32, GemmPath::exact), Error);
}

}  // namespace
}  // namespace tc
