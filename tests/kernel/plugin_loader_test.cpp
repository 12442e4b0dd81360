// Loading kernel libraries (kernel/src/plugin_loader.cpp): a library that cannot be loaded or does
// not implement the plugin ABI is refused naming the path and the missing symbol, and an optional
// extra that a library lacks is refused before any call.
#include "tilecheck/kernel/plugin_loader.h"

#include <string>

#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "tilecheck/reference/error.h"

namespace tc {
namespace {

std::string load_error(const std::string& path) {
  try {
    KernelPlugin::load(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "loaded";
}

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
