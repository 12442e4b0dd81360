#include "tilecheck/reference/quantize.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "common/test_inputs.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

class QuantizeGroups : public ::testing::TestWithParam<int> {};

TEST_P(QuantizeGroups, ScalesAreMaxOverSevenAndAHalfAndCodesRoundToNearest) {
  const int group = GetParam(), K = 256, N = 64;
  const CounterRng rng(3, "W");
  F64Matrix W(K, N);
  for (Eigen::Index i = 0; i < W.size(); ++i) W.data()[i] = std::ldexp(double(rng.normal_units(i)), -32);
  const QuantizedWeights q = quantize(W, group);
  ASSERT_EQ(q.scales.rows(), scale_rows(K, group));
  const int rows = group < 0 ? K : group;
  for (int n = 0; n < N; ++n) {
    for (int g = 0; g < q.scales.rows(); ++g) {
      double max_abs = 0;
      for (int k = g * rows; k < (g + 1) * rows; ++k) max_abs = std::max(max_abs, std::fabs(W(k, n)));
      ASSERT_EQ(q.scales(g, n), round_to_half(max_abs * 2 / 15)) << "group " << g << " column " << n;
      const double s = half_to_double(q.scales(g, n));
      for (int k = g * rows; k < (g + 1) * rows; ++k) {
        const double w_hat = (q.codes(k, n) - kZeroPoint) * s;
        // Inside the code range the error is at most half a step; outside it clamps to -8 or +7.
        const double clamped = std::clamp(W(k, n), -8 * s, 7 * s);
        ASSERT_LE(std::fabs(w_hat - clamped), s / 2 * (1 + 1e-12)) << "(" << k << ", " << n << ")";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Groups, QuantizeGroups, ::testing::Values(32, 64, 128, -1),
                         [](const auto& test_info) {
                           return test_info.param < 0 ? std::string("col") : "g" + std::to_string(test_info.param);
                         });

TEST(Quantize, AllZeroGroupGetsScaleOneAndCodeEight) {
  const QuantizedWeights q = quantize(F64Matrix::Zero(64, 64), 32);
  EXPECT_TRUE((q.scales.array() == round_to_half(1.0)).all());
  EXPECT_TRUE((q.codes.array() == 8).all());
}

TEST(Quantize, RejectsBadGroupsAndShapesNamingTheValue) {
  const F64Matrix W = F64Matrix::Zero(96, 64);
  EXPECT_THROW(
      {
        try {
          quantize(W, 48);
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("48"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
  EXPECT_THROW(
      {
        try {
          quantize(W, 64);  // K=96 is not a multiple of 64
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("K=96"), std::string::npos) << e.what();
          throw;
        }
      },
      Error);
  EXPECT_THROW(quantize(F64Matrix(0, 64), 32), Error);
}

TEST(Quantize, ValidateWeightsRejectsMismatchedScalesAndOutOfRangeCodes) {
  QuantizedWeights q = test_support::normal_weights(128, 64, 32, 1);
  EXPECT_NO_THROW(validate_weights(q));
  QuantizedWeights wrong_rows = q;
  wrong_rows.scales.resize(3, 64);
  EXPECT_THROW(validate_weights(wrong_rows), Error);
  QuantizedWeights wrong_cols = q;
  wrong_cols.scales.resize(4, 128);
  EXPECT_THROW(validate_weights(wrong_cols), Error);
  QuantizedWeights bad_code = q;
  bad_code.codes(5, 7) = 16;
  try {
    validate_weights(bad_code);
    FAIL() << "code 16 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(5, 7)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tc
