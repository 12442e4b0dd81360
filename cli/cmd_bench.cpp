// `tilecheck bench`: times kernel libraries (any plugin; ours by default) on one shape per
// configuration, and prints the ratio to two ceilings measured in the same run: a device-to-device
// copy (bandwidth) and cuBLAS fp16 on the same shape. Method: weights rotated over --rotate-mb of
// copies so the L2 cannot hold them; one CUDA graph of calls (one per copy) replayed --repeats
// times between CUDA events; the median per call is reported. Several --kernel libraries are
// timed A/B/A/B: --rounds rounds, each timing every library once, so clock drift cannot pose as a
// difference, and each round starting one library later (A/B, B/A, ...), so no library is always
// timed first; the spread across rounds is printed next to the median of the round medians.
// Each configuration is timed in a process of its own (tilecheck bench --isolated): one that
// faults, crashes or hangs prints a FAULT or HANG row (n/a where the library does not implement it)
// and the others are still timed.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "bench_children.h"
#include "commands.h"
#include "data_paths.h"
#include "option_limits.h"
#include "tilecheck/core/error.h"
#include "tilecheck/plugin/plugin_loader.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/schedule.h"
#include "tilecheck/suite/bench_engine.h"
#include "tilecheck/suite/cuda_check.h"
#include "tilecheck/suite/device_case.h"
#include "tilecheck/suite/problem.h"
#include "tilecheck/suite/worker.h"

