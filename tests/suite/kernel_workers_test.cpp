// KernelWorkers (tilecheck/suite/kernel_workers.h) without a GPU: its options are checked, a worker
// that cannot start says why, and the policy that makes every run end (fault limit, hang budget,
// adaptive watchdog) decides as documented. The GPU tests drive it on the misbehaving kit.
#include "tilecheck/suite/kernel_workers.h"

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"

namespace tc {
namespace {

KernelWorkersOptions options(const std::string& kernel) {
  KernelWorkersOptions o;
  o.executable = TC_TILECHECK;
  o.kernel = kernel;
  o.devices = {0};
  return o;
}

TEST(KernelWorkers, RefusesOptionsThatCannotWork) {
  KernelWorkersOptions none = options(TC_CRASH_PLUGIN);
  none.devices.clear();
  EXPECT_THROW(KernelWorkers{none}, Error);
  KernelWorkersOptions zero = options(TC_CRASH_PLUGIN);
  zero.fault_limit = 0;
  EXPECT_THROW(KernelWorkers{zero}, Error);
  KernelWorkersOptions negative = options(TC_CRASH_PLUGIN);
  negative.cell_timeout = -1;
  EXPECT_THROW(KernelWorkers{negative}, Error);
  KernelWorkersOptions no_hangs = options(TC_CRASH_PLUGIN);
  no_hangs.hang_limit = 0;
  EXPECT_THROW(KernelWorkers{no_hangs}, Error);
}

// Faults in a row give a configuration up at the fault limit (a result in between resets the run);
// hangs count whether or not they are consecutive, up to the hang budget; configurations are apart.
TEST(ConfigBudget, TheFaultLimitCountsInARowAndTheHangBudgetAllHangs) {
  ConfigBudget b(3, 2);
  std::string why;
  bool hang = false;
  b.count("m1n8k8g8", true, false);
  b.count("m1n8k8g8", true, false);
  b.count("m1n8k8g8", false, false);  // a result: the run of faults starts again
  b.count("m1n8k8g8", true, false);
  b.count("m1n8k8g8", true, false);
  EXPECT_FALSE(b.given_up("m1n8k8g8", why, hang)) << why;
  b.count("m1n8k8g8", true, false);
  ASSERT_TRUE(b.given_up("m1n8k8g8", why, hang));
  EXPECT_FALSE(hang);
  EXPECT_EQ(why, "not run: configuration m1n8k8g8 faulted 3 times in a row");

  b.count("m2n16k4g8", true, true);
  b.count("m2n16k4g8", false, false);
  b.count("m2n16k4g8", false, false);
  EXPECT_FALSE(b.given_up("m2n16k4g8", why, hang));
  b.count("m2n16k4g8", true, true);  // the second hang, not in a row: the budget is spent
  ASSERT_TRUE(b.given_up("m2n16k4g8", why, hang));
  EXPECT_TRUE(hang);
  EXPECT_EQ(why, "not run: configuration m2n16k4g8 hung 2 times");
  EXPECT_FALSE(b.given_up("m1n16k4g8", why, hang)) << "a configuration never seen";
}

// The watchdog: the cap before anything completed; then max(5 s, 20 x what the slowest completed
// cell predicts at this cell's size), from the configuration's own cells, or the library's other
// configurations' until it has some; never above the cap.
TEST(WatchdogTimes, AdaptsToCompletedCellsWithAFloorAndACap) {
  WatchdogTimes t;
  EXPECT_EQ(t.timeout("m1n8k8g8", 1e6, 30), 30) << "nothing completed: the cap";
  EXPECT_NE(t.explain("m1n8k8g8", 1e6, 30).find("no cell of this library had completed"), std::string::npos);
  t.completed("m1n8k8g8", 0.004, 1e6);
  EXPECT_EQ(t.timeout("m1n8k8g8", 1e6, 30), WatchdogTimes::kFloor) << "20 x 4 ms is under the floor";
  EXPECT_EQ(t.timeout("m2n16k4g8", 1e6, 30), WatchdogTimes::kFloor) << "another configuration's cells, until its own";
  EXPECT_DOUBLE_EQ(t.timeout("m1n8k8g8", 1e8, 30), 20 * 0.4) << "a cell 100 times larger: scaled";
  EXPECT_DOUBLE_EQ(t.timeout("m1n8k8g8", 1e10, 30), 30) << "capped";
  EXPECT_NE(t.explain("m1n8k8g8", 1e8, 30).find("predicted from m1n8k8g8's completed cells"), std::string::npos)
      << t.explain("m1n8k8g8", 1e8, 30);
  t.completed("m2n16k4g8", 0.5, 1e6);  // a slow configuration does not slow another one's watchdog
  EXPECT_DOUBLE_EQ(t.timeout("m2n16k4g8", 1e6, 30), 10);
  EXPECT_EQ(t.timeout("m1n8k8g8", 1e6, 30), WatchdogTimes::kFloor);
  EXPECT_DOUBLE_EQ(t.timeout("m4n16k4g8", 1e6, 30), 10) << "an unseen configuration: the library's slowest";
}

TEST(KernelWorkers, AWorkerThatDiesAtStartNamesItsSignal) {
  try {
    KernelWorkers w(options(TC_CRASH_PLUGIN));
    FAIL() << "workers started with a plugin that crashes when asked for its description";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("signal 11"), std::string::npos) << e.what();
  }
}

TEST(KernelWorkers, TheWatchdogDefaultGrowsWithTheWork) {
  EXPECT_GE(default_cell_timeout(1, 128, 128), 30.0);
  EXPECT_GT(default_cell_timeout(2048, 28672, 8192), default_cell_timeout(16, 28672, 8192));
}

}  // namespace
}  // namespace tc
