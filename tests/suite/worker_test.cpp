// Worker processes (tilecheck/suite/worker.h): the messages round-trip, and a worker that cannot
// start or dies says why. Runs without a GPU; the GPU tests drive real runs through workers.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/interrupt.h"
#include "tilecheck/suite/worker.h"
#include "tilecheck/suite/worker_messages.h"
#include "tilecheck/suite/worker_pipe.h"

namespace tc {
namespace {

using worker::Message;

TEST(WorkerMessages, InfoRoundTrips) {
  const WorkerInfo info{"k", "v", {{1, 8, 8, -1}, {4, 16, 4, 8}}, "NVIDIA H200, 132 SMs", 132};
  Message m = worker::encode_info(info);
  Message back(m.bytes());
  const WorkerInfo got = worker::decode_info(back);
  EXPECT_EQ(got.kernel_name, "k");
  EXPECT_EQ(got.variant, "v");
  EXPECT_EQ(got.configs, info.configs);
  EXPECT_EQ(got.device, info.device);
  EXPECT_EQ(got.multiprocessors, 132);
}

TEST(WorkerMessages, CaseAndLaunchRoundTrip) {
  HalfMatrix A(3, 32), scales(1, 64);
  PackedMatrix B(2, 128);
  for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = static_cast<half_bits>(i * 7);
  for (Eigen::Index i = 0; i < B.size(); ++i) B.data()[i] = static_cast<std::int32_t>(i * 1000003);
  for (Eigen::Index i = 0; i < scales.size(); ++i) scales.data()[i] = static_cast<half_bits>(0x3c00 + i);
  Message m = worker::encode_case(A, B, scales, -1, Contract::marlin);
  Message back(m.bytes());
  const worker::CaseInputs c = worker::decode_case(back);
  EXPECT_EQ(c.group, -1);
  EXPECT_EQ(c.contract, Contract::marlin);
  EXPECT_EQ(c.A, A);
  EXPECT_EQ(c.B, B);
  EXPECT_EQ(c.scales, scales);

  Launch l;
  l.config = {2, 16, 4, 8};
  l.sms = 7;
  l.max_par = 3;
  l.flags = 1;
  Message lm = worker::encode_launch(l);
  Message lback(lm.bytes());
  const Launch got = worker::decode_launch(lback);
  EXPECT_EQ(got.config, l.config);
  EXPECT_EQ(got.sms, 7);
  EXPECT_EQ(got.max_par, 3);
  EXPECT_EQ(got.flags, 1u);
  EXPECT_EQ(got.stream, nullptr);
}

TEST(WorkerMessages, ResultRoundTrips) {
  KernelRun r;
  r.status = {TC_ERR_CUDA, "FAULT: cudaErrorLaunchFailure: unspecified launch failure"};
  r.fault = true;
  r.C = HalfMatrix::Constant(2, 3, 0x3c00);
  r.guard.cells = 64;
  r.guard.written = {{-1, 2, 0x1234}, {2, 0, 0x4321}};
  Message m = worker::encode_result(r);
  Message back(m.bytes());
  const KernelRun got = worker::decode_result(back);
  EXPECT_EQ(got.status.status, TC_ERR_CUDA);
  EXPECT_EQ(got.status.message, r.status.message);
  EXPECT_TRUE(got.fault);
  EXPECT_EQ(got.C, r.C);
  EXPECT_EQ(got.guard.cells, 64);
  ASSERT_EQ(got.guard.written.size(), 2u);
  EXPECT_EQ(got.guard.written[1].row, 2);
  EXPECT_EQ(got.guard.written[1].bits, 0x4321);
}

TEST(WorkerMessages, ADeclaredNumericsCrossesAndABadOneIsRefused) {
  KernelRun r;
  r.declared = KernelNumerics{{Accumulator::fp32, Partials::fp32, Epilogue::round_then_scale}, ScheduleKind::unknown, 64};
  Message m = worker::encode_result(r);
  Message back(m.bytes());
  const KernelRun got = worker::decode_result(back);
  ASSERT_TRUE(got.declared.has_value());
  EXPECT_EQ(*got.declared, *r.declared);
  Message none = worker::encode_result(KernelRun{});
  Message none_back(none.bytes());
  EXPECT_FALSE(worker::decode_result(none_back).declared.has_value());
  // A declaration near the end of a result, as put_numerics writes it, with schedule 3.
  std::vector<char> bytes = none.bytes();
  bytes.resize(bytes.size() - 1 - sizeof(std::uint64_t));  // "no declaration", then an empty workspace finding
  Message bad(bytes);
  bad.put<std::uint8_t>(1);
  for (std::int32_t field : {1, 2, 1, 3, 64}) bad.put<std::int32_t>(field);
  bad.put_string("");
  try {
    worker::decode_result(bad);
    ADD_FAILURE() << "decoded schedule=3";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("schedule=3"), std::string::npos) << e.what();
  }
  WorkerInfo info;
  info.declares_numerics = true;
  Message i = worker::encode_info(info);
  Message i_back(i.bytes());
  EXPECT_TRUE(worker::decode_info(i_back).declares_numerics);
}

// What the workspace check found after a launch travels with the result.
TEST(WorkerMessages, TheWorkspaceFindingCrosses) {
  KernelRun r;
  r.workspace = "workspace: lock 3 (workspace byte 12) left at 1";
  Message m = worker::encode_result(r);
  Message back(m.bytes());
  EXPECT_EQ(worker::decode_result(back).workspace, r.workspace);
}

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

TEST(WorkerMessages, ATruncatedMessageIsAnErrorNotAnOverread) {
  Message m = worker::encode_result(KernelRun{});
  std::vector<char> cut = m.bytes();
  cut.resize(cut.size() / 2);
  Message back(cut);
  EXPECT_THROW(worker::decode_result(back), Error);
}

TEST(WorkerProcess, AWorkerThatCrashesSaysWhichSignalAndWhichLibrary) {
  try {
    WorkerProcess w(TC_TILECHECK, TC_CRASH_PLUGIN, 0);
    FAIL() << "a worker whose plugin crashes in tc_plugin_info started";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("signal 11"), std::string::npos) << text;
    EXPECT_NE(text.find("libtc_test_crash_plugin.so"), std::string::npos) << text;
  }
}

TEST(WorkerProcess, StartsWhereThereIsAGpuAndSaysWhyNotElsewhere) {
  int count = 0;
  const bool gpu = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  if (gpu) {
    WorkerProcess w(TC_TILECHECK, TC_DEFAULT_KERNEL, 0);
    EXPECT_TRUE(w.alive());
    EXPECT_EQ(w.info().configs.size(), 32u);
    EXPECT_GT(w.info().multiprocessors, 0);
    return;
  }
  try {
    WorkerProcess w(TC_TILECHECK, TC_DEFAULT_KERNEL, 0);
    FAIL() << "a worker started on a machine without a GPU";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("did not start"), std::string::npos) << text;
    EXPECT_NE(text.find("CUDA"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace tc
