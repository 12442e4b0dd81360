// A process that runs many cases reports to ctest what happened to all of them: Failed if any case
// failed (also when others skipped), Skipped only if every case skipped, Passed otherwise. ctest runs
// the probe (exit_status_probe.cpp) with the GPU matrix's own test properties.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "common/run_command.h"

namespace {

std::string ctest_output() {
  const std::filesystem::path scratch = std::filesystem::temp_directory_path() / "tc_gtest_main_test";
  std::filesystem::create_directories(scratch);
  return tc::test_support::run_command(std::string(TC_CTEST) + " --test-dir " + TC_PROBE_DIR, scratch).out;
}

// ctest's line for `test`: "... probe.<test> ....   Passed" etc.
bool reported(const std::string& out, const std::string& test, const std::string& verdict) {
  return std::regex_search(out, std::regex("probe\\." + test + " \\.+\\** *" + verdict));
}

TEST(CellProcessExitStatus, OneFailureAmongSkipsIsFailed) {
  const std::string out = ctest_output();
  EXPECT_TRUE(reported(out, "skip_and_fail", "Failed")) << out;
}

TEST(CellProcessExitStatus, OnlySkipsIsSkipped) {
  const std::string out = ctest_output();
  EXPECT_TRUE(reported(out, "all_skipped", "Skipped")) << out;
}

TEST(CellProcessExitStatus, AProcessThatRanNoCaseIsSkippedNotPassed) {
  const std::string out = ctest_output();
  EXPECT_TRUE(reported(out, "no_test", "Skipped")) << out;
}

TEST(CellProcessExitStatus, PassesAmongSkipsIsPassed) {
  const std::string out = ctest_output();
  EXPECT_TRUE(reported(out, "skip_and_pass", "Passed")) << out;
}

}  // namespace
