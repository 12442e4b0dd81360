// Running one case on the GPU through a kernel plugin: device copies of its packed inputs, a
// workspace that is zero between launches (its locks checked after each), and a launch that poisons
// C, the guard rows around it and the workspace's scratch first, then reads back the output, the
// guard band, and whether the kernel faulted.
// Host code only (the CUDA runtime API); used by `tilecheck run` and the GPU tests alike.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "tilecheck/compare/compare.h"
#include "tilecheck/plugin/plugin_loader.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/quantize.h"
#include "tilecheck/reference/schedule.h"
#include "tilecheck/suite/kernel_operands.h"
#include "tilecheck/suite/problem.h"

namespace tc {

// Empty if a CUDA device is usable; otherwise why not.
std::string gpu_unavailable_reason();
int device_multiprocessors();
std::string device_description();  // "NVIDIA H200, 132 SMs, driver 13.0"

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

// Every scratch byte before a launch (the workspace discipline, docs/plugin.md): a NaN read as fp16
// or fp32, -1 read as an int, so a kernel that reads scratch it did not write shows in its output.
constexpr unsigned char kScratchPoison = 0xFF;

// A kernel workspace: grown on demand and zero between launches. Around each launch DeviceCase::run
// fills the problem's scratch with kScratchPoison, then checks that its locks (every byte that is not
// scratch) are zero again and zeroes whatever is not, so that one launch that leaves a lock dirty
// fails its own cell and no other.
class Workspace {
 public:
  void reserve(std::size_t bytes);
  void* get() const { return buffer_.get(); }
  std::size_t bytes() const { return buffer_.bytes(); }
  void poison_scratch(const WorkspaceLayout& layout);
  // After a launch that ended (stream synchronised): "" if the first `used` bytes outside the
  // scratch are zero, else which lock was left at which value; the workspace is zero again after.
  std::string settle(const WorkspaceLayout& layout, std::size_t used);

 private:
  DeviceBuffer buffer_;
};

// C is allocated with kGuardRows rows of poison (tilecheck/compare/poison.h) before and after it: a row
// stride of N leaves no room for column margins, and a dropped row predicate writes below C.
constexpr int kGuardRows = 64;

struct KernelRun {
  RunResult status;  // TC_ERR_CUDA with "FAULT: ..." when the kernel faulted
  bool fault = false;
  bool hang = false; // the watchdog ended the run (a worker process killed; fault is set too)
  HalfMatrix C;      // (M, N)
  GuardBand guard;   // the poisoned rows around C, and which of them were written
  std::optional<KernelNumerics> declared = std::nullopt;  // the library's tc_plugin_numerics for this problem, if any
  std::string workspace;  // what the workspace check found after the launch ("" if its locks were left zero)
  bool interrupted = false;  // the run was stopped (SIGINT/SIGTERM) before a result: not run
  double launch_seconds = 0;  // from the launch to the result, as the parent sees it (the watchdog's measure)
};

class DeviceCase {
 public:
  // A: (M, K) fp16; B: (K/16, 2N) Marlin-packed; scales: (G, N) Marlin-permuted.
  DeviceCase(const HalfMatrix& A, const PackedMatrix& B, const HalfMatrix& scales_marlin, int group,
             Contract contract);
  // Any format (plugin ABI 2): also the packed zero points, g_idx and perm where the format has them.
  explicit DeviceCase(const KernelOperands& ops);
  int M() const { return M_; }
  int N() const { return N_; }

  tc_problem problem(const Launch& l, Workspace& ws) const;  // this case under `l`, with `ws` as its workspace
  // Only asks the library for the launch's workspace size, which also says whether it implements
  // the launch (TC_ERR_UNSUPPORTED); launches nothing.
  RunResult ask(const KernelPlugin& kernel, const Launch& l, Workspace& ws) const;
  // Waits for l.stream, detects faults, reads back C and the guard band.
  KernelRun collect(const Launch& l, const RunResult& launched);
  // Poisons C and its guard rows and the workspace's scratch, calls the kernel (with a perturbation
  // round's noise beside it when `l` carries one: tilecheck/suite/noise.h), collects, checks the
  // workspace (Workspace::settle), then, for a library that declares its numerics, asks for its
  // declaration for the problem (KernelRun::declared).
  KernelRun run(const KernelPlugin& kernel, const Launch& l, Workspace& ws);
  void poison();
  void* output() const;  // device pointer of C (inside the guard rows)

 private:
  int M_, N_, K_, group_;
  Contract contract_;
  FixtureFormat format_;
  DeviceBuffer A_, B_, scales_, C_;
  DeviceBuffer zero_points_, g_idx_, perm_;  // ABI 2; empty where the format has none
};

// Returns a "FAULT: ..." message. If `cuda_error` is a sticky error (illegal address, illegal instruction,
// trap), the CUDA context is gone for the rest of the process: every later launch then reports
// FAULT without touching the device.
std::string describe_fault(int cuda_error);

}  // namespace tc
