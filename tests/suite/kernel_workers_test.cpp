// KernelWorkers (tilecheck/suite/kernel_workers.h) without a GPU: its options are checked, and a
// worker that cannot start says why (the GPU tests drive the fault policy on the misbehaving kit).
#include "tilecheck/suite/kernel_workers.h"

#include <gtest/gtest.h>

#include "tilecheck/reference/error.h"

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
