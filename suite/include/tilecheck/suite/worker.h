// Fault isolation: kernels run in worker processes. A kernel that faults (a sticky CUDA error
// loses the context for the rest of its process), crashes the host process or never returns can
// only take its worker with it: the parent sees a FAULT (the CUDA error, or the signal with the
// crash report's frames) or a HANG (its watchdog killed the worker), starts a new worker and goes on.
// A worker is the running tilecheck binary itself, started as `tilecheck worker` with pipes for
// stdin, stdout and stderr (tilecheck/suite/worker_pipe.h); it never touches HDF5 or the fixtures:
// the parent sends each case's inputs and receives each run's output, then judges it.
#pragma once
#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

#include "tilecheck/plugin/formats.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/quantize.h"
#include "tilecheck/reference/schedule.h"
#include "tilecheck/suite/device_case.h"

namespace tc {
namespace worker {
enum class Frame : std::uint32_t;  // tilecheck/suite/worker_pipe.h
}

// What a worker says once it has loaded the plugin and made its CUDA context.
struct WorkerInfo {
  std::string kernel_name;  // tc_plugin_info()->name
  std::string variant;      // tc_plugin_info()->variant
  std::vector<TileConfig> configs;
  std::string device;       // device_description()
  int multiprocessors = 0;
  bool declares_numerics = false;  // the library exports tc_plugin_numerics
  std::vector<tc_format> formats = {abi_v1_format()};  // KernelPlugin::formats(): those it lists, or ABI 1's
  bool lists_formats = false;      // it lists them (plugin ABI 2's tc_plugin_formats)
};

// The worker's side: serves the parent on stdin/stdout until told to quit or stdin closes. Returns
// the process exit code; a kernel fault ends the worker after its result is sent (exit code 3).
int serve_worker(const std::string& kernel_path, int device);

// The parent's side: one worker process.
class WorkerProcess {
 public:
  // Starts `<executable> worker --kernel <kernel> --device <device>` and waits for it to be ready.
  // Throws tc::Error with the worker's own words (or its signal and crash frames) if it cannot start.
  WorkerProcess(const std::string& executable, const std::string& kernel, int device);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  const WorkerInfo& info() const { return info_; }
  bool alive() const { return pid_ > 0; }

  // Runs one launch on case `f` under `contract`, sending its operands as the plugin ABI lays them
  // out (kernel_operands: any format, its zero points, g_idx and perm included) only when `case_key`
  // differs from the last case sent. The watchdog allows `timeout_s` from the launch to the result.
  // After a fault or a hang the worker is gone (alive() is false) and the run says why (fault, hang,
  // status.message).
  KernelRun run(const std::string& case_key, const Fixture& f, Contract contract, const Launch& launch,
                double timeout_s);
  // The same cell, but only asks the library whether it implements it (tc_plugin_workspace_size,
  // no launch): status TC_ERR_UNSUPPORTED with the library's reason, or TC_OK.
  KernelRun ask(const std::string& case_key, const Fixture& f, Contract contract, const Launch& launch);

 private:
  std::string dead_message(const char* what);  // reaps the worker: how it ended, with its last words
  KernelRun exchange(worker::Frame request, const std::string& case_key, const Fixture& f, Contract contract,
                     const Launch& launch, double timeout_s);
  void kill_now();

  pid_t pid_ = -1;
  int to_ = -1, from_ = -1, err_ = -1;  // its stdin, stdout, stderr
  std::string err_tail_;
  std::string loaded_;
  WorkerInfo info_;
};

// The per-cell watchdog's default: generous for any kernel that works (a floor for start-up and
// transfers, plus the time of the multiply-adds at 0.1 TFLOP/s, far below what any GPU does).
double default_cell_timeout(int M, int N, int K);

// The path of the running executable (/proc/self/exe).
std::string current_executable();

}  // namespace tc
