// Loading kernel libraries (plugin/src/plugin_loader.cpp): a library that cannot be loaded or does
// not implement the plugin ABI is refused naming the path and the missing symbol, and an optional
// extra that a library lacks is refused before any call. The optional numerics declaration
// (tc_plugin_numerics) and workspace layout (tc_plugin_workspace_layout, ABI 1.1) are read per
// problem and checked field by field.
#include "tilecheck/plugin/plugin_loader.h"

#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "load_error.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

using test_support::load_error;

TEST(KernelPlugin, LoadingAMissingLibraryNamesIt) {
  try {
    KernelPlugin::load("/nonexistent/libkernel.so");
    FAIL() << "loaded a missing library";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/libkernel.so"), std::string::npos) << e.what();
  }
}

// libm is on every glibc system and exports none of the plugin ABI.
TEST(KernelPlugin, ALibraryWithoutThePluginAbiIsRefusedNamingTheSymbol) {
  const std::string message = load_error("libm.so.6");
  EXPECT_NE(message.find("libm.so.6 does not export tc_plugin_info"), std::string::npos) << message;
}

// The dump extra exists only in the dump variants; asking another library for it is refused.
TEST(KernelPlugin, OurKernelLoadsWithItsTraceAndRefusesADumpItLacks) {
  const KernelPlugin& kernel = test_support::kernel_under_test();
  EXPECT_TRUE(kernel.can_trace());
  if (kernel.can_dump()) return;  // TC_KERNEL names a dump variant
  try {
    kernel.run_dump(tc_problem{}, 0, 0, nullptr);
    FAIL() << "run_dump called a library without tc_kernel_run_dump";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not export tc_kernel_run_dump"), std::string::npos) << e.what();
  }
}

tc_problem problem_with(int M, tc_contract contract) {
  tc_problem p{};
  p.abi_version = TC_PLUGIN_ABI_VERSION;
  p.M = M, p.N = 128, p.K = 1024, p.group = -1;
  p.contract = contract;
  p.sms = 1;  // resolved without asking a device
  return p;
}

TEST(KernelPlugin, ADeclaredNumericsIsReadPerProblem) {
  const KernelPlugin k = KernelPlugin::load(TC_NUMERICS_PLUGIN);
  ASSERT_TRUE(k.declares_numerics());
  KernelNumerics n;
  RunResult r = k.numerics(problem_with(16, TC_CONTRACT_MARLIN), n);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(n, (KernelNumerics{{Accumulator::fp32, Partials::fp32, Epilogue::round_then_scale}, ScheduleKind::unknown, 64}));
  r = k.numerics(problem_with(16, TC_CONTRACT_FP32), n);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(n, contract_default(Contract::fp32)) << "min_k_slice 0 (not known) is one MMA step, 16";
  r = k.numerics(problem_with(6, TC_CONTRACT_FP32), n);  // valid to declare; the judge refuses it
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(n.numerics.accumulator, Accumulator::fp16);
  r = k.numerics(problem_with(10, TC_CONTRACT_MARLIN), n);  // vLLM's 8-bit per-column epilogue
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(n.numerics.epilogue, Epilogue::scale_before_reduce);
}

TEST(KernelPlugin, ABadDeclarationNamesTheLibraryTheFieldAndItsValue) {
  const KernelPlugin k = KernelPlugin::load(TC_NUMERICS_PLUGIN);
  const std::pair<int, const char*> cases[] = {
      {2, "declares partials=7 (expected TC_PARTIALS_FP16=1 or TC_PARTIALS_FP32=2) for M=2 N=128 K=1024 group=-1"},
      {3,
       "declares epilogue=0 (expected TC_EPILOGUE_ROUND_THEN_SCALE=1, TC_EPILOGUE_SCALE_THEN_ROUND=2 or "
       "TC_EPILOGUE_SCALE_BEFORE_REDUCE=3)"},
      {11, "declares epilogue=4 (expected"},
      {4, "declares min_k_slice=24 (expected a multiple of 16 rows, or 0 when not known)"},
  };
  for (const auto& [M, words] : cases) {
    KernelNumerics n;
    const RunResult r = k.numerics(problem_with(M, TC_CONTRACT_MARLIN), n);
    EXPECT_EQ(r.status, TC_ERR_INVALID_ARGUMENT) << "M=" << M;
    EXPECT_NE(r.message.find(std::string("kernel library ") + TC_NUMERICS_PLUGIN), std::string::npos) << r.message;
    EXPECT_NE(r.message.find(words), std::string::npos) << r.message;
  }
  KernelNumerics n;
  const RunResult refused = k.numerics(problem_with(5, TC_CONTRACT_MARLIN), n);
  EXPECT_EQ(refused.status, TC_ERR_UNSUPPORTED);
  EXPECT_EQ(refused.message, "tc_plugin_numerics: no kernel for M=5");
}

// Without the optional symbol the library loads as before and says it declares nothing.
TEST(KernelPlugin, ALibraryWithoutTheDeclarationLoadsAndIsNotAskedForIt) {
  const KernelPlugin k = KernelPlugin::load(TC_NO_NUMERICS_PLUGIN);
  EXPECT_FALSE(k.declares_numerics());
  EXPECT_STREQ(k.info().name, "numerics-test");
  KernelNumerics n;
  try {
    k.numerics(problem_with(16, TC_CONTRACT_MARLIN), n);
    ADD_FAILURE() << "asked a library without tc_plugin_numerics for its numerics";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not export tc_plugin_numerics"), std::string::npos) << e.what();
  }
}

