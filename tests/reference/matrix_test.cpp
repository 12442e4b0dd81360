// The fp16 <-> double matrix conversions (tilecheck/reference/matrix.h): to_double decodes every
// binary16 value exactly, on both sides of its threshold for running in parallel, and to_half
// rounds each element as round_to_half does.
#include "tilecheck/reference/matrix.h"

#include <cmath>

#include <gtest/gtest.h>

namespace tc {
namespace {

bool same_double(double a, double b) {
  return std::isnan(a) ? std::isnan(b) : a == b && std::signbit(a) == std::signbit(b);
}

// 256 x 256 holds every bit pattern once: large enough for the parallel loop.
TEST(Matrix, ToDoubleDecodesEveryHalfValue) {
  HalfMatrix all(256, 256);
  for (int i = 0; i < 65536; ++i) all.data()[i] = static_cast<half_bits>(i);
  const F64Matrix d = to_double(all);
  ASSERT_EQ(d.rows(), 256);
  ASSERT_EQ(d.cols(), 256);
  for (int i = 0; i < 65536; ++i)
    ASSERT_TRUE(same_double(d.data()[i], half_to_double(static_cast<half_bits>(i)))) << "bits 0x" << std::hex << i;
}

// A small matrix (the serial loop), row-major: element (r, c) stays at (r, c).
TEST(Matrix, ToDoubleKeepsTheShapeAndTheLayout) {
  HalfMatrix h(2, 3);
  h << round_to_half(1.0), round_to_half(-2.5), kHalfPosInf, 0x8000, 0x0001, round_to_half(65504.0);
  const F64Matrix d = to_double(h);
  ASSERT_EQ(d.rows(), 2);
  ASSERT_EQ(d.cols(), 3);
  EXPECT_EQ(d(0, 0), 1.0);
  EXPECT_EQ(d(0, 1), -2.5);
  EXPECT_EQ(d(0, 2), INFINITY);
  EXPECT_TRUE(d(1, 0) == 0.0 && std::signbit(d(1, 0)));
  EXPECT_EQ(d(1, 1), 0x1p-24);
  EXPECT_EQ(d(1, 2), 65504.0);
  EXPECT_EQ(to_double(HalfMatrix(0, 4)).cols(), 4);
}

TEST(Matrix, ToHalfRoundsEachElementAndInvertsToDouble) {
  F64Matrix x(2, 4);
  x << 1.0 + 0x1p-11, 1.0 + 0x1p-11 + 0x1p-30, 65519.0, 65520.0, -0x1p-25, NAN, 1e-30, -3.0;
  const HalfMatrix h = to_half(x);
  for (int r = 0; r < x.rows(); ++r)
    for (int c = 0; c < x.cols(); ++c) EXPECT_EQ(h(r, c), round_to_half(x(r, c))) << r << ", " << c;
  EXPECT_EQ(h(0, 0), round_to_half(1.0));  // a tie rounds to even
  EXPECT_EQ(h(0, 3), kHalfPosInf);
  HalfMatrix finite(1, 3);
  finite << round_to_half(0.1), 0x83FF, round_to_half(-65504.0);
  EXPECT_EQ(to_half(to_double(finite)), finite);
}

}  // namespace
}  // namespace tc
