// Smoke matrix: every configuration x both contracts x a few M (partial tiles, batched par > 1
// and its tail) x grid sizes (one block, a few, all), each cell its own test, against the CPU
// reference under the per-element bound of the numerics the library declares (the contract's if
// it declares none). The scale-fetch order is the library's (TC_KERNEL picks a variant).
#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "common/test_inputs.h"
#include "tilecheck/compare/compare_gtest.h"
#include "tilecheck/compare/poison.h"
#include "tilecheck/kernel/configs.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/gemm.h"
#include "tilecheck/reference/marlin_format.h"
#include "tilecheck/reference/numerics.h"
#include "tilecheck/suite/judge.h"

namespace tc {
namespace {

// One cell of the smoke matrix. sms 0 stands for the device's multiprocessor count, known only
// once the test runs.
struct SmokeParam {
  TileConfig config;
  Contract contract;
  int M;
  int sms;
};

constexpr int kAllMultiprocessors = 0;

std::string smoke_name(const SmokeParam& p) {
  return cat(name(p.config), "_", name(p.contract), "_M", p.M, "_sms",
             p.sms == kAllMultiprocessors ? std::string("all") : std::to_string(p.sms));
}
void PrintTo(const SmokeParam& p, std::ostream* out) { *out << smoke_name(p); }

std::vector<SmokeParam> smoke_params() {
  std::vector<SmokeParam> out;
  for (const TileConfig& config : kLibraryConfigs)
    for (Contract contract : {Contract::marlin, Contract::fp32})
      for (int M : {1, 7, 16, 17, 64, 65, 152})
        for (int sms : {1, 3, kAllMultiprocessors}) out.push_back({config, contract, M, sms});
  return out;
}

struct Problem {
  HalfMatrix A;
  QuantizedWeights w;
};

Problem normal_problem(int M, int N, int K, int group, std::uint64_t seed) {
  return {test_support::normal_half(M, K, seed, "A"), test_support::normal_weights(K, N, group, seed)};
}

// A smoke cell's problem (N = 512, K = 1024) and its reference under an epilogue, made once per
// process: both contracts and the three grid sizes of an M share them (making them again was most
// of a smoke process's CPU: 1.6 s of user time alone on an H200's host, 0.5 s since).
struct SmokeInputs {
  Problem problem;
  std::map<Contract, ReferenceOutput> reference;  // by epilogue
};

SmokeInputs& smoke_inputs(int M, int group) {
  static std::map<std::pair<int, int>, SmokeInputs> made;
  const auto key = std::make_pair(M, group);
  auto it = made.find(key);
  if (it == made.end()) it = made.emplace(key, SmokeInputs{normal_problem(M, 512, 1024, group, 100 + M), {}}).first;
  return it->second;
}

const ReferenceOutput& smoke_reference(int M, int group, Contract epilogue) {
  SmokeInputs& in = smoke_inputs(M, group);
  auto it = in.reference.find(epilogue);
  if (it == in.reference.end())
    it = in.reference.emplace(epilogue, reference_gemm(in.problem.A, in.problem.w, epilogue, GemmPath::eigen)).first;
  return it->second;
}

class KernelSmoke : public ::testing::TestWithParam<SmokeParam> {};

TEST_P(KernelSmoke, MatchesTheReferenceWithinTheBound) {
  TC_REQUIRE_GPU();
  const auto& [config, contract, M, sms_param] = GetParam();
  const KernelPlugin& kernel = test_support::kernel_under_test();
  const int N = 512, K = 1024, group = config.group();
  const int sms = sms_param == kAllMultiprocessors ? device_multiprocessors() : sms_param;
  const Problem& p = smoke_inputs(M, group).problem;
  DeviceCase device(p.A, pack_weights(p.w.codes), permute_scales(p.w.scales, group), group, contract);
  Workspace workspace;
  Launch launch;
  launch.config = config;
  launch.sms = sms;
  const KernelRun run = device.run(kernel, launch, workspace);
  if (run.status.status == TC_ERR_UNSUPPORTED) GTEST_SKIP() << "n/a: " << run.status.message;
  ASSERT_TRUE(run.status.ok()) << "sms=" << sms << ": " << status_name(run.status.status) << ": " << run.status.message;
  // Judged as the suite judges: under the numerics the library declares for this problem (another
  // project's kernel may round its epilogue or split K its own way), the contract's otherwise.
  const KernelNumerics numerics = judged_numerics(run.declared, contract, std::nullopt);
  const ReferenceOutput& ref = smoke_reference(M, group, epilogue_contract(numerics.numerics.epilogue));
  const Expectation e =
      make_expectation(p.A, p.w, contract, numerics, ref, make_schedule({M, N, K, group}, config, sms),
                       {"normal_m" + std::to_string(M) + "n512k1024", "normal", 100u + M, "smoke", ""});
  EXPECT_PRED_FORMAT3(MatchesReferenceWithGuard, e, run.C, run.guard) << "sms=" << sms;
}

INSTANTIATE_TEST_SUITE_P(AllConfigs, KernelSmoke, ::testing::ValuesIn(smoke_params()),
                         [](const auto& test_info) { return smoke_name(test_info.param); });

// Invalid input must be rejected before anything runs: the output keeps its poison.
TEST(KernelApi, RejectsADirtyWorkspaceWithoutLaunching) {
  TC_REQUIRE_GPU();
  const KernelPlugin& kernel = test_support::kernel_under_test();
  const Problem p = normal_problem(16, 256, 256, 128, 7);
  DeviceCase device(p.A, pack_weights(p.w.codes), permute_scales(p.w.scales, 128), 128, Contract::fp32);
  Workspace workspace;
  Launch launch;
  launch.config = {1, 16, 4, 8};
  launch.sms = 4;
  ASSERT_TRUE(device.run(kernel, launch, workspace).status.ok());
  tc_problem q = device.problem(launch, workspace);
  DeviceBuffer dirty(1 << 20);
  dirty.zero();
  const int one = 1;
  dirty.upload(&one, sizeof one, 4 * sizeof(int));
  q.workspace = dirty.get();
  q.workspace_bytes = dirty.bytes();
  device.poison();
  const RunResult r = kernel.run(q);
  EXPECT_EQ(r.status, TC_ERR_WORKSPACE) << r.message;
  EXPECT_NE(r.message.find("lock 4 is 1"), std::string::npos) << r.message;
  std::vector<half_bits> c(16 * 256);  // nothing ran: C keeps its poison
  ASSERT_EQ(cudaMemcpy(c.data(), device.output(), c.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](half_bits b) { return b == kPoison; }));
}

}  // namespace
}  // namespace tc
