// A kernel plugin that crashes takes its process down (a worker: tilecheck/suite/worker.h), but not
// silently: the crash report names the signal and the library with the offset of the faulting
// frame, and the process still dies of the signal (so its parent, ctest and shells see a crash).
#include <csignal>
#include <filesystem>

#include <gtest/gtest.h>

#include "common/run_command.h"

namespace tc {
namespace {

TEST(CrashReport, APluginCrashNamesTheSignalAndTheLibrary) {
  const std::filesystem::path scratch = std::filesystem::path(::testing::TempDir()) / "tilecheck_crash_report";
  std::filesystem::create_directories(scratch);
  const test_support::CommandResult r =
      test_support::run_command(std::string(TC_TILECHECK) + " worker --kernel " + TC_CRASH_PLUGIN + " </dev/null", scratch);
  // popen's shell reports a death by signal as 128 + the signal
  EXPECT_TRUE(r.code == 128 + SIGSEGV || r.code == -1) << "tilecheck must die of the signal, not exit " << r.code
                                                       << "; stderr:\n" << r.err;
  EXPECT_NE(r.err.find("tilecheck: fatal signal Segmentation fault"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::filesystem::path(TC_CRASH_PLUGIN).filename().string() + "(tc_plugin_info+0x"),
            std::string::npos)
      << "the faulting frame names the plugin and its function:\n"
      << r.err;
}

}  // namespace
}  // namespace tc
