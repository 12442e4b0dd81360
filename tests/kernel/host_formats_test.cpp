// Our library's formats (tc_plugin_formats) follow the build's options (TC_KERNEL_BF16,
// TC_KERNEL_ZERO_POINTS, compiled into this test as into the library), and its host API takes or
// refuses a problem of each format before touching the GPU: runs anywhere, with fake pointers.
// A zero-point (uint4) problem a build without the zero-point instances gets is refused by the
// library itself (called directly: through the loader it is not even called) with a reason that
// names the build option.
#include <dlfcn.h>

#include <string>

#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "tilecheck/plugin/formats.h"

#ifndef TC_KERNEL_BF16
#error "TC_KERNEL_BF16 is defined by tests/kernel/CMakeLists.txt"
#endif
#ifndef TC_KERNEL_ZERO_POINTS
#error "TC_KERNEL_ZERO_POINTS is defined by tests/kernel/CMakeLists.txt"
#endif

namespace tc {
namespace {

constexpr tc_format kFp16Uint4 = {TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, TC_WEIGHT_UINT4, 0, 1};
constexpr tc_format kBf16Uint4Act = {TC_DTYPE_BF16, TC_DTYPE_BF16, TC_DTYPE_BF16, TC_WEIGHT_UINT4, 1, 1};

// The library under test is the one this build made, so the options above describe it ($TC_KERNEL
// may name another; then there is nothing to check here).
const KernelPlugin* our_library() {
  const KernelPlugin& kernel = test_support::kernel_under_test();
  const bool ours =
      std::string(kernel.info().name) == "tilecheck-marlin" && std::string(kernel.info().variant) == "upstream";
  return ours ? &kernel : nullptr;
}

#define TC_REQUIRE_OUR_LIBRARY(kernel)        \
  const KernelPlugin* kernel = our_library(); \
  if (kernel == nullptr) GTEST_SKIP() << "TC_KERNEL names another library than this build's upstream"

tc_problem problem_of(const tc_format& format, int group) {
  alignas(16) static char fake[64];
  tc_problem q{};
  q.abi_version = TC_PLUGIN_ABI_VERSION;
  q.M = 16, q.N = 256, q.K = 512, q.group = group;
  q.contract = TC_CONTRACT_FP32;
  q.A = q.B = q.scales = q.zero_points = fake;
  q.C = fake;
  q.workspace = fake;
  q.workspace_bytes = 1 << 30;
  q.sms = 4;
  q.config = {1, 16, 4, group > 0 ? group / 16 : -1};
  q.format = format;
  q.bits = 4;
  q.num_groups = group > 0 ? q.K / group : 1;
  if (format.act_order) q.g_idx = q.perm = fake;
  return q;
}

TEST(KernelFormats, ListsTheFormatsOfItsBuild) {
  TC_REQUIRE_OUR_LIBRARY(kernel);
  std::string expected = "fp16-uint4b8, fp16-uint4b8-act";
  if (TC_KERNEL_BF16) expected += ", bf16-uint4b8, bf16-uint4b8-act";
  if (TC_KERNEL_ZERO_POINTS) expected += ", fp16-uint4, fp16-uint4-act";
  if (TC_KERNEL_ZERO_POINTS && TC_KERNEL_BF16) expected += ", bf16-uint4, bf16-uint4-act";
  EXPECT_TRUE(kernel->declares_formats());
  EXPECT_EQ(format_names(kernel->formats()), expected);
}

#if TC_KERNEL_ZERO_POINTS

// Grouped and per-column: the same workspace as uint4b8 (zero points add nothing to it).
TEST(KernelFormats, SizesAZeroPointProblemAsItsUint4b8Twin) {
  TC_REQUIRE_OUR_LIBRARY(kernel);
  for (const int group : {32, 64, 128, -1}) {
    size_t uint4 = 0, uint4b8 = 0;
    ASSERT_TRUE(kernel->workspace_size(problem_of(kFp16Uint4, group), uint4).ok()) << group;
    ASSERT_TRUE(kernel->workspace_size(problem_of(abi_v1_format(), group), uint4b8).ok()) << group;
    EXPECT_EQ(uint4, uint4b8) << "group " << group;
  }
  if (TC_KERNEL_BF16) {
    size_t bytes = 0;
    const RunResult r = kernel->workspace_size(problem_of(kBf16Uint4Act, 128), bytes);
    EXPECT_TRUE(r.ok()) << r.message;
  }
}

TEST(KernelFormats, RefusesAZeroPointProblemWithoutUsableZeroPoints) {
  TC_REQUIRE_OUR_LIBRARY(kernel);
  tc_problem missing = problem_of(kFp16Uint4, 128);
  missing.zero_points = nullptr;
  RunResult r = kernel->run(missing);
  EXPECT_EQ(r.status, TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(r.message.find("zero_points is NULL"), std::string::npos) << r.message;
  tc_problem misaligned = problem_of(kFp16Uint4, -1);
  misaligned.zero_points = static_cast<const char*>(misaligned.zero_points) + 4;
  r = kernel->run(misaligned);
  EXPECT_EQ(r.status, TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(r.message.find("not 16-byte aligned"), std::string::npos) << r.message;
}

#else

TEST(KernelFormats, RefusesAZeroPointProblemNamingTheBuildOption) {
  TC_REQUIRE_OUR_LIBRARY(kernel);
  size_t bytes = 0;
  const RunResult through_loader = kernel->workspace_size(problem_of(kFp16Uint4, 128), bytes);
  EXPECT_EQ(through_loader.status, TC_ERR_UNSUPPORTED);
  EXPECT_NE(through_loader.message.find("does not list format fp16-uint4"), std::string::npos)
      << through_loader.message;

  void* handle = dlopen(kernel->path().c_str(), RTLD_NOW | RTLD_LOCAL);  // the loader's, already open
  ASSERT_NE(handle, nullptr) << dlerror();
  const auto workspace_size =
      reinterpret_cast<decltype(&tc_plugin_workspace_size)>(dlsym(handle, "tc_plugin_workspace_size"));
  ASSERT_NE(workspace_size, nullptr);
  const tc_problem q = problem_of(kFp16Uint4, 128);
  char message[512] = {0};
  EXPECT_EQ(workspace_size(&q, &bytes, message, sizeof message), TC_ERR_UNSUPPORTED);
  EXPECT_NE(std::string(message).find("weight_type=2"), std::string::npos) << message;
  EXPECT_NE(std::string(message).find("-DTC_KERNEL_ZERO_POINTS=ON"), std::string::npos) << message;
  dlclose(handle);
}

#endif

}  // namespace
}  // namespace tc
