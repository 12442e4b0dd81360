// What every GPU test needs: a reason to skip when there is no GPU, the kernel under test (a plugin
// library: $TC_KERNEL, or the default variant this build made), device buffers, and one call that
// uploads a problem, poisons the output and its guard bands, runs the kernel and reads back.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/compare.h"
#include "tilecheck/contract.h"
#include "tilecheck/matrix.h"
#include "tilecheck/plugin_loader.h"
#include "tilecheck/quantize.h"
#include "tilecheck/schedule.h"

namespace tc::testing {

// Empty if a CUDA device is usable; otherwise why not (shown by GTEST_SKIP).
std::string gpu_unavailable_reason();

#define TC_REQUIRE_GPU()                                                           \
  do {                                                                             \
    const std::string tc_gpu_why = ::tc::testing::gpu_unavailable_reason();       \
    if (!tc_gpu_why.empty()) GTEST_SKIP() << "no GPU: " << tc_gpu_why;             \
  } while (0)

// The kernel library under test, loaded once: $TC_KERNEL if set, else the upstream variant.
const KernelPlugin& kernel_under_test();
int device_multiprocessors();

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes);
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  ~DeviceBuffer();
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  void upload(const void* host, std::size_t bytes, std::size_t offset = 0);
  void download(void* host, std::size_t bytes, std::size_t offset = 0) const;
  void fill16(std::uint16_t value);  // every 16-bit word
  void zero();

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// C is allocated with kGuardRows rows of poison (tilecheck/poison.h) before and after it: a row
// stride of N leaves no room for column margins, and a dropped row predicate writes below C.
constexpr int kGuardRows = 64;

struct Problem {
  HalfMatrix A;          // (M, K)
  QuantizedWeights w;    // codes (K, N), scales (G, N)
  Contract contract = Contract::fp32;
  TileConfig config{0, 0, 0, 0};  // m_blocks 0: automatic
  int sms = 0;           // 0: all multiprocessors
  int max_par = 0;
};

struct KernelRun {
  RunResult status;
  HalfMatrix C;      // (M, N)
  GuardBand guard;   // the poisoned rows around C, and which of them were written
};

// Device copies of a problem's inputs (packed B, permuted scales) and a workspace, reusable
// across runs (the workspace must stay zeroed between launches: the kernel resets it).
class DeviceProblem {
 public:
  explicit DeviceProblem(const Problem& p);
  KernelRun run(const KernelPlugin& kernel, const Problem& p, unsigned flags = 0, void* stream = nullptr);
  tc_problem abi_problem(const Problem& p) const;  // pointers filled, workspace sized for p
  std::vector<int> trace;  // filled by run_traced
  KernelRun run_traced(const KernelPlugin& kernel, const Problem& p, int capacity, int launches);

 private:
  int M_, N_, K_;
  DeviceBuffer A_, B_, scales_, C_, workspace_;
};

}  // namespace tc::testing
