// Worker processes (tilecheck/suite/worker.h): the messages round-trip, and a worker that cannot
// start or dies says why. Runs without a GPU; the GPU tests drive real runs through workers.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include "tilecheck/core/error.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/suite/kernel_operands.h"
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
  KernelOperands ops;
  ops.shape = {3, 64, 32, -1};
  ops.contract = Contract::marlin;
  HalfMatrix& A = ops.A;
  HalfMatrix& scales = ops.scales;
  PackedMatrix& B = ops.B;
  A.resize(3, 32);
  scales.resize(1, 64);
  B.resize(2, 128);
  for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = static_cast<half_bits>(i * 7);
  for (Eigen::Index i = 0; i < B.size(); ++i) B.data()[i] = static_cast<std::int32_t>(i * 1000003);
  for (Eigen::Index i = 0; i < scales.size(); ++i) scales.data()[i] = static_cast<half_bits>(0x3c00 + i);
  Message m = worker::encode_case(ops);
  Message back(m.bytes());
  const KernelOperands c = worker::decode_case(back);
  EXPECT_EQ(c.shape.group, -1);
  EXPECT_EQ(c.contract, Contract::marlin);
  EXPECT_EQ(c.format, FixtureFormat{});
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

// Every value of each enum crosses: a run on the H200 ended in std::terminate when a library declared
// the third epilogue (scale_before_reduce) and the reader still accepted only two values.
TEST(WorkerMessages, EveryDeclarableNumericsCrosses) {
  for (const Accumulator a : {Accumulator::fp32, Accumulator::fp16})
    for (const Partials p : {Partials::fp16, Partials::fp32})
      for (const Epilogue e : {Epilogue::round_then_scale, Epilogue::scale_then_round, Epilogue::scale_before_reduce})
        for (const ScheduleKind k : {ScheduleKind::model, ScheduleKind::unknown}) {
          KernelRun r;
          r.declared = KernelNumerics{{a, p, e}, k, 32};
          Message m = worker::encode_result(r);
          Message back(m.bytes());
          const KernelRun got = worker::decode_result(back);
          ASSERT_TRUE(got.declared.has_value());
          EXPECT_EQ(*got.declared, *r.declared) << name(r.declared->numerics);
        }
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

// Every format's operands cross to the worker as kernel_operands laid them out: shape, contract,
// format, A, B (4- or 8-bit packed), scales, zero points, g_idx and perm.
class CaseOfEachFormat : public ::testing::TestWithParam<const char*> {};

KernelOperands operands_of(const std::string& format, Contract contract = Contract::fp32) {
  return kernel_operands(make_fixture(
      CaseSpec("t", Shape{16, 128, 256, 64}, contract, Distribution::normal, 31, parse_format(format))));
}

TEST_P(CaseOfEachFormat, RoundTrips) {
  const KernelOperands ops = operands_of(GetParam());
  Message m = worker::encode_case(ops);
  Message back(m.bytes());
  const KernelOperands got = worker::decode_case(back);
  EXPECT_TRUE(got.shape.M == 16 && got.shape.N == 128 && got.shape.K == 256 && got.shape.group == 64);
  EXPECT_EQ(got.contract, Contract::fp32);
  EXPECT_EQ(got.format, ops.format);
  EXPECT_EQ(name(got.format), GetParam());
  EXPECT_EQ(got.A, ops.A);
  EXPECT_EQ(got.B, ops.B);
  EXPECT_EQ(got.scales, ops.scales);
  EXPECT_EQ(got.zero_points, ops.zero_points);
  EXPECT_EQ(got.g_idx, ops.g_idx);
  EXPECT_EQ(got.perm, ops.perm);
  EXPECT_EQ(got.zero_points.size() > 0, has_zero_points(ops.format.weights));
  EXPECT_EQ(got.perm.empty(), ops.format.act_order == ActOrder::none);
}

std::string format_test_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Formats, CaseOfEachFormat,
                         ::testing::Values("fp16-uint4b8", "bf16-uint4b8", "fp16-uint4", "bf16-uint4",
                                           "fp16-uint8b128", "bf16-uint8b128", "fp16-uint4b8-actrandom",
                                           "fp16-uint4b8-actworst-kpart", "bf16-uint4-actrandom",
                                           "fp16-uint8b128-actworst-kpart"),
                         format_test_name);

