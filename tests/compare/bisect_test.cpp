// K-bisection on synthetic dumps: a correct dump departs nowhere; an error planted after one
// k-tile, or in one reduction step, is found exactly there.
#include "tilecheck/compare/bisect.h"

#include <gtest/gtest.h>

#include "tilecheck/reference/rng.h"

namespace tc {
namespace {

Expectation three_slice_case(Contract contract) {
  const int M = 16, N = 128, K = 1024;
  const CounterRng ra(5, "A"), rw(5, "W");
  HalfMatrix A(M, K);
  for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = round_to_half(std::ldexp(double(ra.normal_units(i)), -32));
  F64Matrix W(K, N);
  for (Eigen::Index i = 0; i < W.size(); ++i) W.data()[i] = std::ldexp(double(rw.normal_units(i)), -32);
  const QuantizedWeights w = quantize(W, 128);
  // 8 k-tiles of 128 over 3 blocks: slices [6,8) block 2, [3,6) block 1, [0,3) block 0 (last).
  return make_expectation(A, w, contract, make_schedule({M, N, K, 128}, {1, 8, 8, 8}, 3));
}

// What a correct kernel would record: every block's exact running sum, every step's exact sum.
AccumulatorDump exact_dump(const Expectation& e, const TileInfo& t) {
  const F64Matrix a = to_double(e.A), w = to_double(dequantize(e.w));
  const int tile_k = e.schedule.config.tile_k(), K = e.shape().K;
  AccumulatorDump d;
  d.after_k_tile.resize(K / tile_k);
  for (const Slice& s : t.slices) {
    F64Matrix sum = F64Matrix::Zero(t.rows, t.cols);
    for (int kt = s.k_tile_begin; kt < s.k_tile_end; ++kt) {
      sum += a.block(t.row0, kt * tile_k, t.rows, tile_k) * w.block(kt * tile_k, t.col0, tile_k, t.cols);
      d.after_k_tile[kt] = sum;
    }
  }
  for (const Slice& s : t.slices) {
    const int k0 = s.k_tile_begin * tile_k;
    d.after_step.push_back(a.block(t.row0, k0, t.rows, K - k0) * w.block(k0, t.col0, K - k0, t.cols));
  }
  return d;
}

TEST(Bisect, ACorrectDumpDepartsNowhereAndBlamesTheEpilogueIfTheOutputFailed) {
  const Expectation e = three_slice_case(Contract::fp32);
  const TileInfo& t = e.grid.tiles[0];
  ASSERT_EQ(t.slice_count(), 3);
  const AccumulatorDump d = exact_dump(e, t);
  EXPECT_EQ(bisect(e, t, d, false).stage, Departure::Stage::none);
  const Departure epilogue = bisect(e, t, d, true);
  EXPECT_EQ(epilogue.stage, Departure::Stage::epilogue);
  EXPECT_EQ(epilogue.block, 0);
}

TEST(Bisect, FindsTheFirstKTileWhereABlockDeparts) {
  const Expectation e = three_slice_case(Contract::marlin);
  const TileInfo& t = e.grid.tiles[0];
  AccumulatorDump d = exact_dump(e, t);
  d.after_k_tile[4](3, 7) += 1.0;  // block 1's slice is [3, 6): its second k-tile
  d.after_k_tile[5](3, 7) += 1.0;  // the error carries on
  const Departure found = bisect(e, t, d, true);
  EXPECT_EQ(found.stage, Departure::Stage::k_tile);
  EXPECT_EQ(found.block, 1);
  EXPECT_EQ(found.k_tile, 4);
  EXPECT_EQ(found.row, 3);
  EXPECT_EQ(found.col, 7);
  EXPECT_NE(found.text.find("after k-tile 4"), std::string::npos) << found.text;
}

TEST(Bisect, FindsTheReductionStepThatDeparts) {
  const Expectation e = three_slice_case(Contract::fp32);
  const TileInfo& t = e.grid.tiles[0];
  AccumulatorDump d = exact_dump(e, t);
  d.after_step[1](0, 100) = -d.after_step[1](0, 100) + 5.0;  // step 1 read a wrong partial
  const Departure found = bisect(e, t, d, true);
  EXPECT_EQ(found.stage, Departure::Stage::reduction);
  EXPECT_EQ(found.step, 1);
  EXPECT_EQ(found.block, 1);
  EXPECT_EQ(found.col, 100);
}

TEST(Bisect, TheMarlinContractAllowsEachStoredFp16Partial) {
  // Step 1 adds to step 0's partial, stored in fp16 under the marlin contract: off by 0.9 of that
  // partial's fp16 unit roundoff (times its magnitude sum S0), the sum is within the marlin
  // allowance and departs under fp32's.
  for (const Contract contract : {Contract::marlin, Contract::fp32}) {
    const Expectation e = three_slice_case(contract);
    const TileInfo& t = e.grid.tiles[0];
    AccumulatorDump d = exact_dump(e, t);
    const int k0 = t.slices[0].k_tile_begin * e.schedule.config.tile_k(), depth = e.shape().K - k0;
    const F64Matrix a = to_double(e.A).cwiseAbs(), w = to_double(dequantize(e.w)).cwiseAbs();
    const F64Matrix S0 = a.block(t.row0, k0, t.rows, depth) * w.block(k0, t.col0, depth, t.cols);
    d.after_step[1] += 0.9 * 0x1p-11 * S0;
    const Departure found = bisect(e, t, d, false);
    EXPECT_EQ(found.stage, contract == Contract::marlin ? Departure::Stage::none : Departure::Stage::reduction)
        << name(contract) << ": " << found.text;
    EXPECT_EQ(found.step, contract == Contract::marlin ? -1 : 1);
  }
}

TEST(Bisect, NanInADumpIsADeparture) {
  const Expectation e = three_slice_case(Contract::fp32);
  const TileInfo& t = e.grid.tiles[0];
  AccumulatorDump d = exact_dump(e, t);
  d.after_k_tile[6](9, 9) = std::nan("");
  const Departure found = bisect(e, t, d, true);
  EXPECT_EQ(found.stage, Departure::Stage::k_tile);
  EXPECT_EQ(found.k_tile, 6);
  EXPECT_EQ(found.block, 2);
}

}  // namespace
}  // namespace tc
