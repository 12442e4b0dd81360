// The perturbation tier's rounds (tilecheck/suite/perturb_plan.h) without a GPU: a plan is a function
// of the seed and the cell, goes through every order and priority, draws the noise from its choices;
// bad values are refused naming the field; a round survives the trip to a worker and back.
#include "tilecheck/suite/perturb_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/worker_messages.h"

namespace tc {
namespace {

constexpr const char* kCell = "normal_m16_n512_k128_gcol_m1n16k4gcol_marlin_upstream_sms1";

template <std::size_t N>
bool one_of(const int (&choices)[N], int v) {
  return std::find(std::begin(choices), std::end(choices), v) != std::end(choices);
}

// The message of the tc::Error `f` throws, or "" when it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PlanRounds, IsAFunctionOfTheSeedAndTheCell) {
  const auto plan = plan_rounds(7, kCell, 12, 10);
  EXPECT_EQ(plan, plan_rounds(7, kCell, 12, 10));
  EXPECT_NE(plan, plan_rounds(8, kCell, 12, 10)) << "another seed, other noise";
  EXPECT_NE(plan, plan_rounds(7, "exact_m16_n256_k256_gcol_m1n8k8gcol_marlin_upstream_sms1", 12, 10))
      << "another cell, other noise";
  const auto first_four = plan_rounds(7, kCell, 4, 10);
  EXPECT_TRUE(std::equal(first_four.begin(), first_four.end(), plan.begin()))
      << "round i does not depend on how many rounds follow it";
}

TEST(PlanRounds, GoesThroughEveryOrderAndPriorityInEachFourRounds) {
  const auto plan = plan_rounds(1, kCell, 8, 10);
  ASSERT_EQ(plan.size(), 8u);
  for (std::size_t start = 0; start < plan.size(); start += 4) {
    std::set<std::pair<NoiseOrder, StreamPriority>> seen;
    for (std::size_t i = start; i < start + 4; ++i) seen.insert({plan[i].order, plan[i].priority});
    EXPECT_EQ(seen.size(), 4u) << "rounds " << start << ".." << start + 3;
  }
  EXPECT_EQ(plan[0].order, NoiseOrder::noise_first);
  EXPECT_EQ(plan[0].priority, StreamPriority::high);
  EXPECT_EQ(plan[3].order, NoiseOrder::kernel_first);
  EXPECT_EQ(plan[3].priority, StreamPriority::low);
}

TEST(PlanRounds, DrawsTheNoiseFromItsChoicesAndNumbersTheRounds) {
  const auto plan = plan_rounds(123, kCell, 200, 2.5);
  std::set<int> percents, smem, crowded;
  std::set<std::uint32_t> seeds;
  int memory_rounds = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const PerturbRound& r = plan[i];
    EXPECT_EQ(r.index, static_cast<int>(i));
    EXPECT_TRUE(one_of(NoiseChoices::sm_percent, r.noise_sm_percent)) << describe(r);
    if (r.noise_crowd_warp < 0) {  // memory noise
      ++memory_rounds;
      EXPECT_TRUE(one_of(NoiseChoices::blocks_per_sm, r.noise_blocks_per_sm)) << describe(r);
      EXPECT_TRUE(one_of(NoiseChoices::threads, r.noise_threads)) << describe(r);
      EXPECT_TRUE(one_of(NoiseChoices::smem_kib, r.noise_smem_kib)) << describe(r);
      smem.insert(r.noise_smem_kib);
    } else {  // a crowded scheduler: small blocks without shared memory, so that many fit beside the kernel
      EXPECT_TRUE(one_of(NoiseChoices::crowd_blocks_per_sm, r.noise_blocks_per_sm)) << describe(r);
      EXPECT_EQ(r.noise_threads, 128) << describe(r);
      EXPECT_EQ(r.noise_smem_kib, 0) << describe(r);
      crowded.insert(r.noise_crowd_warp);
    }
    EXPECT_EQ(r.noise_limit_ms, 2.5);
    EXPECT_NO_THROW(check_round(r)) << describe(r);
    percents.insert(r.noise_sm_percent);
    seeds.insert(r.seed);
  }
  EXPECT_EQ(percents.size(), std::size(NoiseChoices::sm_percent)) << "200 rounds reach every share of SMs";
  EXPECT_EQ(smem.size(), std::size(NoiseChoices::smem_kib)) << "and every amount of shared memory";
  EXPECT_EQ(crowded, (std::set<int>{0, 1, 2, 3})) << "and crowd each of the four warp schedulers";
  EXPECT_GT(memory_rounds, 70) << "about half of the rounds are memory noise";
  EXPECT_LT(memory_rounds, 130) << "and about half crowd a scheduler";
  EXPECT_GT(seeds.size(), 195u) << "each round its own seed";
}

TEST(PlanRounds, RefusesRoundCountsAndLimitsOutOfRange) {
  EXPECT_EQ(error_of([] { plan_rounds(1, kCell, 0, 10); }), "--rounds 0 (expected 1 to 100000)");
  EXPECT_EQ(error_of([] { plan_rounds(1, kCell, kMaxRounds + 1, 10); }), "--rounds 100001 (expected 1 to 100000)");
  EXPECT_EQ(error_of([] { plan_rounds(1, kCell, 4, 0); }), "--noise-limit-ms 0 (expected more than 0, at most 1000)");
  EXPECT_NE(error_of([] { plan_rounds(1, kCell, 4, std::nan("")); }), "");
  EXPECT_NE(error_of([] { plan_rounds(1, kCell, 4, 1001); }), "");
}

