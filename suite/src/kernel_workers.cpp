#include "tilecheck/suite/kernel_workers.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/interrupt.h"

namespace tc {
namespace {

std::string watchdog_seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, s < 0.1 ? "%.4f" : "%.1f", s);
  return text;
}

}  // namespace

void WatchdogTimes::completed(const std::string& config, double seconds, double work) {
  const double per_work = seconds / std::max(work, 1.0);
  for (Times* t : {&by_config_[config], &any_}) {
    t->slowest = std::max(t->slowest, seconds);
    t->slowest_per_work = std::max(t->slowest_per_work, per_work);
  }
  any_completed_ = true;
}

const WatchdogTimes::Times* WatchdogTimes::times_for(const std::string& config) const {
  const auto it = by_config_.find(config);
  if (it != by_config_.end()) return &it->second;
  return any_completed_ ? &any_ : nullptr;
}

// A completed cell i of `seconds` t_i and work w_i predicts at most t_i * max(1, w / w_i) for work w:
// the maximum over i is max(slowest, w * slowest_per_work).
double WatchdogTimes::predicted(const Times& t, double work) {
  return std::max(t.slowest, std::max(work, 1.0) * t.slowest_per_work);
}

double WatchdogTimes::timeout(const std::string& config, double work, double cap) const {
  const Times* t = times_for(config);
  if (t == nullptr) return cap;
  return std::min(cap, std::max(kFloor, kFactor * predicted(*t, work)));
}

std::string WatchdogTimes::explain(const std::string& config, double work, double cap) const {
  const Times* t = times_for(config);
  const double chosen = timeout(config, work, cap);
  if (t == nullptr) return cat("the cap, ", watchdog_seconds_text(cap), " s: no cell of this library had completed");
  if (chosen >= cap) return cat("the cap, ", watchdog_seconds_text(cap), " s");
  const std::string whose = by_config_.count(config) ? cat(config, "'s") : std::string("this library's");
  const double seconds = predicted(*t, work);
  if (chosen <= kFloor) return cat("the floor, ", watchdog_seconds_text(kFloor), " s: ", whose, " completed cells predict ",
                                   watchdog_seconds_text(seconds), " s");
  return cat(watchdog_seconds_text(kFactor), " x ", watchdog_seconds_text(seconds), " s predicted from ", whose,
             " completed cells at this size");
}

void ConfigBudget::count(const std::string& config, bool fault, bool hang) {
  State& s = states_[config];
  s.consecutive_faults = fault ? s.consecutive_faults + 1 : 0;
  s.hangs += hang;
}

bool ConfigBudget::given_up(const std::string& config, std::string& why, bool& hang) const {
  const auto it = states_.find(config);
  if (it == states_.end()) return false;
  const State& s = it->second;
  if (s.hangs >= hang_limit_) {
    why = cat("not run: configuration ", config, " hung ", s.hangs, " times");
    hang = true;
    return true;
  }
  if (s.consecutive_faults >= fault_limit_) {
    why = cat("not run: configuration ", config, " faulted ", s.consecutive_faults, " times in a row");
    hang = false;
    return true;
  }
  return false;
}

KernelWorkers::KernelWorkers(KernelWorkersOptions options)
    : options_(std::move(options)), budget_(options_.fault_limit, options_.hang_limit) {
  require(!options_.devices.empty(), "no device to run workers on");
  require(options_.fault_limit >= 1, "--fault-limit ", options_.fault_limit, " must be at least 1");
  require(options_.hang_limit >= 1, "--hang-limit ", options_.hang_limit, " must be at least 1");
  require(options_.cell_timeout >= 0, "--cell-timeout ", options_.cell_timeout, " must not be negative");
  slots_.resize(options_.devices.size());
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].worker = std::make_unique<WorkerProcess>(options_.executable, options_.kernel, options_.devices[i]);
    if (i == 0) info_ = slots_[i].worker->info();
  }
}

KernelWorkers::~KernelWorkers() = default;

bool KernelWorkers::given_up(const TileConfig& c, std::string& why, bool& hang) {
  std::lock_guard<std::mutex> lock(mutex_);
  return budget_.given_up(name(c), why, hang);
}

void KernelWorkers::count(const TileConfig& c, const KernelRun& r, double work) {
  if (r.interrupted || r.status.status == TC_ERR_UNSUPPORTED) return;  // launched nothing to count
  std::lock_guard<std::mutex> lock(mutex_);
  budget_.count(name(c), r.fault, r.hang);
  if (!r.fault && r.status.ok()) times_.completed(name(c), r.launch_seconds, work);
}

CellRun KernelWorkers::run(int slot, const Cell& cell, const Fixture& f, const std::optional<PerturbRound>& perturb) {
  CellRun out;
  if (interrupt_requested()) {
    out.run.interrupted = true;
    out.run.status = {TC_ERR_CUDA, "not run (interrupted)"};
    return out;
  }
  std::string why;
  bool hang = false;
  const bool not_run = given_up(cell.config, why, hang);
  Slot& s = slots_[static_cast<std::size_t>(slot)];
  if (!s.worker || !s.worker->alive()) {
    s.worker.reset();
    try {
      s.worker = std::make_unique<WorkerProcess>(options_.executable, options_.kernel, device(slot));
    } catch (const Error& e) {  // a worker that cannot start again: this cell faults, the next one retries
      out.run.fault = true;
      out.run.hang = not_run && hang;
      out.run.status = {TC_ERR_CUDA, not_run ? why : cat("FAULT: ", e.what())};
      if (!not_run) count(cell.config, out.run, 0);
      return out;
    }
  }
  const Shape& shape = f.spec.shape;
  Launch launch;
  launch.config = cell.config;
  launch.sms = cell.sms;
  launch.perturb = perturb;
  if (not_run) {
    // The configuration is not launched again, but a cell the library does not implement is still
    // n/a, not a fault: ask it without launching (e.g. upstream Marlin's fp32 cells).
    out.run = s.worker->ask(cell.case_id, f, cell.contract, launch);
    if (out.run.status.status == TC_ERR_UNSUPPORTED || out.run.interrupted) return out;
    out.run = KernelRun{};
    out.run.fault = true;
    out.run.hang = hang;
    out.run.status = {TC_ERR_CUDA, why};
    return out;
  }
  const double work = static_cast<double>(shape.M) * shape.N * shape.K;
  const double cap = options_.cell_timeout > 0 ? options_.cell_timeout : default_cell_timeout(shape.M, shape.N, shape.K);
  double timeout = cap;
  std::string how;
  if (options_.adaptive_watchdog) {
    std::lock_guard<std::mutex> lock(mutex_);
    timeout = times_.timeout(name(cell.config), work, cap);
    how = times_.explain(name(cell.config), work, cap);
  }
  const auto start = std::chrono::steady_clock::now();
  out.run = s.worker->run(cell.case_id, f, cell.contract, launch, timeout);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (out.run.hang && !how.empty()) out.run.status.message += cat(" (watchdog: ", how, ")");
  count(cell.config, out.run, work);
  return out;
}

}  // namespace tc