std::string decode_error(const Message& m) {
  Message back(m.bytes());
  try {
    worker::decode_case(back);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A case whose buffers do not fit its format is refused naming the buffer, before any upload.
TEST(WorkerMessages, ACaseWhoseBuffersDoNotFitItsFormatIsRefusedNamingTheBuffer) {
  KernelOperands zp = operands_of("bf16-uint4");
  zp.zero_points.resize(0, 0);
  EXPECT_NE(decode_error(worker::encode_case(zp)).find("zero points is (0, 0); format bf16-uint4 needs (4, 16)"),
            std::string::npos)
      << decode_error(worker::encode_case(zp));
  KernelOperands act = operands_of("fp16-uint4b8-actrandom");
  act.g_idx.pop_back();
  EXPECT_NE(decode_error(worker::encode_case(act)).find("g_idx and perm have 255 and 256 entries"), std::string::npos)
      << decode_error(worker::encode_case(act));
  KernelOperands eight = operands_of("fp16-uint8b128");
  eight.format = FixtureFormat{};  // 8-bit codes sent as a 4-bit case: B has twice the words
  EXPECT_NE(decode_error(worker::encode_case(eight)).find("packed B is (16, 512); format fp16-uint4b8 needs (16, 256)"),
            std::string::npos)
      << decode_error(worker::encode_case(eight));
  KernelOperands extra = operands_of("fp16-uint4b8");
  extra.perm.assign(256, 0);
  EXPECT_NE(decode_error(worker::encode_case(extra)).find("needs 0"), std::string::npos);
}

// The protocol's version leads every case and the ready frame: a worker of another build says so.
TEST(WorkerMessages, AnotherProtocolVersionIsAClearError) {
  Message c = worker::encode_case(operands_of("fp16-uint4b8"));
  std::vector<char> bytes = c.bytes();
  const std::uint32_t old = 1;
  std::memcpy(bytes.data(), &old, sizeof old);
  const std::string text = decode_error(Message(bytes));
  EXPECT_NE(text.find("worker protocol version 1, expected 2"), std::string::npos) << text;
  EXPECT_NE(text.find("different builds of tilecheck"), std::string::npos) << text;
  std::vector<char> info = worker::encode_info(WorkerInfo{}).bytes();
  std::memcpy(info.data(), &old, sizeof old);
  Message info_back(info);
  EXPECT_THROW(worker::decode_info(info_back), Error);
}

// The library's formats travel in the ready frame, for the parent's matrix; a bad entry is refused.
TEST(WorkerMessages, TheLibrarysFormatsCrossInTheReadyFrame) {
  WorkerInfo info;
  EXPECT_FALSE(info.lists_formats);
  ASSERT_EQ(info.formats.size(), 1u) << "a worker's library implements ABI 1's format unless it lists others";
  Message plain = worker::encode_info(info);
  Message plain_back(plain.bytes());
  const WorkerInfo v1 = worker::decode_info(plain_back);
  EXPECT_FALSE(v1.lists_formats);
  ASSERT_EQ(v1.formats.size(), 1u);
  EXPECT_TRUE(is_abi_v1_format(v1.formats[0]));
  info.lists_formats = true;
  info.formats = {plugin_format(parse_format("bf16-uint4")), plugin_format(parse_format("fp16-uint8b128-actworst-kpart"))};
  Message m = worker::encode_info(info);
  Message back(m.bytes());
  const WorkerInfo got = worker::decode_info(back);
  EXPECT_TRUE(got.lists_formats);
  EXPECT_EQ(format_names(got.formats), "bf16-uint4, fp16-uint8b128-act-kpart");
  info.formats[1].weight_type = 7;
  Message bad = worker::encode_info(info);
  Message bad_back(bad.bytes());
  try {
    worker::decode_info(bad_back);
    ADD_FAILURE() << "decoded weight_type=7";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("weight_type=7"), std::string::npos) << e.what();
  }
}

// What the workspace check found after a launch travels with the result.
TEST(WorkerMessages, TheWorkspaceFindingCrosses) {
  KernelRun r;
  r.workspace = "workspace: lock 3 (workspace byte 12) left at 1";
  Message m = worker::encode_result(r);
  Message back(m.bytes());
  EXPECT_EQ(worker::decode_result(back).workspace, r.workspace);
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

// On a GPU, through a real worker: the ABI 2 test library (tests/plugin/abi_v2_plugin.cpp, which
// returns TC_OK without computing) is run on a case of a format it lists, and a case of one it does
// not list is n/a with the loader's reason; either way the format crossed the pipe with the case.
TEST(WorkerProcess, RunsACaseOfAFormatItsLibraryListsAndRefusesAnother) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no CUDA device";
  WorkerProcess w(TC_TILECHECK, TC_ABI_V2_PLUGIN, 0);
  EXPECT_TRUE(w.info().lists_formats);
  EXPECT_EQ(format_names(w.info().formats), "fp16-uint4b8, bf16-uint4, fp16-uint8b128-act, fp16-uint4b8-act-kpart");
  Launch l;
  l.config = {1, 8, 8, 4};
  l.sms = 1;
  for (const char* format : {"bf16-uint4", "fp16-uint4b8-actworst-kpart", "fp16-uint8b128", "bf16-uint4b8"}) {
    const Fixture f = make_fixture(
        CaseSpec(format, Shape{16, 128, 256, 64}, Contract::fp32, Distribution::normal, 31, parse_format(format)));
    const KernelRun r = w.run(format, f, Contract::fp32, l, 30);
    const std::vector<tc_format>& formats = w.info().formats;
    const bool listed = std::any_of(formats.begin(), formats.end(),
                                    [&](const tc_format& x) { return same_format(x, plugin_format(f.spec.format)); });
    ASSERT_FALSE(r.fault) << format << ": " << r.status.message;
    if (listed) {
      EXPECT_TRUE(r.status.ok()) << format << ": " << r.status.message;
      EXPECT_EQ(r.C.rows(), 16);
    } else {
      EXPECT_EQ(r.status.status, TC_ERR_UNSUPPORTED) << format;
      EXPECT_NE(r.status.message.find(cat("does not list format ", format_name(plugin_format(f.spec.format)))),
                std::string::npos)
          << r.status.message;
    }
  }
}

}  // namespace
}  // namespace tc
