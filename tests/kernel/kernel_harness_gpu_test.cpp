// The kernel under the conditions a deployment creates: repeated launches (T3 determinism, 20
// repeats per cell), CUDA-graph capture and replay, two streams with separate workspaces at
// once, and a lock that is never released (which must end, with a message, not hang).
#include <algorithm>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "tilecheck/compare/compare_gtest.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/reference/schedule.h"
#include "tilecheck/suite/runner.h"

namespace tc {
namespace {

constexpr int kRepeats = 20;

SuiteRunner& runner() {
  static SuiteRunner r(&test_support::kernel_under_test(), default_golden_paths());
  return r;
}

struct RepeatParam {
  const char* case_id;
  TileConfig config;
  Contract contract;
};

class Determinism : public ::testing::TestWithParam<RepeatParam> {};

// T3: at a fixed grid size, 20 launches give bitwise identical outputs; across grid sizes each is
// within its own bound (the matrix checks that for every cell).
TEST_P(Determinism, RepeatedRunsAreBitwiseIdentical) {
  TC_REQUIRE_GPU();
  const RepeatParam& p = GetParam();
  for (int sms : {7, device_multiprocessors()}) {
    const Cell cell{p.case_id, p.config, p.contract, test_support::kernel_under_test().info().variant, sms};
    std::vector<HalfMatrix> outputs;
    for (int r = 0; r < kRepeats; ++r) {
      const KernelRun run = runner().execute(cell);
      ASSERT_TRUE(run.status.ok()) << cell.name() << ": " << run.status.message;
      outputs.push_back(run.C);
    }
    const Expectation e = runner().expectation(cell);
    EXPECT_PRED_FORMAT2(Deterministic, e.schedule, outputs) << cell.name();
    EXPECT_PRED_FORMAT2(MatchesReference, e, outputs.front()) << cell.name();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Determinism,
    ::testing::Values(RepeatParam{"normal_m16_n4096_k4096_gcol_marlin", {1, 8, 8, -1}, Contract::marlin},
                      RepeatParam{"normal_m16_n4096_k4096_gcol_fp32", {1, 16, 4, -1}, Contract::fp32},
                      RepeatParam{"normal_m16_n4096_k4096_g32_marlin", {1, 8, 8, 2}, Contract::marlin},
                      RepeatParam{"normal_m16_n4096_k8192_g128_fp32", {1, 16, 4, 8}, Contract::fp32},
                      RepeatParam{"normal_m257_n128_k128_g64_marlin", {4, 8, 8, 4}, Contract::marlin},
                      RepeatParam{"normal_m2048_n1024_k1024_g64_fp32", {4, 16, 4, 4}, Contract::fp32}),
    [](const auto& test_info) { return std::string(test_info.param.case_id) + "_" + name(test_info.param.config); });

// A CUDA graph captures the launches once; replaying it reuses the workspace (the locks reset
// themselves) and must give the eager run's output every time.
TEST(Harness, GraphReplayMatchesTheEagerRun) {
  TC_REQUIRE_GPU();
  const KernelPlugin& kernel = test_support::kernel_under_test();
  const Cell cell{"normal_m16_n4096_k4096_gcol_marlin", {1, 8, 8, -1}, Contract::marlin, kernel.info().variant, 66};
  const Fixture& f = runner().fixture(cell.case_id);
  DeviceCase device(f.A, f.B_marlin, f.scales_marlin, f.spec.shape.group, f.spec.contract);
  Workspace workspace;
  cudaStream_t stream;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  Launch launch;
  launch.config = cell.config;
  launch.sms = cell.sms;
  launch.stream = stream;
  const KernelRun eager = device.run(kernel, launch, workspace);
  ASSERT_TRUE(eager.status.ok()) << eager.status.message;
  const Expectation e = runner().expectation(cell);
  EXPECT_PRED_FORMAT3(MatchesReferenceWithGuard, e, eager.C, eager.guard);

  device.poison();
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  const RunResult captured = kernel.run(device.problem(launch, workspace));
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
  ASSERT_TRUE(captured.ok()) << captured.message;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 10; ++replay) {
    device.poison();
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    const KernelRun r = device.collect(launch, RunResult{});
    ASSERT_FALSE(r.fault) << r.status.message;
    ASSERT_EQ(r.C, eager.C) << "replay " << replay << " differs from the eager run";
    ASSERT_TRUE(r.guard.written.empty()) << "replay " << replay << " wrote outside C";
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(stream);
}

// Two problems on two streams, each with its own workspace and half the SMs, run at once.
TEST(Harness, TwoStreamsWithSeparateWorkspacesRunAtOnce) {
  TC_REQUIRE_GPU();
  const KernelPlugin& kernel = test_support::kernel_under_test();
  const int half = device_multiprocessors() / 2;
  const Cell cells[2] = {{"normal_m16_n4096_k4096_gcol_marlin", {1, 8, 8, -1}, Contract::marlin, "", half},
                         {"normal_m16_n4096_k4096_g64_fp32", {1, 16, 4, 4}, Contract::fp32, "", half}};
  std::vector<Fixture> fixtures = {runner().fixture(cells[0].case_id), runner().fixture(cells[1].case_id)};
  std::vector<std::unique_ptr<DeviceCase>> devices;
  Workspace workspaces[2];
  cudaStream_t streams[2];
  Launch launches[2];
  RunResult launched[2];
  for (int i = 0; i < 2; ++i) {
    const Fixture& f = fixtures[i];
    devices.push_back(std::make_unique<DeviceCase>(f.A, f.B_marlin, f.scales_marlin, f.spec.shape.group, f.spec.contract));
    ASSERT_EQ(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking), cudaSuccess);
    launches[i].config = cells[i].config;
    launches[i].sms = half;
    launches[i].stream = streams[i];
    size_t need = 0;
    ASSERT_TRUE(kernel.workspace_size(devices[i]->problem(launches[i], workspaces[i]), need).ok());
    workspaces[i].reserve(need);
    devices[i]->poison();
  }
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 2; ++i) {
      devices[i]->poison();
      launched[i] = kernel.run(devices[i]->problem(launches[i], workspaces[i]));
    }
    for (int i = 0; i < 2; ++i) {
      const KernelRun r = devices[i]->collect(launches[i], launched[i]);
      ASSERT_TRUE(r.status.ok()) << cells[i].case_id << ": " << r.status.message;
      const Expectation e = runner().expectation(cells[i]);
      EXPECT_PRED_FORMAT3(MatchesReferenceWithGuard, e, r.C, r.guard) << "round " << round;
    }
  }
  for (cudaStream_t s : streams) cudaStreamDestroy(s);
}

