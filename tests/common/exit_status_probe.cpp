// A test program for tests/common/gtest_main.cpp's exit status: which of its tests skip, fail or
// pass is chosen with --gtest_filter (ctest_exit_status_test.cpp runs it under ctest).
#include <gtest/gtest.h>

TEST(Probe, Skips) { GTEST_SKIP() << "a cell that does not apply"; }
TEST(Probe, AlsoSkips) { GTEST_SKIP() << "another cell that does not apply"; }
TEST(Probe, Fails) { FAIL() << "a cell with a wrong output"; }
TEST(Probe, Passes) { SUCCEED(); }
