// Which launches run the shallow instance (tilecheck/kernel/pipeline_depth.h): those of the
// 128 x 128 tile with one m-block whose blocks each sum at most kShortSliceIters k-tiles.
#include "tilecheck/kernel/pipeline_depth.h"

#include <gtest/gtest.h>

#include "tilecheck/kernel/configs.h"

namespace tc {
namespace {

constexpr int kH200Blocks = 132;

TEST(PipelineDepth, OnlyTheSquareTileWithOneMBlockHasAShortSliceInstance) {
  int with = 0;
  for (const TileConfig& c : kLibraryConfigs) {
    const bool expected = c.m_blocks == 1 && c.n_blocks == 8 && c.k_blocks == 8;
    EXPECT_EQ(has_short_slice_instance(c), expected) << name(c);
    with += has_short_slice_instance(c);
  }
  EXPECT_EQ(with, 4);  // per column and groups of 32, 64, 128
  EXPECT_LT(kShortSliceStages, kMaxStages);
}

// 4096², M <= 16: 32 x 32 tiles over 132 blocks, 8 a block: the shallow instance. 8192²: 32 a block.
TEST(PipelineDepth, TheSmallLayerAtMUpTo16RunsShortSlicesTheLargerOneDoesNot) {
  EXPECT_TRUE(runs_short_slices(parse_config("m1n8k8gcol"), 4096, 4096, 1, kH200Blocks));
  EXPECT_TRUE(runs_short_slices(parse_config("m1n8k8g8"), 4096, 4096, 1, kH200Blocks));
  EXPECT_FALSE(runs_short_slices(parse_config("m1n8k8gcol"), 8192, 8192, 1, kH200Blocks));
  EXPECT_FALSE(runs_short_slices(parse_config("m2n8k8gcol"), 4096, 4096, 1, kH200Blocks));  // no instance
  EXPECT_FALSE(runs_short_slices(parse_config("m1n16k4gcol"), 4096, 4096, 1, kH200Blocks));
}

// The boundary: a launch is short when ceil(k_tiles * columns / grid) <= kShortSliceIters; batched
// chunks (par) multiply the columns, a smaller grid lengthens every stripe.
TEST(PipelineDepth, TheBoundaryFollowsTheStripeLength) {
  const TileConfig c = parse_config("m1n8k8g4");
  // K = 1024: 8 k-tiles; N = 256: 2 columns; 16 tiles.
  EXPECT_TRUE(runs_short_slices(c, 256, 1024, 1, 2));    // 8 a block
  EXPECT_FALSE(runs_short_slices(c, 256, 1024, 1, 1));   // 16
  EXPECT_FALSE(runs_short_slices(c, 256, 1024, 2, 3));   // 32 tiles over 3: 11
  EXPECT_TRUE(runs_short_slices(c, 256, 1024, 2, 4));    // 8
  EXPECT_TRUE(runs_short_slices(c, 128, 128, 1, 1));     // one k-tile
}

}  // namespace
}  // namespace tc
