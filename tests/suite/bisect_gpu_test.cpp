// K-bisection on the H200: the dump variant of our kernel records a multi-slice tile's running sums,
// and on the correct kernel they stay within their bounds at every k-tile and reduction step.
#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "tilecheck/suite/dump_run.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/runner.h"

namespace tc {
namespace {

TEST(BisectOnGpu, TheCorrectKernelsRunningSumsStayInBounds) {
  TC_REQUIRE_GPU();
  const KernelPlugin dumper = KernelPlugin::load(TC_DUMP_KERNEL);
  ASSERT_TRUE(dumper.can_dump());
  SuiteRunner runner(&dumper, default_golden_paths());
  for (const char* id : {"normal_m16_n4096_k4096_gcol_marlin", "normal_m16_n4096_k4096_g64_fp32"}) {
    const Fixture& f = runner.fixture(id);
    const TileConfig config = choose_config(f.spec.shape);
    const Cell cell{id, config, f.spec.contract, "dump", 66};
    const Expectation e = runner.expectation(cell, contract_default(cell.contract));
    const TileInfo& t = e.grid.tiles[3];
    ASSERT_GT(t.slice_count(), 1) << id << ": the tile must be split across blocks";
    Launch l;
    l.config = config;
    l.sms = cell.sms;
    DumpRun recorded = record_accumulators(dumper, f, f.spec.contract, l, e.schedule, t);
    ASSERT_TRUE(recorded.run.status.ok()) << recorded.run.status.message;
    AccumulatorDump& d = recorded.dump;
    ASSERT_EQ(static_cast<int>(d.after_step.size()), t.slice_count());
    const Departure dep = bisect(e, t, d, false);
    EXPECT_EQ(dep.stage, Departure::Stage::none) << id << ": " << dep.text;
    // Planting an error in the recorded data must be found: the check can fail.
    d.after_k_tile[t.slices[0].k_tile_begin](0, 0) += 1e3;
    EXPECT_EQ(bisect(e, t, d, false).stage, Departure::Stage::k_tile) << id;
  }
}

}  // namespace
}  // namespace tc
