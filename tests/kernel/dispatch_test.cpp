// The dispatch (kernel/src/dispatch.cu, kernel_table.h) through the plugin ABI: every configuration
// of the library's list has a kernel in every format the library lists, the plugin reports exactly
// the list, and a configuration outside it is refused naming the ones that are built. Sizing the
// workspace resolves the configuration to its kernel without launching, so these run without a GPU.
#include <string>

#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "tilecheck/kernel/configs.h"

namespace tc {
namespace {

tc_problem problem_for(const TileConfig& c, const tc_format& format = tc_format{}) {
  alignas(16) static char fake[64];
  tc_problem q{};
  q.abi_version = TC_PLUGIN_ABI_VERSION;
  q.M = 16 * c.m_blocks, q.N = 256, q.K = 512, q.group = c.group();  // fits both tiles and every group
  q.contract = TC_CONTRACT_MARLIN;
  q.A = q.B = q.scales = fake;
  q.C = q.workspace = fake;
  q.workspace_bytes = 1 << 20;
  q.sms = 4;  // not 0: that would ask the device for its multiprocessor count
  q.config = {c.m_blocks, c.n_blocks, c.k_blocks, c.group_blocks};
  q.format = format;  // all zero: ABI 1's fp16 / uint4b8
  q.bits = weight_bits(format.weight_type);
  q.num_groups = c.group_blocks > 0 ? q.K / c.group() : 1;
  if (format.weight_type == TC_WEIGHT_UINT4) q.zero_points = fake;
  if (format.act_order) q.g_idx = q.perm = fake;
  return q;
}

TEST(KernelDispatch, EveryListedConfigurationHasAKernel) {
  const KernelPlugin& kernel = test_support::kernel_under_test();
  for (const TileConfig& c : kLibraryConfigs) {
    size_t bytes = 0;
    const RunResult r = kernel.workspace_size(problem_for(c), bytes);
    EXPECT_TRUE(r.ok()) << name(c) << ": " << status_name(r.status) << ": " << r.message;
  }
}

TEST(KernelDispatch, EveryListedConfigurationHasAKernelInEveryListedFormat) {
  const KernelPlugin& kernel = test_support::kernel_under_test();
  for (const tc_format& f : kernel.formats())
    for (const TileConfig& c : kLibraryConfigs) {
      size_t bytes = 0;
      const RunResult r = kernel.workspace_size(problem_for(c, f), bytes);
      EXPECT_TRUE(r.ok()) << format_name(f) << " " << name(c) << ": " << status_name(r.status) << ": " << r.message;
    }
}

TEST(KernelDispatch, PluginReportsTheListInOrder) {
  const std::vector<TileConfig> reported = test_support::kernel_under_test().configs();
  ASSERT_EQ(reported.size(), kLibraryConfigs.size());
  for (size_t i = 0; i < reported.size(); ++i) EXPECT_EQ(reported[i], kLibraryConfigs[i]) << i;
}

TEST(KernelDispatch, UnlistedConfigurationIsRefusedNamingTheBuiltOnes) {
  const TileConfig unlisted{1, 4, 16, 8};  // a valid 64x256 tile that the library does not build
  size_t bytes = 0;
  const RunResult r = test_support::kernel_under_test().workspace_size(problem_for(unlisted), bytes);
  EXPECT_EQ(r.status, TC_ERR_UNSUPPORTED) << r.message;
  EXPECT_NE(r.message.find("no kernel is built for config m1n4k16g8"), std::string::npos) << r.message;
  for (const TileConfig& c : kLibraryConfigs) EXPECT_NE(r.message.find(name(c)), std::string::npos) << name(c);
}

}  // namespace
}  // namespace tc
