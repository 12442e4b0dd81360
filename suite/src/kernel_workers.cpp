#include "tilecheck/suite/kernel_workers.h"

#include <chrono>

#include "tilecheck/reference/error.h"

namespace tc {

KernelWorkers::KernelWorkers(KernelWorkersOptions options) : options_(std::move(options)) {
  require(!options_.devices.empty(), "no device to run workers on");
  require(options_.fault_limit >= 1, "--fault-limit ", options_.fault_limit, " must be at least 1");
  require(options_.cell_timeout >= 0, "--cell-timeout ", options_.cell_timeout, " must not be negative");
  slots_.resize(options_.devices.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].worker = std::make_unique<WorkerProcess>(options_.executable, options_.kernel, options_.devices[i]);
    if (i == 0) info_ = slots_[i].worker->info();
  }
}

KernelWorkers::~KernelWorkers() = default;

bool KernelWorkers::over_fault_limit(const TileConfig& c, std::string& why) {
  std::lock_guard<std::mutex> lock(faults_mutex_);
  const int n = consecutive_faults_[name(c)];
  if (n < options_.fault_limit) return false;
  why = cat("not run: configuration ", name(c), " faulted ", n, " times in a row");
  return true;
}

void KernelWorkers::count_fault(const TileConfig& c, bool fault) {
  std::lock_guard<std::mutex> lock(faults_mutex_);
  int& n = consecutive_faults_[name(c)];
  n = fault ? n + 1 : 0;
}

CellRun KernelWorkers::run(int slot, const Cell& cell, const Fixture& f) {
  CellRun out;
  std::string why;
  const bool not_run = over_fault_limit(cell.config, why);
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  if (!s.worker || !s.worker->alive()) {
    s.worker.reset();
    try {
      s.worker = std::make_unique<WorkerProcess>(options_.executable, options_.kernel, device(slot));
    } catch (const Error& e) {  // a worker that cannot start again: this cell faults, the next one retries
      out.run.fault = true;
      out.run.status = {TC_ERR_CUDA, not_run ? why : cat("FAULT: ", e.what())};
      if (!not_run) count_fault(cell.config, true);
      return out;
    }
  }
  const Shape& shape = f.spec.shape;
  Launch launch;
  launch.config = cell.config;
  launch.sms = cell.sms;
  if (not_run) {
    // The configuration is not launched again, but a cell the library does not implement is still
    // n/a, not a fault: ask it without launching (e.g. upstream Marlin's fp32 cells).
    out.run = s.worker->ask(cell.case_id, f.A, f.B_marlin, f.scales_marlin, shape.group, cell.contract, launch);
    if (out.run.status.status == TC_ERR_UNSUPPORTED) return out;
    out.run = KernelRun{};
    out.run.fault = true;
    out.run.status = {TC_ERR_CUDA, why};
    return out;
  }
  const double timeout =
      options_.cell_timeout > 0 ? options_.cell_timeout : default_cell_timeout(shape.M, shape.N, shape.K);
  const auto start = std::chrono::steady_clock::now();
  out.run = s.worker->run(cell.case_id, f.A, f.B_marlin, f.scales_marlin, shape.group, cell.contract, launch, timeout);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // An n/a cell launched nothing: it says nothing about faults in a row.
  if (out.run.status.status != TC_ERR_UNSUPPORTED) count_fault(cell.config, out.run.fault);
  return out;
}

}  // namespace tc
