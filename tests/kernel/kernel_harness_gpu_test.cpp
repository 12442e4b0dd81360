// The kernel under the conditions a deployment creates: repeated launches (T3 determinism, 20
// repeats per cell), CUDA-graph capture and replay, two streams with separate workspaces at
// once, and a lock that is never released (which must end, with a message, not hang).
// Run for every kernel library, another project's too: a case the library answers n/a for
// (TC_ERR_UNSUPPORTED, e.g. the fp32 contract on upstream Marlin) is skipped with its reason.
#include <algorithm>
#include <memory>
#include <ostream>
#include <string>
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

void PrintTo(const RepeatParam& p, std::ostream* out) { *out << p.case_id << " " << name(p.config); }

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
      if (run.status.status == TC_ERR_UNSUPPORTED) GTEST_SKIP() << "n/a: " << cell.name() << ": " << run.status.message;
      ASSERT_TRUE(run.status.ok()) << cell.name() << ": " << run.status.message;
      outputs.push_back(run.C);
    }
    const Expectation e = runner().expectation(cell, contract_default(cell.contract));
    EXPECT_PRED_FORMAT2(Deterministic, e.schedule, outputs) << cell.name();
    EXPECT_PRED_FORMAT2(MatchesReference, e, outputs.front()) << cell.name();
  }
}

std::string repeat_name(const ::testing::TestParamInfo<RepeatParam>& info) {
  return std::string(info.param.case_id) + "_" + name(info.param.config);
}

// Both contracts, every group size, both tiles and m_blocks 1 and 4 (our kernel implements them all).
INSTANTIATE_TEST_SUITE_P(
    Cases, Determinism,
    ::testing::Values(RepeatParam{"normal_m16_n4096_k4096_gcol_marlin", {1, 8, 8, -1}, Contract::marlin},
                      RepeatParam{"normal_m16_n4096_k4096_gcol_fp32", {1, 16, 4, -1}, Contract::fp32},
                      RepeatParam{"normal_m16_n4096_k4096_g32_marlin", {1, 8, 8, 2}, Contract::marlin},
                      RepeatParam{"normal_m16_n4096_k8192_g128_fp32", {1, 16, 4, 8}, Contract::fp32},
                      RepeatParam{"normal_m257_n128_k128_g64_marlin", {4, 8, 8, 4}, Contract::marlin},
                      RepeatParam{"normal_m2048_n1024_k1024_g64_fp32", {4, 16, 4, 4}, Contract::fp32}),
    repeat_name);

// What a Marlin-contract-only kernel implements (upstream Marlin: plugins/ist-marlin): the marlin
// contract, group 128 (group_blocks 8) or per-column scales, the 256x64 tile at any m_blocks, and
// m_blocks = min(4, ceil(M / 16)). With normal_m16_n4096_k4096_gcol_marlin above (128x128,
// per-column) that is seven configurations: a 16-row tile whose one column is reduced across blocks
// (K=512: 8 k-tiles; K=256: 4), partial tiles of two and three 16-row blocks (M=17, 48), and
// m_blocks 4 over 64-row chunks of a large M (M=1024 and 2048: 16 and 32 chunks, batched
// launches), with grouped and with per-column scales.
INSTANTIATE_TEST_SUITE_P(
    MarlinContract, Determinism,
    ::testing::Values(RepeatParam{"normal_m16_n256_k512_g128_marlin", {1, 16, 4, 8}, Contract::marlin},
                      RepeatParam{"normal_m16_n256_k256_gcol_marlin", {1, 16, 4, -1}, Contract::marlin},
                      RepeatParam{"normal_m17_n256_k256_g128_marlin", {2, 16, 4, 8}, Contract::marlin},
                      RepeatParam{"normal_m48_n256_k256_gcol_marlin", {3, 16, 4, -1}, Contract::marlin},
                      RepeatParam{"normal_m1024_n4096_k4096_g128_marlin", {4, 16, 4, 8}, Contract::marlin},
                      RepeatParam{"normal_m2048_n4096_k4096_gcol_marlin", {4, 16, 4, -1}, Contract::marlin}),
    repeat_name);

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
  if (eager.status.status == TC_ERR_UNSUPPORTED) {
    cudaStreamDestroy(stream);
    GTEST_SKIP() << "n/a: " << cell.name() << ": " << eager.status.message;
  }
  ASSERT_TRUE(eager.status.ok()) << eager.status.message;
  const Expectation e = runner().expectation(cell, contract_default(cell.contract));
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
struct StreamPair {
  const char* name;
  RepeatParam cases[2];
};

