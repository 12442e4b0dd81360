// The perturbation tier's device side (tilecheck/suite/noise.h) on the GPU, in this process: a round
// of each order and priority leaves a correct kernel's output correct and ends with the kernel, not at
// the noise's limit; noise that fills every SM still ends, by its limit; a delay variant takes each
// round's seed and stays correct. Skipped, saying why, without a GPU.
#include <chrono>

#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/judge.h"
#include "tilecheck/suite/noise.h"

namespace tc {
namespace {

// One last block per column goes on to the next column at grid size 1 (upstream's H3 path).
constexpr const char* kCase = "normal_m16_n512_k128_gcol_marlin";

struct Perturbed {
  CellOutcome outcome;
  double seconds = 0;
};

// One round of `kernel` on kCase at grid size 1, judged by the judge chain.
Perturbed run_round(const KernelPlugin& kernel, const PerturbRound& round) {
  static const Fixture f = load_case(default_golden_paths(), kCase);
  DeviceCase device(f.A, f.B_marlin, f.scales_marlin, f.spec.shape.group, f.spec.contract);
  Workspace workspace;
  const Cell cell{kCase, choose_config(f.spec.shape), f.spec.contract, "perturb", 1};
  Launch launch;
  launch.config = cell.config;
  launch.sms = cell.sms;
  launch.perturb = round;
  const auto start = std::chrono::steady_clock::now();
  const KernelRun r = device.run(kernel, launch, workspace);
  Perturbed p;
  p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  p.outcome = judgeable(r) ? judge_cell(f, cell, judged_numerics(r.declared, cell.contract),
                                        {r.C, r.guard, r.workspace}, "")
                           : unjudged_outcome(cell, r);
  return p;
}

PerturbRound modest(NoiseOrder order, StreamPriority priority) {
  PerturbRound r;  // half the SMs, one small block each: the kernel's block always fits beside them
  r.noise_sm_percent = 50;
  r.noise_blocks_per_sm = 1;
  r.noise_threads = 256;
  r.noise_smem_kib = 16;
  r.order = order;
  r.priority = priority;
  r.seed = 0x5EED;
  r.noise_limit_ms = 1000;
  return r;
}

TEST(PerturbedLaunch, EachOrderAndPriorityLeavesACorrectOutputCorrectAndEndsWithTheKernel) {
  TC_REQUIRE_GPU();
  // Untimed first: the noise's streams and buffer are made, the kernel's module loaded.
  run_round(test_support::kernel_under_test(), modest(NoiseOrder::noise_first, StreamPriority::high));
  for (const NoiseOrder order : {NoiseOrder::noise_first, NoiseOrder::kernel_first})
    for (const StreamPriority priority : {StreamPriority::high, StreamPriority::low}) {
      const PerturbRound round = modest(order, priority);
      const Perturbed p = run_round(test_support::kernel_under_test(), round);
      EXPECT_EQ(p.outcome.status, CellStatus::pass) << describe(round) << ": " << p.outcome.message;
      EXPECT_LT(p.seconds, 0.5) << describe(round) << ": the noise should stop with the kernel, not at its 1 s limit";
    }
}

TEST(PerturbedLaunch, NoiseThatCrowdsEachWarpSchedulerLeavesACorrectOutputCorrectAndEndsWithTheKernel) {
  TC_REQUIRE_GPU();
  // Untimed first, as above: without it the first round's kernel waited for its module to load until the
  // noise had ended at its 1 s limit (H200 label, every run, round 0 only).
  run_round(test_support::kernel_under_test(), modest(NoiseOrder::noise_first, StreamPriority::high));
  for (int crowd = 0; crowd < 4; ++crowd) {
    PerturbRound round = modest(crowd % 2 ? NoiseOrder::kernel_first : NoiseOrder::noise_first, StreamPriority::high);
    round.noise_sm_percent = 100;
    round.noise_blocks_per_sm = 4;  // the most the plan draws (NoiseChoices::crowd_blocks_per_sm)
    round.noise_threads = 128;
    round.noise_smem_kib = 0;
    round.noise_crowd_warp = crowd;
    const Perturbed p = run_round(test_support::kernel_under_test(), round);
    EXPECT_EQ(p.outcome.status, CellStatus::pass) << describe(round) << ": " << p.outcome.message;
    EXPECT_LT(p.seconds, 0.5) << describe(round) << ": the noise should stop with the kernel, not at its 1 s limit";
  }
}

TEST(PerturbedLaunch, NoiseThatFillsEverySmEndsByItsLimit) {
  TC_REQUIRE_GPU();
  PerturbRound round = modest(NoiseOrder::noise_first, StreamPriority::low);
  round.noise_sm_percent = 100;
  round.noise_blocks_per_sm = 2;
  round.noise_threads = 1024;
  round.noise_smem_kib = 110;  // two of these leave no SM room for the kernel's block
  round.noise_limit_ms = 50;
  const Perturbed p = run_round(test_support::kernel_under_test(), round);
  EXPECT_EQ(p.outcome.status, CellStatus::pass) << describe(round) << ": " << p.outcome.message;
  EXPECT_LT(p.seconds, 2.0) << "the noise's limit ends it, whatever the kernel does";
}

TEST(PerturbedLaunch, ADelayVariantTakesEachRoundsSeedAndStaysCorrect) {
  TC_REQUIRE_GPU();
#ifndef TC_DELAY_KERNEL
  GTEST_SKIP() << "no delay variant in this build (-DTC_DELAY_VARIANTS=ON builds libtc_kernel_delay.so)";
#else
  const KernelPlugin delay = KernelPlugin::load(TC_DELAY_KERNEL);
  for (const PerturbRound& round : plan_rounds(11, kCase, 8, 50)) {
    const Perturbed p = run_round(delay, round);
    EXPECT_EQ(p.outcome.status, CellStatus::pass) << describe(round) << ": " << p.outcome.message;
  }
#endif
}

}  // namespace
}  // namespace tc
