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
#include "bench_order.h"
#include "commands.h"
#include "data_paths.h"
#include "option_limits.h"
#include "tilecheck/kernel/plugin_loader.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/error.h"
#include "tilecheck/reference/rng.h"
#include "tilecheck/reference/schedule.h"
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

void check_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(cat(call, " failed: cuBLAS status ", int(s), " (", file, ":", line, ")"));
}
#define TC_CHECK_CUBLAS(call) check_cublas((call), #call, __FILE__, __LINE__)

// Fills `copies` consecutive device buffers of `bytes` each with the same 16-bit words from the
// counter RNG: `half_range` gives fp16 values of about +-1 (random codes otherwise), so nothing
// overflows or goes non-finite. The first copy is uploaded, the rest copied on the device.
void fill(void* device, size_t bytes, std::uint64_t seed, bool half_range, int copies = 1) {
  std::vector<std::uint16_t> host(bytes / 2);
  const CounterRng rng(seed, "bench");
  for (size_t i = 0; i < host.size(); ++i) {
    const auto b = static_cast<std::uint16_t>(rng.bits(i));
    host[i] = half_range ? static_cast<std::uint16_t>(0x3000 | (b & 0x87FF)) : b;  // |x| in [2^-3, 2^-1)
  }
  TC_CHECK_CUDA(cudaMemcpy(device, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  for (int c = 1; c < copies; ++c)
    TC_CHECK_CUDA(cudaMemcpy(static_cast<char*>(device) + c * bytes, device, bytes, cudaMemcpyDeviceToDevice));
  TC_CHECK_CUDA(cudaDeviceSynchronize());  // the copies are not ordered before the timing stream's work
}

// Seconds per call of `calls` captured into one graph by `record`, over `repeats` replays.
struct Timing {
  double median = 0, p10 = 0, p90 = 0;
};

template <typename Record>
Timing time_graph(cudaStream_t stream, int calls, int repeats, Record&& record) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  TC_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < calls; ++i) record(i);
  TC_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  TC_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t start, stop;
  TC_CHECK_CUDA(cudaEventCreate(&start));
  TC_CHECK_CUDA(cudaEventCreate(&stop));
  for (int w = 0; w < 2; ++w) TC_CHECK_CUDA(cudaGraphLaunch(exec, stream));  // warm-up
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    TC_CHECK_CUDA(cudaEventRecord(start, stream));
    TC_CHECK_CUDA(cudaGraphLaunch(exec, stream));
    TC_CHECK_CUDA(cudaEventRecord(stop, stream));
    TC_CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    TC_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    seconds.push_back(ms * 1e-3 / calls);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  std::sort(seconds.begin(), seconds.end());
  const auto at = [&](double q) { return seconds[static_cast<size_t>(q * (seconds.size() - 1) + 0.5)]; };
  return {at(0.5), at(0.1), at(0.9)};
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
      for (const std::string& name : o.configs) configs_.push_back(parse_config(name));
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
    TC_CHECK_CUBLAS(cublasCreate(&cublas_));
    TC_CHECK_CUBLAS(cublasSetStream(cublas_, stream_));
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

// Ceiling 1: device-to-device copy of half the rotation size (bytes read + bytes written), in TB/s.
double copy_ceiling(const Bench& b) {
  const size_t copy_bytes = static_cast<size_t>(b.options().rotate_mb) << 19;
  DeviceBuffer copy_src(copy_bytes), copy_dst(copy_bytes);
  TC_CHECK_CUDA(cudaMemset(copy_src.get(), 1, copy_bytes));
  const double copy_s = time_graph(b.stream(), 4, b.options().repeats, [&](int) {
    TC_CHECK_CUDA(cudaMemcpyAsync(copy_dst.get(), copy_src.get(), copy_bytes, cudaMemcpyDeviceToDevice, b.stream()));
  }).median;
  return 2.0 * copy_bytes / copy_s / 1e12;
}

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

// One configuration's operands on the device: A and C once, the weights and scales `copies` times
// over, rotated through by the timed calls so the L2 cannot hold them.
struct BenchOperands {
  BenchOperands(const Shape& s, int rotate_mb)
      : shape(s),
        b_bytes(static_cast<size_t>(s.K) * s.N / 2),
        s_bytes(static_cast<size_t>(scale_rows(s.K, s.group)) * s.N * 2),
        copies(std::max<int>(2, static_cast<int>((static_cast<size_t>(rotate_mb) << 20) / (b_bytes + s_bytes)) + 1)),
        A(static_cast<size_t>(s.M) * s.K * 2),
        C(static_cast<size_t>(s.M) * s.N * 2),
        B(copies * b_bytes),
        S(copies * s_bytes) {
    fill(A.get(), static_cast<size_t>(s.M) * s.K * 2, 1, true);
    fill(B.get(), b_bytes, 2, false, copies);
    fill(S.get(), s_bytes, 3, true, copies);
  }
  // Bytes one call moves at the least: the weights and scales once, A read, C written.
  double bytes() const { return double(b_bytes + s_bytes) + 2.0 * shape.M * shape.K + 2.0 * shape.M * shape.N; }

  Shape shape;
  size_t b_bytes, s_bytes;
  int copies;
  DeviceBuffer A, C, B, S;
};

// One kernel library on one configuration: its timing per round, or why it does not implement it.
struct KernelTimings {
  std::string not_applicable;  // non-empty: the library refused the configuration (TC_ERR_UNSUPPORTED)
  std::vector<Timing> rounds;
};

// Every kernel library on one configuration, the rounds interleaved. A library that does not
// implement the configuration gets an n/a row and the others are still timed; if none does, the
// error names TC_ERR_UNSUPPORTED so the parent process prints the configuration as n/a.
std::vector<KernelTimings> time_kernels(const Bench& b, const TileConfig& config, BenchOperands& ops) {
  const std::string config_name = tc::name(config);  // once, not per captured launch
  const std::vector<KernelPlugin>& kernels = b.kernels();
  Launch launch;
  launch.config = config;
  launch.sms = b.options().sms;
  launch.flags = TC_FLAG_SKIP_WORKSPACE_CHECK;
  launch.stream = b.stream();
  tc_problem q = make_problem(ops.shape, b.contract(), launch, {ops.A.get(), ops.B.get(), ops.S.get(), ops.C.get()});
  size_t ws_bytes = 0;
  std::vector<KernelTimings> timings(kernels.size());
  std::string refusals;
  // A library may decline when asked for the workspace size or when first run.
  const auto declines = [&](size_t k, const RunResult& r) {
    if (r.status != TC_ERR_UNSUPPORTED) return false;
    timings[k].not_applicable = r.message;
    refusals += cat(refusals.empty() ? "" : "; ", kernels[k].info().variant, ": ", r.message);
    return true;
  };
  const auto require_one = [&] {
    const bool none = std::all_of(timings.begin(), timings.end(), [](const KernelTimings& t) { return !t.not_applicable.empty(); });
    require(!none, config_name, ": ", status_name(TC_ERR_UNSUPPORTED), ": ", refusals);
  };
  for (size_t k = 0; k < kernels.size(); ++k) {
    size_t need = 0;
    const RunResult sized = kernels[k].workspace_size(q, need);
    if (declines(k, sized)) continue;
    require(sized.ok(), "workspace size for ", config_name, ": ", status_name(sized.status), ": ", sized.message);
    ws_bytes = std::max(ws_bytes, need);
  }
  require_one();
  DeviceBuffer workspace(ws_bytes);
  workspace.zero();
  q.workspace = workspace.get(), q.workspace_bytes = ws_bytes;
  for (int round = 0; round < b.options().rounds; ++round) {
    for (const size_t k : tc::cli::round_order(kernels.size(), round)) {
      if (!timings[k].not_applicable.empty()) continue;
      const RunResult check = kernels[k].run(q);  // once outside the graph, to report errors plainly
      if (round == 0 && declines(k, check)) continue;
      require(check.ok(), config_name, ": ", status_name(check.status), ": ", check.message);
      TC_CHECK_CUDA(cudaStreamSynchronize(b.stream()));
      timings[k].rounds.push_back(time_graph(b.stream(), ops.copies, b.options().repeats, [&](int i) {
        q.B = static_cast<char*>(ops.B.get()) + i * ops.b_bytes;
        q.scales = static_cast<char*>(ops.S.get()) + i * ops.s_bytes;
        const RunResult r = kernels[k].run(q);
        require(r.ok(), config_name, ": ", r.message);
      }));
    }
  }
  require_one();
  return timings;
}

// Ceiling 2: cuBLAS fp16 on fp16 weights of the same shape, rotated likewise (C^T = W^T A^T in
// column-major). Timed once per M; 0 without cuBLAS.
double cublas_seconds(Bench& b, BenchOperands& ops) {
  const int M = ops.shape.M, N = ops.shape.N, K = ops.shape.K;
  double& theirs = b.cublas_seconds_by_m()[M];
  if (!b.cublas() || theirs != 0) return theirs;
  const size_t w_bytes = static_cast<size_t>(K) * N * 2;
  const int rotate_mb = b.options().rotate_mb;
  const int w_copies = std::max<int>(2, static_cast<int>((static_cast<size_t>(rotate_mb) << 20) / w_bytes) + 1);
  DeviceBuffer W(w_copies * w_bytes);
  fill(W.get(), w_bytes, 4, true, w_copies);
  const float one = 1.0f, zero = 0.0f;
  theirs = time_graph(b.stream(), w_copies, b.options().repeats, [&](int i) {
    TC_CHECK_CUBLAS(cublasGemmEx(b.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one,
                                 static_cast<char*>(W.get()) + i * w_bytes, CUDA_R_16F, N, ops.A.get(), CUDA_R_16F, K,
                                 &zero, ops.C.get(), CUDA_R_16F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }).median;
  return theirs;
}

// One line per kernel library: the median (of the round medians), the spread, the bandwidth and
// its share of the copy ceiling, and the speed-up over cuBLAS.
void print_rows(const Bench& b, const TileConfig& config, const BenchOperands& ops,
                const std::vector<KernelTimings>& timings, double copy_tbs, double theirs) {
  const BenchOptions& o = b.options();
  const Shape& s = ops.shape;
  const int grid = o.sms > 0 ? o.sms : b.device().multiProcessorCount;
  const std::string slices = slice_counts(make_schedule(s, config, grid));
  const double bytes = ops.bytes();
  for (size_t k = 0; k < b.kernels().size(); ++k) {
    if (!timings[k].not_applicable.empty()) {
      std::printf("%-12s %-10s n/a: %s\n", tc::name(config).c_str(), b.kernels()[k].info().variant,
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
                tc::name(config).c_str(), b.kernels()[k].info().variant, s.M, s.K, s.N, s.group, grid, slices.c_str(),
                ours * 1e6, lo * 1e6, hi * 1e6, bytes / ours / 1e12, 100 * bytes / ours / 1e12 / copy_tbs,
                theirs * 1e6, theirs > 0 ? theirs / ours : 0.0);
  }
  std::fflush(stdout);
}

int time_here(const BenchOptions& o) {
  Bench b(o);
  const double copy_tbs = copy_ceiling(b);
  if (o.header) print_header(b, copy_tbs);
  b.start_cublas();
  for (const TileConfig& config : b.configs()) {
    const Shape shape{o.M > 0 ? o.M : 16 * config.m_blocks, o.N, o.K, config.group()};
    validate_config(config, shape);
    BenchOperands ops(shape, o.rotate_mb);
    const std::vector<KernelTimings> timings = time_kernels(b, config, ops);
    print_rows(b, config, ops, timings, copy_tbs, cublas_seconds(b, ops));
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
  app->add_option("--config", o->configs, "Configurations, e.g. m1n8k8g8 (default: all of the library)");
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