TEST(PerturbRound, DescribesItselfInWords) {
  PerturbRound r;
  r.index = 3;
  r.noise_sm_percent = 50;
  r.noise_blocks_per_sm = 2;
  r.noise_threads = 256;
  r.noise_smem_kib = 48;
  r.order = NoiseOrder::kernel_first;
  r.priority = StreamPriority::low;
  r.seed = 0x1a2b3c4d;
  EXPECT_EQ(describe(r),
            "round 3: noise on 50 % of SMs x 2 blocks of 256 threads, 48 KiB shared each, kernel first, kernel "
            "stream low priority, seed 0x1a2b3c4d");
  r.noise_blocks_per_sm = 1;
  EXPECT_NE(describe(r).find("x 1 block of 256 threads"), std::string::npos) << describe(r);
  r.noise_crowd_warp = 2;
  EXPECT_NE(describe(r).find("x 1 block of 256 threads, crowding warp scheduler 2, kernel first"), std::string::npos)
      << describe(r);
}

TEST(PerturbRound, CheckNamesTheFieldOutOfRange) {
  const auto broken = [](auto change) {
    PerturbRound r;
    r.index = 2;
    change(r);
    return error_of([&] { check_round(r); });
  };
  EXPECT_EQ(broken([](PerturbRound&) {}), "");
  EXPECT_EQ(broken([](PerturbRound& r) { r.noise_sm_percent = 101; }),
            "perturbation round 2: noise_sm_percent=101 (expected 0 to 100)");
  EXPECT_EQ(broken([](PerturbRound& r) { r.noise_blocks_per_sm = 0; }),
            "perturbation round 2: noise_blocks_per_sm=0 (expected 1 to 32)");
  EXPECT_EQ(broken([](PerturbRound& r) { r.noise_threads = 100; }),
            "perturbation round 2: noise_threads=100 (expected a multiple of 32 from 32 to 1024)");
  EXPECT_EQ(broken([](PerturbRound& r) { r.noise_smem_kib = 228; }),
            "perturbation round 2: noise_smem_kib=228 (expected 0 to 227, the most one block may ask for)");
  EXPECT_EQ(broken([](PerturbRound& r) { r.noise_crowd_warp = 4; }),
            "perturbation round 2: noise_crowd_warp=4 (expected -1, or a warp scheduler 0 to 3)");
  EXPECT_EQ(broken([](PerturbRound& r) { r.order = static_cast<NoiseOrder>(5); }),
            "perturbation round 2: order=5 (expected noise first 0 or kernel first 1)");
  EXPECT_EQ(broken([](PerturbRound& r) { r.priority = static_cast<StreamPriority>(-1); }),
            "perturbation round 2: priority=-1 (expected high 0 or low 1)");
  EXPECT_EQ(broken([](PerturbRound& r) { r.noise_limit_ms = -1; }),
            "perturbation round 2: noise_limit_ms=-1 (expected more than 0, at most 1000)");
  EXPECT_EQ(broken([](PerturbRound& r) { r.index = -1; }), "perturbation round index -1 (expected 0 to 99999)");
}

TEST(NoiseBlocks, ShareOfTheSmsRoundedUpTimesBlocksPerSm) {
  PerturbRound r;
  r.noise_blocks_per_sm = 1;
  r.noise_sm_percent = 100;
  EXPECT_EQ(noise_blocks(r, 132), 132);
  r.noise_sm_percent = 25;
  EXPECT_EQ(noise_blocks(r, 132), 33);
  r.noise_sm_percent = 75;
  EXPECT_EQ(noise_blocks(r, 132), 99);
  r.noise_sm_percent = 1;
  EXPECT_EQ(noise_blocks(r, 132), 2) << "1.32 SMs: rounded up";
  r.noise_sm_percent = 0;
  EXPECT_EQ(noise_blocks(r, 132), 0) << "no noise";
  r.noise_sm_percent = 50;
  r.noise_blocks_per_sm = 2;
  EXPECT_EQ(noise_blocks(r, 132), 132);
}

// The worker protocol (tilecheck/suite/worker_messages.h) carries a launch's round, or none.
TEST(PerturbRound, TravelsToAWorkerAndBack) {
  Launch plain;
  plain.sms = 7;
  worker::Message m = worker::encode_launch(plain);
  worker::Message read(m.bytes());
  const Launch back = worker::decode_launch(read);
  EXPECT_EQ(back.sms, 7);
  EXPECT_FALSE(back.perturb.has_value());

  for (int crowd : {-1, 3}) {
    Launch perturbed = plain;
    perturbed.perturb = plan_rounds(5, kCell, 3, 4)[2];
    perturbed.perturb->noise_crowd_warp = crowd;
    worker::Message m2 = worker::encode_launch(perturbed);
    worker::Message read2(m2.bytes());
    const Launch back2 = worker::decode_launch(read2);
    ASSERT_TRUE(back2.perturb.has_value());
    EXPECT_EQ(*back2.perturb, *perturbed.perturb) << describe(*back2.perturb);
  }
}

TEST(PerturbRound, AWorkerRefusesARoundOutOfRange) {
  Launch l;
  l.perturb = PerturbRound{};
  l.perturb->noise_threads = 33;
  worker::Message m = worker::encode_launch(l);
  worker::Message read(m.bytes());
  EXPECT_EQ(error_of([&] { worker::decode_launch(read); }),
            "perturbation round 0: noise_threads=33 (expected a multiple of 32 from 32 to 1024)");
}

}  // namespace
}  // namespace tc
