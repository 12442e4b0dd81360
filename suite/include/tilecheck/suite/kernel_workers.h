// The kernel side of `tilecheck run` (and `tiles`): a kernel library in worker processes, one per
// device (tilecheck/suite/worker.h), with the policy for cells that fault or hang. A worker that
// dies is replaced before its device's next cell; after `fault_limit` consecutive faults (FAULT or
// HANG) in one configuration, its remaining cells are not launched ("not run: configuration faulted
// N times"), so a broken configuration costs three watchdog periods, not one per cell; the library is
// still asked (tc_plugin_workspace_size, no launch) whether it implements each of them, so that a
// cell it declines is n/a there too. An n/a cell does not count for or against a run of faults.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/suite/cells.h"
#include "tilecheck/suite/worker.h"

namespace tc {

struct KernelWorkersOptions {
  std::string executable;    // the tilecheck binary (current_executable())
  std::string kernel;        // the plugin library
  std::vector<int> devices;  // CUDA ordinals, one worker each
  double cell_timeout = 0;   // seconds from launch to result; 0: default_cell_timeout(M, N, K)
  int fault_limit = 3;       // consecutive faults in one configuration before its cells are skipped
};

// How a cell's launch ended, before judging.
struct CellRun {
  KernelRun run;       // C and guard band, or why not (fault, hang, an error status, UNSUPPORTED)
  double seconds = 0;  // wall time in the worker for the cell (upload included)
};

class KernelWorkers {
 public:
  // Starts a worker per device; throws (with the worker's words) if the first cannot start.
  explicit KernelWorkers(KernelWorkersOptions options);
  ~KernelWorkers();
  const WorkerInfo& info() const { return info_; }
  int slots() const { return static_cast<int>(options_.devices.size()); }
  int device(int slot) const { return options_.devices[static_cast<std::size_t>(slot)]; }

  // Runs `cell` on slot `slot`'s worker. Safe to call from one thread per slot at once.
  CellRun run(int slot, const Cell& cell, const Fixture& f);

 private:
  struct Slot {
    std::unique_ptr<WorkerProcess> worker;
    std::string start_error;  // why the last start failed
  };
  bool over_fault_limit(const TileConfig& c, std::string& why);
  void count_fault(const TileConfig& c, bool fault);

  KernelWorkersOptions options_;
  WorkerInfo info_;
  std::vector<Slot> slots_;
  std::mutex faults_mutex_;
  std::map<std::string, int> consecutive_faults_;  // by configuration name
};

}  // namespace tc
