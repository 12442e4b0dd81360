// The kernel side of `tilecheck run` (and `tiles`, and the GPU ctest matrix): a kernel library in
// worker processes, one per device (tilecheck/suite/worker.h), with the policy that makes every run
// end however the kernel behaves:
//  - A worker that dies is replaced before its device's next cell.
//  - Fault limit: after `fault_limit` consecutive faults (FAULT or HANG) in one configuration, its
//    remaining cells are not launched ("not run: configuration X faulted N times in a row").
//  - Hang budget: after `hang_limit` hangs in one configuration, consecutive or not, its remaining
//    cells are not launched either (HANG: "not run: configuration X hung N times").
//    Either way the library is still asked (tc_plugin_workspace_size, no launch) whether it implements
//    each of those cells, so that a cell it declines is n/a there too. An n/a cell does not count for
//    or against a run of faults.
//  - Adaptive watchdog: a cell may run max(2 s, 20 x the time the configuration's slowest completed
//    cell would take at this cell's size), never more than the cap (`cell_timeout`, or
//    default_cell_timeout() by size). Before a configuration completes a cell, the library's other
//    configurations' cells set it; before any completes, the cap does.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <optional>
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
  double cell_timeout = 0;   // the watchdog's cap, seconds from launch to result; 0: default_cell_timeout()
  bool adaptive_watchdog = true;  // false: always the cap
  int fault_limit = 3;       // consecutive faults in one configuration before its cells are skipped
  int hang_limit = 2;        // hangs in one configuration before its cells are skipped
};

// How a cell's launch ended, before judging.
struct CellRun {
  KernelRun run;       // C and guard band, or why not (fault, hang, an error status, UNSUPPORTED)
  double seconds = 0;  // wall time in the worker for the cell (upload included)
};

// The adaptive watchdog's bookkeeping: how long completed cells took, by configuration.
class WatchdogTimes {
 public:
  static constexpr double kFloor = 5;   // seconds: a busy host, and a trapped kernel's error, which reached
                                        // its process after more than 2 s with 16 test processes on an H200
  static constexpr double kFactor = 20;
  void completed(const std::string& config, double seconds, double work);
  // The watchdog for a cell of `work` multiply-adds of `config`, at most `cap`.
  double timeout(const std::string& config, double work, double cap) const;
  // How timeout() chose (for the HANG message): "20 x 0.0041 s of m1n8k8g8's cells, scaled to this size".
  std::string explain(const std::string& config, double work, double cap) const;

 private:
  struct Times {
    double slowest = 0;          // seconds of the slowest completed cell
    double slowest_per_work = 0; // the largest seconds / multiply-adds of one
  };
  const Times* times_for(const std::string& config) const;
  static double predicted(const Times& t, double work);  // the slowest completed cell, scaled to `work`
  std::map<std::string, Times> by_config_;
  Times any_;  // over every configuration
  bool any_completed_ = false;
};

// The fault limit and the hang budget: which configurations are given up, and why.
class ConfigBudget {
 public:
  ConfigBudget(int fault_limit, int hang_limit) : fault_limit_(fault_limit), hang_limit_(hang_limit) {}
  // Counts a launch's end: a fault (a hang is one too) or a result; n/a cells are not counted.
  void count(const std::string& config, bool fault, bool hang);
  // Whether `config` is given up: then `why` is the cells' message and `hang` whether it is the hang
  // budget (HANG) rather than the fault limit (FAULT).
  bool given_up(const std::string& config, std::string& why, bool& hang) const;

 private:
  struct State {
    int consecutive_faults = 0;
    int hangs = 0;
  };
  int fault_limit_, hang_limit_;
  std::map<std::string, State> states_;
};

class KernelWorkers {
 public:
  // Starts a worker per device; throws (with the worker's words) if the first cannot start.
  explicit KernelWorkers(KernelWorkersOptions options);
  ~KernelWorkers();
  const WorkerInfo& info() const { return info_; }
  int slots() const { return static_cast<int>(options_.devices.size()); }
  int device(int slot) const { return options_.devices[static_cast<std::size_t>(slot)]; }

  // Runs `cell` on slot `slot`'s worker, with a perturbation round's noise beside it when given
  // (tilecheck/suite/noise.h). Safe to call from one thread per slot at once. After the run is
  // interrupted (tilecheck/suite/interrupt.h) it launches nothing: the cell is not run.
  CellRun run(int slot, const Cell& cell, const Fixture& f, const std::optional<PerturbRound>& perturb = std::nullopt);

 private:
  struct Slot {
    std::unique_ptr<WorkerProcess> worker;
  };
  bool given_up(const TileConfig& c, std::string& why, bool& hang);
  void count(const TileConfig& c, const KernelRun& r, double work);

  KernelWorkersOptions options_;
  WorkerInfo info_;
  std::vector<Slot> slots_;
  std::mutex mutex_;  // guards budget_ and times_
  ConfigBudget budget_;
  WatchdogTimes times_;
};

}  // namespace tc
