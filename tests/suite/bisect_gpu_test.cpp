// K-bisection on the H200: the dump variant of our kernel records a multi-slice tile's running sums,
// and on the correct kernel they stay within their bounds at every k-tile and reduction step.
#include <gtest/gtest.h>

#include "../kernel/gpu_test.h"
#include "tilecheck/bisect.h"
#include "tilecheck/golden.h"
#include "tilecheck/suite_runner.h"

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
    const Expectation e = runner.expectation(cell);
    const TileInfo& t = e.grid.tiles[3];
    ASSERT_GT(t.slice_count(), 1) << id << ": the tile must be split across blocks";
    const LaunchSchedule& launch = e.schedule.launches[t.launch];
    const int warp_rows = 32 / config.n_blocks, elems = launch.config.tile_m() * config.tile_n();
    DeviceCase device(f.A, f.B_marlin, f.scales_marlin, f.spec.shape.group, f.spec.contract);
    Workspace workspace;
    Launch l;
    l.config = config;
    l.sms = cell.sms;
    std::size_t need = 0;
    ASSERT_TRUE(dumper.workspace_size(device.problem(l, workspace), need).ok());
    workspace.reserve(need);
    const std::size_t floats = std::size_t(launch.k_tiles * warp_rows + t.slice_count()) * elems;
    DeviceBuffer dump(floats * sizeof(float));
    dump.zero();
    device.poison();
    const KernelRun run =
        device.collect(l, dumper.run_dump(device.problem(l, workspace), t.launch, t.column, static_cast<float*>(dump.get())));
    ASSERT_TRUE(run.status.ok()) << run.status.message;
    std::vector<float> host(floats);
    dump.download(host.data(), floats * sizeof(float));
    AccumulatorDump d;
    d.after_k_tile.resize(launch.k_tiles);
    const auto sum = [&](std::size_t first, int count) {
      F64Matrix m = F64Matrix::Zero(t.rows, t.cols);
      for (int k = 0; k < count; ++k)
        for (int r = 0; r < t.rows; ++r)
          for (int c = 0; c < t.cols; ++c) m(r, c) += host[(first + k) * elems + r * config.tile_n() + c];
      return m;
    };
    for (const Slice& s : t.slices)
      for (int kt = s.k_tile_begin; kt < s.k_tile_end; ++kt) d.after_k_tile[kt] = sum(std::size_t(kt) * warp_rows, warp_rows);
    for (int j = 0; j < t.slice_count(); ++j) d.after_step.push_back(sum(std::size_t(launch.k_tiles) * warp_rows + j, 1));
    const Departure dep = bisect(e, t, d, false);
    EXPECT_EQ(dep.stage, Departure::Stage::none) << id << ": " << dep.text;
    // Planting an error in the recorded data must be found: the check can fail.
    d.after_k_tile[t.slices[0].k_tile_begin](0, 0) += 1e3;
    EXPECT_EQ(bisect(e, t, d, false).stage, Departure::Stage::k_tile) << id;
  }
}

}  // namespace
}  // namespace tc