// A lock that never reaches a block's turn (here: a workspace left dirty, the check skipped) must
// end the launch within a bounded time with a fault, not hang: the debug build's spin bound traps.
// This test loses its CUDA context by design; ctest runs it in its own process.
TEST(Harness, ALockThatIsNeverReleasedEndsWithAFault) {
  TC_REQUIRE_GPU();
#ifndef TC_KERNEL_SPIN_BOUND
  GTEST_SKIP() << "the device-side spin bound is compiled into debug builds only (--preset debug); in "
                  "release builds ctest's TIMEOUT ends a lost lock";
#endif
  const KernelPlugin& kernel = test_support::kernel_under_test();
  // A committed fixture (no regeneration needed in the debug tree): one 128-wide column of 32
  // k-tiles shared by 16 blocks, so every block but the first waits on the column's lock.
  const Fixture& f = runner().fixture("normal_m16_n128_k4096_g128_marlin");
  DeviceCase device(f.A, f.B_marlin, f.scales_marlin, f.spec.shape.group, f.spec.contract);
  Workspace workspace;
  Launch launch;
  launch.config = {1, 8, 8, 8};
  launch.sms = 16;
  const Schedule schedule = make_schedule(f.spec.shape, launch.config, launch.sms);
  ASSERT_GT(schedule.launches.at(0).slices.at(0).slice_count, 1) << "the premise: blocks share a column";
  launch.flags = TC_FLAG_SKIP_WORKSPACE_CHECK;
  size_t need = 0;
  ASSERT_TRUE(kernel.workspace_size(device.problem(launch, workspace), need).ok());
  workspace.reserve(need);
  ASSERT_GE(need, sizeof(int));
  const std::vector<int> stuck(need / sizeof(int), 1000);  // no block's slice index is 1000
  ASSERT_EQ(cudaMemcpy(workspace.get(), stuck.data(), stuck.size() * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the pageable copy's DMA lands before the launch
  const KernelRun r = device.run(kernel, launch, workspace);
  EXPECT_TRUE(r.fault) << "the launch ended without a fault: " << r.status.message;
  EXPECT_NE(r.status.message.find("FAULT"), std::string::npos) << r.status.message;
}

}  // namespace
}  // namespace tc