// ABI 1.1: a declared workspace layout is read per problem and checked against the workspace's size.
TEST(KernelPlugin, AWorkspaceLayoutIsReadAndCheckedPerProblem) {
  const KernelPlugin k = KernelPlugin::load(TC_NUMERICS_PLUGIN);
  ASSERT_TRUE(k.declares_workspace_layout());
  WorkspaceLayout l;
  RunResult r = k.workspace_layout(problem_with(16, TC_CONTRACT_MARLIN), 1024, l);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(l.declared);
  EXPECT_EQ(l.lock_offset, 0u);
  EXPECT_EQ(l.lock_bytes, 256u);
  EXPECT_EQ(l.scratch_offset, 256u);
  EXPECT_EQ(l.scratch_bytes, 768u);
  const std::pair<int, const char*> bad[] = {
      {7, "declares a workspace layout with scratch at bytes [256, +1000) outside its 1024-byte workspace for M=7"},
      {8, "declares a workspace layout with locks [0, +256) overlapping scratch [128, +768) for M=8"},
  };
  for (const auto& [M, words] : bad) {
    r = k.workspace_layout(problem_with(M, TC_CONTRACT_MARLIN), 1024, l);
    EXPECT_EQ(r.status, TC_ERR_INVALID_ARGUMENT) << "M=" << M;
    EXPECT_NE(r.message.find(std::string("kernel library ") + TC_NUMERICS_PLUGIN), std::string::npos) << r.message;
    EXPECT_NE(r.message.find(words), std::string::npos) << r.message;
  }
  r = k.workspace_layout(problem_with(16, TC_CONTRACT_MARLIN), 512, l);
  EXPECT_EQ(r.status, TC_ERR_INVALID_ARGUMENT) << "a layout larger than the workspace it describes";
  r = k.workspace_layout(problem_with(9, TC_CONTRACT_MARLIN), 1024, l);
  EXPECT_EQ(r.status, TC_ERR_UNSUPPORTED);
  EXPECT_EQ(r.message, "tc_plugin_workspace_layout: no layout for M=9");
}

// A 1.0 library (no tc_plugin_workspace_layout) loads; its whole workspace is locks.
TEST(KernelPlugin, AnUndeclaredWorkspaceIsAllLocks) {
  const KernelPlugin k = KernelPlugin::load(TC_NO_NUMERICS_PLUGIN);
  EXPECT_FALSE(k.declares_workspace_layout());
  WorkspaceLayout l;
  const RunResult r = k.workspace_layout(problem_with(16, TC_CONTRACT_MARLIN), 1024, l);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_FALSE(l.declared);
  EXPECT_EQ(l.lock_offset, 0u);
  EXPECT_EQ(l.lock_bytes, 1024u);
  EXPECT_EQ(l.scratch_bytes, 0u);
}

// Our kernel: one int lock per tile column and batched problem, then (fp32 contract) the partials.
TEST(KernelPlugin, OurKernelDeclaresItsLocksAndItsPartialSums) {
  const KernelPlugin& kernel = test_support::kernel_under_test();
  ASSERT_TRUE(kernel.declares_workspace_layout());
  for (tc_contract c : {TC_CONTRACT_MARLIN, TC_CONTRACT_FP32}) {
    tc_problem p = problem_with(16, c);
    p.config = {1, 8, 8, -1};
    std::size_t bytes = 0;
    ASSERT_TRUE(kernel.workspace_size(p, bytes).ok());
    WorkspaceLayout l;
    const RunResult r = kernel.workspace_layout(p, bytes, l);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(l.lock_offset, 0u);
    EXPECT_EQ(l.lock_bytes, 256u) << "1 column x 16 batched problems x 4 bytes, in 256-byte units";
    EXPECT_EQ(l.scratch_offset, l.lock_bytes);
    EXPECT_EQ(l.scratch_bytes, c == TC_CONTRACT_FP32 ? 1u * 16 * 128 * 4 : 0u) << "sms 1: one fp32 tile";
    EXPECT_EQ(l.lock_bytes + l.scratch_bytes, bytes);
  }
}

// Our kernel declares exactly its contract, on the striped schedule, in k-slices of its tile depth.
TEST(KernelPlugin, OurKernelDeclaresTheContractItRuns) {
  const KernelPlugin& kernel = test_support::kernel_under_test();
  ASSERT_TRUE(kernel.declares_numerics());
  for (Contract c : {Contract::marlin, Contract::fp32}) {
    tc_problem p = problem_with(16, c == Contract::marlin ? TC_CONTRACT_MARLIN : TC_CONTRACT_FP32);
    p.config = {1, 8, 8, -1};  // a 128-deep tile
    KernelNumerics n;
    const RunResult r = kernel.numerics(p, n);
    ASSERT_TRUE(r.ok()) << r.message;
    KernelNumerics want = contract_default(c);
    want.min_k_slice = 128;
    EXPECT_EQ(n, want) << name(n);
  }
}

TEST(KernelPlugin, StatusNamesAreTheAbiNames) {
  EXPECT_STREQ(status_name(TC_OK), "TC_OK");
  EXPECT_STREQ(status_name(TC_ERR_INVALID_ARGUMENT), "TC_ERR_INVALID_ARGUMENT");
  EXPECT_STREQ(status_name(TC_ERR_UNSUPPORTED), "TC_ERR_UNSUPPORTED");
  EXPECT_STREQ(status_name(TC_ERR_WORKSPACE), "TC_ERR_WORKSPACE");
  EXPECT_STREQ(status_name(TC_ERR_CUDA), "TC_ERR_CUDA");
  EXPECT_STREQ(status_name(static_cast<tc_status>(42)), "unknown status");
}

}  // namespace
}  // namespace tc
