// The worker pipe (tilecheck/suite/worker_pipe.h) and a run's interruption (tilecheck/suite/
// interrupt.h): waits end when the run is interrupted, a stream read from the middle of a frame
// allocates only what arrives, and the signal handlers are the scope's only. No GPU needed.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "tilecheck/suite/interrupt.h"
#include "tilecheck/suite/worker_pipe.h"

namespace tc {
namespace {

using worker::Message;

// A run's interruption (SIGINT/SIGTERM under an InterruptScope) ends a wait on a worker that never
// answers within 0.1 s, as "interrupted", not as a timeout or a hang.
TEST(WorkerPipe, AnInterruptionEndsAWaitOnASilentWorker) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  worker::Frame type{};
  Message m;
  request_interrupt(SIGINT);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(worker::read_frame(fds[0], type, m, 30, -1, nullptr, true), worker::ReadStatus::interrupted);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(worker::read_frame(fds[0], type, m, 0.05, -1, nullptr, false), worker::ReadStatus::timed_out)
      << "a wait that is not interruptible runs to its deadline";
  clear_interrupt();
  EXPECT_EQ(worker::read_frame(fds[0], type, m, 0.05, -1, nullptr, true), worker::ReadStatus::timed_out);
  ::close(fds[0]);
  ::close(fds[1]);
}

// A stream read from the middle of a frame (after an interrupted or timed-out read) has garbage for
// a header: a length of 1 TB with a few bytes behind it ends as "closed" when the writer closes,
// allocating as the bytes arrive (the parent was once OOM-killed at 130 GB); drain() discards such a
// stream whole and keeps the stderr written beside it.
TEST(WorkerPipe, AGarbageLengthAllocatesOnlyWhatArrives) {
  const auto garbage_stream = [](int fd) {
    unsigned char header[16] = {};
    const std::uint64_t length = std::uint64_t{1} << 40;
    std::memcpy(header + 8, &length, sizeof length);
    ASSERT_EQ(::write(fd, header, sizeof header), 16);
    ASSERT_EQ(::write(fd, "0123456789", 10), 10);
    ::close(fd);
  };
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  garbage_stream(out[1]);
  worker::Frame type{};
  Message m;
  EXPECT_EQ(worker::read_frame(out[0], type, m, 5), worker::ReadStatus::closed);
  ::close(out[0]);

  int err[2];
  ASSERT_EQ(::pipe(out), 0);
  ASSERT_EQ(::pipe(err), 0);
  ASSERT_EQ(::write(err[1], "last words", 10), 10);
  ::close(err[1]);
  garbage_stream(out[1]);
  std::string tail;
  const auto start = std::chrono::steady_clock::now();
  worker::drain(out[0], 5, err[0], &tail);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2)) << "a closed stream ends the drain";
  EXPECT_EQ(tail, "last words");
  ::close(out[0]);
  ::close(err[0]);
}

// The signal handlers of an InterruptScope only set the flag; outside the scope the old ones are back.
TEST(InterruptScope, ASignalSetsTheFlagAndTheScopeRestoresTheHandlers) {
  struct sigaction before {};
  ASSERT_EQ(sigaction(SIGTERM, nullptr, &before), 0);
  {
    InterruptScope scope;
    ASSERT_FALSE(interrupt_requested());
    std::raise(SIGTERM);  // would end the test program without the scope
    EXPECT_TRUE(interrupt_requested());
    EXPECT_EQ(interrupt_signal(), SIGTERM);
  }
  clear_interrupt();
  struct sigaction after {};
  ASSERT_EQ(sigaction(SIGTERM, nullptr, &after), 0);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

}  // namespace
}  // namespace tc
