// The plugin problem (tilecheck/suite/problem.h): every field of tc_problem comes from the shape,
// the contract, the launch and the operands it was given, and a launch that leaves the
// configuration to the kernel passes all zeros.
#include "tilecheck/suite/problem.h"

#include <gtest/gtest.h>

namespace tc {
namespace {

TEST(MakeProblem, FillsEveryFieldFromItsSource) {
  int a = 0, b = 0, s = 0, c = 0, ws = 0;  // stand-ins for device pointers: only their identity matters
  Launch launch;
  launch.config = TileConfig{2, 16, 4, 8};
  launch.sms = 33;
  launch.max_par = 4;
  launch.flags = TC_FLAG_SKIP_WORKSPACE_CHECK;
  launch.stream = &ws;
  const tc_problem q = make_problem(Shape{17, 256, 512, 128}, Contract::marlin, launch, {&a, &b, &s, &c, &ws, 4096});
  EXPECT_EQ(q.abi_version, TC_PLUGIN_ABI_VERSION);
  EXPECT_EQ(q.M, 17);
  EXPECT_EQ(q.N, 256);
  EXPECT_EQ(q.K, 512);
  EXPECT_EQ(q.group, 128);
  EXPECT_EQ(q.contract, TC_CONTRACT_MARLIN);
  EXPECT_EQ(q.A, &a);
  EXPECT_EQ(q.B, &b);
  EXPECT_EQ(q.scales, &s);
  EXPECT_EQ(q.C, &c);
  EXPECT_EQ(q.workspace, &ws);
  EXPECT_EQ(q.workspace_bytes, 4096u);
  EXPECT_EQ(q.config.m_blocks, 2);
  EXPECT_EQ(q.config.n_blocks, 16);
  EXPECT_EQ(q.config.k_blocks, 4);
  EXPECT_EQ(q.config.group_blocks, 8);
  EXPECT_EQ(q.sms, 33);
  EXPECT_EQ(q.max_par, 4);
  EXPECT_EQ(q.flags, TC_FLAG_SKIP_WORKSPACE_CHECK);
  EXPECT_EQ(q.stream, &ws);
}

TEST(MakeProblem, AnAutomaticLaunchLeavesEveryChoiceToTheKernel) {
  const tc_problem q = make_problem(Shape{1, 64, 16, kPerColumn}, Contract::fp32, Launch{}, {});
  EXPECT_EQ(q.contract, TC_CONTRACT_FP32);
  EXPECT_EQ(q.group, -1);
  EXPECT_EQ(q.config.m_blocks, 0);
  EXPECT_EQ(q.config.n_blocks, 0);
  EXPECT_EQ(q.config.k_blocks, 0);
  EXPECT_EQ(q.config.group_blocks, 0);
  EXPECT_EQ(q.sms, 0);
  EXPECT_EQ(q.max_par, 0);
  EXPECT_EQ(q.flags, 0u);
  EXPECT_EQ(q.stream, nullptr);
  EXPECT_EQ(q.workspace, nullptr);
  EXPECT_EQ(q.workspace_bytes, 0u);
}

TEST(PluginContract, MapsEachContract) {
  EXPECT_EQ(plugin_contract(Contract::marlin), TC_CONTRACT_MARLIN);
  EXPECT_EQ(plugin_contract(Contract::fp32), TC_CONTRACT_FP32);
}

}  // namespace
}  // namespace tc
