// run_child (tilecheck/suite/child_run.h): what a child printed, how it ended, and the deadline.
#include "tilecheck/suite/child_run.h"

#include <csignal>

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"

namespace tc {
namespace {

TEST(ChildRun, CapturesBothStreamsAndTheExitCode) {
  const ChildResult r = run_child({"/bin/sh", "-c", "echo to-out; echo to-err >&2; exit 3"}, 10);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.out, "to-out\n");
  EXPECT_EQ(r.err, "to-err\n");
}

TEST(ChildRun, ADeathBySignalIsReportedAsTheSignal) {
  const ChildResult r = run_child({"/bin/sh", "-c", "kill -SEGV $$"}, 10);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_FALSE(r.timed_out);
}

TEST(ChildRun, AChildPastItsDeadlineIsKilledAndSaysSo) {
  const ChildResult r = run_child({"/bin/sh", "-c", "echo started; exec sleep 30"}, 0.5);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_EQ(r.out, "started\n") << "what it printed before the deadline is kept";
}

TEST(ChildRun, AProgramThatDoesNotExistIsAnError) {
  EXPECT_THROW(run_child({"/no/such/program"}, 1), Error);
}

}  // namespace
}  // namespace tc