namespace tc::cli {
namespace {

// How many blocks share a tile column (slice_count), "1" or "min-max" over the schedule's columns:
// the fetch-order question differs between slice_count 1 (no reduction) and > 1.
std::string slice_counts(const Schedule& s) {
  int lo = 1 << 30, hi = 0;
  for (const LaunchSchedule& l : s.launches)
    for (const Slice& slice : l.slices) lo = std::min(lo, slice.slice_count), hi = std::max(hi, slice.slice_count);
  return lo == hi ? std::to_string(lo) : cat(lo, "-", hi);
}

// Options checked, kernel libraries loaded, the GPU found, a stream to time on; cuBLAS once the
// header is printed. Frees the stream and the cuBLAS handle on the way out, errors included.
class Bench {
 public:
  explicit Bench(const BenchOptions& o) : o_(o) {
    require(!o.kernels.empty(), "--kernel: at least one kernel library");
    for (const std::string& path : o.kernels) kernels_.push_back(KernelPlugin::load(path));
    contract_ = parse_contract(o.contract);
    require(o.repeats >= 3, "--repeats ", o.repeats, " (expected at least 3)");
    require(o.rotate_mb >= 1, "--rotate-mb ", o.rotate_mb, " (expected at least 1)");
    require(o.rounds >= 1, "--rounds ", o.rounds, " (expected at least 1)");
    require(o.M >= 0 && o.sms >= 0, "-M ", o.M, " and --sms ", o.sms, " must not be negative");
    if (o.configs.empty()) {
      configs_ = kernels_.front().configs();
    } else {
      for (const std::string& name : o.configs)
        configs_.push_back(name == "auto" ? TileConfig{0, 0, 0, 0} : parse_config(name));
    }
    const std::string why = gpu_unavailable_reason();
    require(why.empty(), "tilecheck bench needs a CUDA GPU (", why, ")");
    int device = 0;
    TC_CHECK_CUDA(cudaGetDevice(&device));
    TC_CHECK_CUDA(cudaGetDeviceProperties(&prop_, device));
    require(static_cast<std::size_t>(o.rotate_mb) << 20 <= prop_.totalGlobalMem, "--rotate-mb ", o.rotate_mb,
            " is more than the device's ", prop_.totalGlobalMem >> 20, " MB");
    TC_CHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~Bench() {
    if (cublas_) cublasDestroy(cublas_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  Bench(const Bench&) = delete;
  Bench& operator=(const Bench&) = delete;

  void start_cublas() {
    if (!o_.cublas) return;
    require(cublasCreate(&cublas_) == CUBLAS_STATUS_SUCCESS, "cublasCreate failed");
    require(cublasSetStream(cublas_, stream_) == CUBLAS_STATUS_SUCCESS, "cublasSetStream failed");
  }

  const BenchOptions& options() const { return o_; }
  const std::vector<KernelPlugin>& kernels() const { return kernels_; }
  const std::vector<TileConfig>& configs() const { return configs_; }
  Contract contract() const { return contract_; }
  const cudaDeviceProp& device() const { return prop_; }
  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas() const { return cublas_; }
  std::map<int, double>& cublas_seconds_by_m() { return cublas_by_m_; }  // cuBLAS depends on the shape only

 private:
  const BenchOptions& o_;
  std::vector<KernelPlugin> kernels_;
  Contract contract_ = Contract::fp32;
  std::vector<TileConfig> configs_;
  cudaDeviceProp prop_{};
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  std::map<int, double> cublas_by_m_;
};

void print_header(const Bench& b, double copy_tbs) {
  const BenchOptions& o = b.options();
  const cudaDeviceProp& prop = b.device();
  int driver = 0, runtime = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::printf("device: %s, %d SMs, L2 %d MB, driver %d.%d, runtime %d.%d\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
  for (const KernelPlugin& k : b.kernels())
    std::printf("kernel: %s (%s) from %s\n", k.info().name, k.info().variant, k.path().c_str());
  std::printf("contract %s; weights rotated over %d MB; median of %d graph replays%s\n", o.contract.c_str(),
              o.rotate_mb, o.repeats,
              o.rounds > 1 ? cat(", median over ", o.rounds,
                                 " interleaved rounds, each starting one library later (spread: min-max of the rounds)")
                                 .c_str()
                           : " (spread: p10-p90 of the replays)");
  std::printf("device-to-device copy: %.2f TB/s (read + write)\n\n", copy_tbs);
  std::printf("%-12s %-10s %5s %6s %6s %5s %4s %6s %9s %15s %7s %7s %10s %8s\n", "config", "variant", "M", "K", "N",
              "group", "sms", "slices", "us", "spread us", "TB/s", "%copy", "cuBLAS us", "speedup");
  std::fflush(stdout);  // out before the timing, which may never end
}

// The engine's launch settings for one configuration of this run.
BenchLaunch bench_launch(const Bench& b, const TileConfig& config) {
  const BenchOptions& o = b.options();
  return {b.contract(), config, o.sms, o.rounds, o.repeats, b.stream()};
}

// cuBLAS on this shape, timed once per M (it depends on the shape only); 0 without cuBLAS.
double cublas_once(Bench& b, BenchOperands& ops) {
  double& theirs = b.cublas_seconds_by_m()[ops.shape.M];
  if (b.cublas() && theirs == 0)
    theirs = cublas_seconds(b.cublas(), b.stream(), ops, b.options().rotate_mb, b.options().repeats);
  return theirs;
}

// One line per kernel library: the median (of the round medians), the spread, the bandwidth and
// its share of the copy ceiling, and the speed-up over cuBLAS.
void print_rows(const Bench& b, const TileConfig& config, const BenchOperands& ops,
                const std::vector<KernelTimings>& timings, double copy_tbs, double theirs) {
  const BenchOptions& o = b.options();
  const Shape& s = ops.shape;
  const int grid = o.sms > 0 ? o.sms : b.device().multiProcessorCount;
  const std::string slices = is_auto(config) ? "-" : slice_counts(make_schedule(s, config, grid));
  const double bytes = ops.bytes();
  for (size_t k = 0; k < b.kernels().size(); ++k) {
    if (!timings[k].not_applicable.empty()) {
      std::printf("%-12s %-10s n/a: %s\n", config_label(config).c_str(), b.kernels()[k].info().variant,
                  timings[k].not_applicable.c_str());
      continue;
    }
    std::vector<double> medians;
    for (const Timing& t : timings[k].rounds) medians.push_back(t.median);
    std::sort(medians.begin(), medians.end());
    const double ours = medians[medians.size() / 2];
    const double lo = o.rounds > 1 ? medians.front() : timings[k].rounds.front().p10;
    const double hi = o.rounds > 1 ? medians.back() : timings[k].rounds.front().p90;
    std::printf("%-12s %-10s %5d %6d %6d %5d %4d %6s %9.2f %7.2f-%-7.2f %7.2f %6.0f%% %10.1f %7.2fx\n",
                config_label(config).c_str(), b.kernels()[k].info().variant, s.M, s.K, s.N, s.group, grid, slices.c_str(),
                ours * 1e6, lo * 1e6, hi * 1e6, bytes / ours / 1e12, 100 * bytes / ours / 1e12 / copy_tbs,
                theirs * 1e6, theirs > 0 ? theirs / ours : 0.0);
  }
  std::fflush(stdout);
}

int time_here(const BenchOptions& o) {
  Bench b(o);
  const double copy_tbs = copy_ceiling_tbs(b.stream(), o.rotate_mb, o.repeats);
  if (o.header) print_header(b, copy_tbs);
  b.start_cublas();
  for (const TileConfig& config : b.configs()) {
    // --config auto: each library chooses its tile for -M and --group
    const Shape shape = is_auto(config) ? Shape{o.M, o.N, o.K, o.group}
                                        : Shape{o.M > 0 ? o.M : 16 * config.m_blocks, o.N, o.K, config.group()};
    if (is_auto(config)) {
      require(o.M > 0, "--config auto needs -M: each library chooses its tile for the rows it is given");
      validate_shape(shape);
    } else {
      validate_config(config, shape);
    }
    BenchOperands ops(shape, o.rotate_mb);
    const std::vector<KernelTimings> timings = time_kernels(b.kernels(), bench_launch(b, config), ops);
    print_rows(b, config, ops, timings, copy_tbs, cublas_once(b, ops));
  }
  return 0;
}

// One configuration in a child process: its rows, or a FAULT / HANG / n/a row. Returns whether it failed.
// `who` fills the variant column of a failure row (empty when several libraries ran).
bool bench_child(const BenchOptions& o, const std::string& config, bool& header, const std::string& who = "") {
  const ChildResult r = run_child(child_command(o, config, header), o.config_timeout);
  std::fputs(r.out.c_str(), stdout);
  if (r.out.find("config ") != std::string::npos) header = false;  // its header is out
  if (r.exit_code == 0 && !r.timed_out) return false;
  const auto [status, reason] = failure(r, o.config_timeout);
  std::printf("%-12s %-10s %s: %s\n", config.c_str(), who.c_str(), status.c_str(), reason.c_str());
  std::fflush(stdout);
  return status != "n/a";
}

// One child per configuration; their rows in order, a FAULT / HANG / n/a row for each that failed.
// A fault ends its process and so every library's timing in it: the configuration is then timed
// again one library per process (not interleaved), so the others still get their rows and the
// faulting one is named.
int run_bench(const BenchOptions& o) {
  check_problem_size(o.M > 0 ? o.M : 16 * max_m_blocks(), o.N, o.K);
  const bool any_auto = std::find(o.configs.begin(), o.configs.end(), "auto") != o.configs.end();
  require(!any_auto || o.M > 0, "--config auto needs -M: each library chooses its tile for the rows it is given");
  if (o.isolated) return time_here(o);
  const std::string why = gpu_unavailable_reason();
  require(why.empty(), "tilecheck bench needs a CUDA GPU (", why, ")");
  require(o.config_timeout > 0, "--config-timeout ", o.config_timeout, " must be positive");
  std::vector<std::string> configs = o.configs;
  if (configs.empty())  // the library's own list (reading it launches nothing)
    for (const TileConfig& c : KernelPlugin::load(o.kernels.front()).configs()) configs.push_back(name(c));
  bool header = o.header;
  int failed = 0;
  for (const std::string& config : configs) {
    if (!bench_child(o, config, header)) continue;
    ++failed;
    if (o.kernels.size() < 2) continue;
    std::printf("%-12s %-10s each library alone (not interleaved):\n", config.c_str(), "");
    for (const std::string& kernel : o.kernels) {
      BenchOptions alone = o;
      alone.kernels = {kernel};
      bench_child(alone, config, header, KernelPlugin::load(kernel).info().variant);
    }
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace

Command add_bench(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "bench", "Time kernel libraries per configuration (A/B/A/B when several) against a device-to-device copy and cuBLAS fp16");
  auto o = std::make_shared<BenchOptions>();
  app->add_option("--kernel", o->kernels, "Kernel plugin library; repeat it to time several A/B/A/B")
      ->default_str(kDefaultKernelHelp);
  app->add_option("-M", o->M, "Rows M (default: 16 * m_blocks of each configuration)")->check(dimension(true, 1));
  app->add_option("--sms", o->sms, "Grid size (default: every multiprocessor); sets how many blocks share a column")
      ->check(grid_size(0));
  app->add_option("--rounds", o->rounds, "Interleaved rounds over the kernels, each starting one library later")->capture_default_str();
  app->add_option("-K", o->K, "Depth K")->check(dimension(false, 16))->capture_default_str();
  app->add_option("-N", o->N, "Width N")->check(dimension(false, 64))->capture_default_str();
  app->add_option("--config", o->configs,
                  "Configurations, e.g. m1n8k8g8, or auto: each library chooses for -M and --group (default: all of "
                  "the first library)");
  app->add_option("--group", o->group, "Scale group with --config auto: 32, 64, 128 or -1 (per column)")
      ->check(CLI::IsMember({32, 64, 128, -1}))
      ->capture_default_str();
  app->add_option("--contract", o->contract, "marlin or fp32")->capture_default_str();
  app->add_option("--repeats", o->repeats, "Graph replays; the median is reported")->capture_default_str();
  app->add_option("--rotate-mb", o->rotate_mb, "Megabytes of weight copies to rotate through")->capture_default_str();
  app->add_flag("!--no-cublas", o->cublas, "Skip the cuBLAS fp16 baseline");
  app->add_option("--config-timeout", o->config_timeout,
                  "Seconds for one configuration's process before its row is a HANG")
      ->check(timeout_seconds(false))
      ->capture_default_str();
  app->add_flag("--isolated", o->isolated, "Internal: time here, in this process")->group("");
  app->add_flag("!--no-header", o->header, "Internal: no header")->group("");
  app->footer("Exit status: 0 every configuration was timed (n/a rows allowed); 1 a FAULT or HANG row; 2 bad input.");
  return {app, [o] {
            if (o->kernels.empty()) o->kernels = {default_kernel_library()};
            return run_bench(*o);
          }};
}

}  // namespace tc::cli
