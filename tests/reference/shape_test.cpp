// Problem shapes (tilecheck/reference/shape.h): what no Marlin-format kernel can take is rejected
// naming the value, and the number of scale rows per group size.
#include "tilecheck/reference/shape.h"

#include <string>

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"

namespace tc {
namespace {

TEST(Shape, ValidateShapeNamesTheOffendingValue) {
  const auto message = [](Shape s) {
    try {
      validate_shape(s);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message({16, 128, 128, 128}), "accepted");
  EXPECT_NE(message({0, 128, 128, 128}).find("M=0"), std::string::npos);
  EXPECT_NE(message({-3, 128, 128, 128}).find("M=-3"), std::string::npos);
  EXPECT_NE(message({1, 0, 128, 128}).find("N=0"), std::string::npos);
  EXPECT_NE(message({1, 96, 128, 128}).find("N=96"), std::string::npos);
  EXPECT_NE(message({1, 128, 0, 128}).find("K=0"), std::string::npos);
  EXPECT_NE(message({1, 128, 120, -1}).find("K=120"), std::string::npos);
  EXPECT_NE(message({1, 128, 160, 128}).find("K=160"), std::string::npos);
  EXPECT_NE(message({1, 128, 128, 16}).find("group size 16"), std::string::npos);
}

TEST(Shape, ValidateGroupAcceptsTheSupportedSizesDividingK) {
  for (int group : {32, 64, 128, -1}) EXPECT_NO_THROW(validate_group(group, 256)) << group;
  EXPECT_THROW(validate_group(96, 384), Error);   // not a supported size, though it divides K
  EXPECT_THROW(validate_group(128, 192), Error);  // supported, but K is not a multiple
  EXPECT_NO_THROW(validate_group(-1, 16));        // per column: any K
}

TEST(Shape, ScaleRowsAreGroupsAlongKOrOnePerColumn) {
  EXPECT_EQ(scale_rows(1024, 128), 8);
  EXPECT_EQ(scale_rows(1024, 32), 32);
  EXPECT_EQ(scale_rows(1024, -1), 1);
  EXPECT_TRUE(is_per_column(kPerColumn));
  EXPECT_FALSE(is_per_column(32));
}

}  // namespace
}  // namespace tc