void PrintTo(const StreamPair& p, std::ostream* out) {
  *out << p.name << ": ";
  PrintTo(p.cases[0], out);
  *out << " and ";
  PrintTo(p.cases[1], out);
}

class TwoStreams : public ::testing::TestWithParam<StreamPair> {};

TEST_P(TwoStreams, WithSeparateWorkspacesRunAtOnce) {
  TC_REQUIRE_GPU();
  const KernelPlugin& kernel = test_support::kernel_under_test();
  const int half = device_multiprocessors() / 2;
  const RepeatParam* pair = GetParam().cases;
  const Cell cells[2] = {{pair[0].case_id, pair[0].config, pair[0].contract, "", half},
                         {pair[1].case_id, pair[1].config, pair[1].contract, "", half}};
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
    const RunResult sized = kernel.workspace_size(devices[i]->problem(launches[i], workspaces[i]), need);
    if (sized.status == TC_ERR_UNSUPPORTED) GTEST_SKIP() << "n/a: " << sized.message;
    ASSERT_TRUE(sized.ok()) << status_name(sized.status) << ": " << sized.message;
    workspaces[i].reserve(need);
    devices[i]->poison();
  }
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 2; ++i) {
      devices[i]->poison();
      launched[i] = kernel.run(devices[i]->problem(launches[i], workspaces[i]));
    }
    for (int i = 0; i < 2; ++i) {
      if (launched[i].status != TC_ERR_UNSUPPORTED) continue;
      for (cudaStream_t s : streams) {  // the other problem may be in flight
        cudaStreamSynchronize(s);
        cudaStreamDestroy(s);
      }
      GTEST_SKIP() << "n/a: " << cells[i].case_id << " " << name(cells[i].config) << ": " << launched[i].message;
    }
    for (int i = 0; i < 2; ++i) {
      const KernelRun r = devices[i]->collect(launches[i], launched[i]);
      ASSERT_TRUE(r.status.ok()) << cells[i].case_id << ": " << r.status.message;
      const Expectation e = runner().expectation(cells[i], contract_default(cells[i].contract));
      EXPECT_PRED_FORMAT3(MatchesReferenceWithGuard, e, r.C, r.guard) << "round " << round;
    }
  }
  for (cudaStream_t s : streams) cudaStreamDestroy(s);
}

// Both contracts side by side (our kernel), and two configurations any Marlin-contract kernel
// implements (upstream Marlin too: its m1n8k8 per-column and m1n16k4 group-128 instantiations).
INSTANTIATE_TEST_SUITE_P(
    Pairs, TwoStreams,
    ::testing::Values(
        StreamPair{"MarlinAndFp32",
                   {{"normal_m16_n4096_k4096_gcol_marlin", {1, 8, 8, -1}, Contract::marlin},
                    {"normal_m16_n4096_k4096_g64_fp32", {1, 16, 4, 4}, Contract::fp32}}},
        StreamPair{"MarlinContractOnly",
                   {{"normal_m16_n4096_k4096_gcol_marlin", {1, 8, 8, -1}, Contract::marlin},
                    {"normal_m16_n4096_k4096_g128_marlin", {1, 16, 4, 8}, Contract::marlin}}}),
    [](const ::testing::TestParamInfo<StreamPair>& test_info) { return std::string(test_info.param.name); });

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
