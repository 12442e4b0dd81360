// The kernel's host API, exported through the plugin C ABI (tilecheck/plugin/plugin.h). Reads top to
// bottom: check every precondition -> resolve the configuration -> check the workspace -> plan the
// launches (reference/'s schedule model) -> launch each -> check the launch error.
#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernel_table.h"
#include "permute_columns.h"
#include "tilecheck/core/error.h"
#include "tilecheck/kernel/configs.h"
#include "tilecheck/kernel/pipeline_depth.h"
#include "tilecheck/plugin/debug_entry_points.h"
#include "tilecheck/plugin/formats.h"  // same_format (inline)
#include "tilecheck/plugin/plugin.h"
#include "tilecheck/reference/schedule.h"

#ifndef TC_VARIANT_NAME
#define TC_VARIANT_NAME "upstream"
#endif

namespace tc::kernel {
namespace {

constexpr std::size_t kLockAlignment = 256;

struct Failure {
  tc_status status;
  std::string message;
};

[[noreturn]] void fail(tc_status status, std::string message) { throw Failure{status, std::move(message)}; }

void check_cuda(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess) fail(TC_ERR_CUDA, cat(what, " failed: ", cudaGetErrorString(e), " (", file, ":", line, ")"));
}
#define TC_CUDA(call) check_cuda((call), #call, __FILE__, __LINE__)

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

std::string built_configs() {
  std::string names;
  for (const TileConfig& c : kLibraryConfigs) names += (names.empty() ? "" : " ") + name(c);
  return names;
}

#ifndef TC_KERNEL_BF16
#define TC_KERNEL_BF16 0
#endif
#ifndef TC_KERNEL_ZERO_POINTS
#define TC_KERNEL_ZERO_POINTS 0
#endif

// The formats this library implements (plugin ABI 2): fp16 / uint4b8; bf16 where the bf16 instances
// are built; uint4 with zero points (AWQ: q - z) where the zero-point instances are; each also with
// act-order over the whole K (is_k_full): A's columns are permuted into the kernel's order first
// (permute_columns.h), and since every group then holds `group` consecutive rows, the grouped
// kernel runs unchanged, its scales and zero points indexed by group as without act-order. Not yet:
// 8-bit codes, act-order on a shard of K (is_k_full 0, groups of uneven size).
constexpr int kFormatCount = 2 * (1 + TC_KERNEL_BF16) * (1 + TC_KERNEL_ZERO_POINTS);
constexpr std::array<tc_format, kFormatCount> built_formats() {
  std::array<tc_format, kFormatCount> formats{};
  int i = 0;
  for (int zero_points = 0; zero_points <= TC_KERNEL_ZERO_POINTS; ++zero_points)
    for (int bf16 = 0; bf16 <= TC_KERNEL_BF16; ++bf16)
      for (int act_order = 0; act_order <= 1; ++act_order) {
        const int d = bf16 ? TC_DTYPE_BF16 : TC_DTYPE_FP16;
        formats[i++] = {d, d, d, zero_points ? TC_WEIGHT_UINT4 : TC_WEIGHT_UINT4B8, act_order, 1};
      }
  return formats;
}
constexpr std::array<tc_format, kFormatCount> kFormats = built_formats();  // fp16-uint4b8 first

// "fp16-uint4b8-act": the formats' names, as tilecheck writes them (tilecheck/plugin/formats.h).
std::string listed_formats() {
  std::string names;
  for (const tc_format& f : kFormats)
    names += cat(names.empty() ? "" : ", ", f.a_dtype == TC_DTYPE_BF16 ? "bf16" : "fp16",
                 f.weight_type == TC_WEIGHT_UINT4 ? "-uint4" : "-uint4b8", f.act_order ? "-act" : "");
  return names;
}

// The problem's format, one listed; a format left all zero (a problem written by hand against ABI
// 1's fields) is ABI 1's fp16 / uint4b8.
struct FormatChoice {
  bool bf16 = false;
  bool act_order = false;
  bool zero_points = false;
};
FormatChoice resolve_format(const tc_format& f) {
  if (same_format(f, tc_format{})) return {};
  for (const tc_format& listed : kFormats)
    if (same_format(f, listed)) return {f.a_dtype == TC_DTYPE_BF16, f.act_order == 1, f.weight_type == TC_WEIGHT_UINT4};
  const char* why =
      !TC_KERNEL_ZERO_POINTS && f.weight_type == TC_WEIGHT_UINT4
          ? "; uint4 with zero points needs a build with -DTC_KERNEL_ZERO_POINTS=ON"
          : (!TC_KERNEL_BF16 && f.a_dtype == TC_DTYPE_BF16 ? "; bf16 needs a build with -DTC_KERNEL_BF16=ON" : "");
  fail(TC_ERR_UNSUPPORTED,
       cat("format a_dtype=", f.a_dtype, " scale_dtype=", f.scale_dtype, " c_dtype=", f.c_dtype,
           " weight_type=", f.weight_type, " act_order=", f.act_order, " is_k_full=", f.is_k_full,
           " is not one this library lists (", listed_formats(), "; act-order only with is_k_full 1", why, ")"));
}

struct Resolved {
  bool bf16;
  bool act_order;
  bool zero_points;
  Shape shape;
  TileConfig config;
  int sms;
  int max_par;
  std::size_t lock_bytes;
  std::size_t partial_bytes;
  std::size_t permuted_a_bytes;  // act-order: A in the kernel's K order, after the partials
};

Resolved resolve(const tc_problem* p) {
  if (p == nullptr) fail(TC_ERR_INVALID_ARGUMENT, "problem is NULL");
  if (p->abi_version != TC_PLUGIN_ABI_VERSION)
    fail(TC_ERR_INVALID_ARGUMENT, cat("abi_version=", p->abi_version, " but this kernel implements ",
                                      TC_PLUGIN_ABI_VERSION));
  Resolved r;
  const FormatChoice format = resolve_format(p->format);
  r.bf16 = format.bf16;
  r.act_order = format.act_order;
  r.zero_points = format.zero_points;
  r.shape = Shape{p->M, p->N, p->K, p->group};
  try {
    validate_shape(r.shape);
  } catch (const Error& e) {
    fail(TC_ERR_INVALID_ARGUMENT, e.what());
  }
  if (p->contract != TC_CONTRACT_MARLIN && p->contract != TC_CONTRACT_FP32)
    fail(TC_ERR_INVALID_ARGUMENT, cat("contract=", int(p->contract), " (expected 0 marlin or 1 fp32)"));
  if (p->sms < 0 || p->sms > 65535) fail(TC_ERR_INVALID_ARGUMENT, cat("sms=", p->sms, " (expected 0..65535)"));
  if (p->max_par < 0 || p->max_par > 1024)
    fail(TC_ERR_INVALID_ARGUMENT, cat("max_par=", p->max_par, " (expected 0..1024)"));
  r.max_par = p->max_par == 0 ? kDefaultMaxPar : p->max_par;
  const tc_tile_config& c = p->config;
  const bool automatic = c.m_blocks == 0 && c.n_blocks == 0 && c.k_blocks == 0 && c.group_blocks == 0;
  try {
    r.config = automatic ? our_config_choice(r.shape) : TileConfig{c.m_blocks, c.n_blocks, c.k_blocks, c.group_blocks};
    if (!automatic) validate_config(r.config, r.shape);
  } catch (const Error& e) {
    fail(automatic ? TC_ERR_UNSUPPORTED : TC_ERR_INVALID_ARGUMENT, e.what());
  }
  if (device::find_kernel(r.config, r.bf16, r.zero_points).kernel == nullptr)
    fail(TC_ERR_UNSUPPORTED, cat("no kernel is built for config ", name(r.config), " (built: ", built_configs(), ")"));
  r.sms = p->sms;
  if (r.sms == 0) {
    int ordinal = 0;
    TC_CUDA(cudaGetDevice(&ordinal));
    TC_CUDA(cudaDeviceGetAttribute(&r.sms, cudaDevAttrMultiProcessorCount, ordinal));
  }
  const std::size_t locks = static_cast<std::size_t>(r.shape.N / r.config.tile_n()) * r.max_par;
  r.lock_bytes = (locks * sizeof(int) + kLockAlignment - 1) / kLockAlignment * kLockAlignment;
  r.partial_bytes = p->contract == TC_CONTRACT_FP32
                        ? static_cast<std::size_t>(r.sms) * r.config.tile_m() * r.config.tile_n() * sizeof(float)
                        : 0;
  r.permuted_a_bytes = r.act_order ? (static_cast<std::size_t>(r.shape.M) * r.shape.K * 2 + 15) / 16 * 16 : 0;
  return r;
}

void check_buffers(const tc_problem* p, const Resolved& r) {
  const struct { const void* ptr; const char* name; } buffers[] = {
      {p->A, "A"}, {p->B, "B"}, {p->scales, "scales"}, {p->C, "C"}, {p->workspace, "workspace"}};
  for (const auto& b : buffers) {
    if (b.ptr == nullptr) fail(TC_ERR_INVALID_ARGUMENT, cat(b.name, " is NULL"));
    if (!aligned16(b.ptr)) fail(TC_ERR_INVALID_ARGUMENT, cat(b.name, " at ", b.ptr, " is not 16-byte aligned"));
  }
  if (r.act_order && (p->perm == nullptr || p->g_idx == nullptr))
    fail(TC_ERR_INVALID_ARGUMENT, cat("act-order: ", p->perm == nullptr ? "perm" : "g_idx", " is NULL"));
  if (r.zero_points && p->zero_points == nullptr) fail(TC_ERR_INVALID_ARGUMENT, "uint4: zero_points is NULL");
  if (r.zero_points && !aligned16(p->zero_points))  // the grouped kernel copies them 16 bytes at a time
    fail(TC_ERR_INVALID_ARGUMENT, cat("zero_points at ", p->zero_points, " is not 16-byte aligned"));
  const std::size_t need = r.lock_bytes + r.partial_bytes + r.permuted_a_bytes;
  if (p->workspace_bytes < need)
    fail(TC_ERR_WORKSPACE, cat("workspace has ", p->workspace_bytes, " bytes; this problem needs ", need,
                               " (config ", name(r.config), ", sms=", r.sms, ", max_par=", r.max_par, ")"));
}

// The locks must be zero: a non-zero lock means an earlier launch died mid-reduction or the
// workspace is shared with a launch in flight, and would make this one hang or race.
void check_locks_zero(const tc_problem* p, const Resolved& r, cudaStream_t stream) {
  if (p->flags & TC_FLAG_SKIP_WORKSPACE_CHECK) return;
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  TC_CUDA(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone) return;  // cannot read back inside a graph capture
  std::vector<int> locks(r.lock_bytes / sizeof(int));
  TC_CUDA(cudaMemcpyAsync(locks.data(), p->workspace, r.lock_bytes, cudaMemcpyDeviceToHost, stream));
  TC_CUDA(cudaStreamSynchronize(stream));
  for (std::size_t i = 0; i < locks.size(); ++i)
    if (locks[i] != 0)
      fail(TC_ERR_WORKSPACE, cat("workspace lock ", i, " is ", locks[i], ", not 0: zero the workspace once before "
                                 "first use, and never share it between launches that may run at once"));
}

struct Debug {  // optional recordings for the GPU tests and `tilecheck tiles --bisect`
  int* trace = nullptr;
  int trace_capacity = 0;
  float* dump = nullptr;
  int dump_launch = -1;
  int dump_column = -1;
};

void launch_all(const tc_problem* p, const Resolved& r, const Debug& debug) {
  const auto stream = static_cast<cudaStream_t>(p->stream);
  const std::vector<LaunchPlan> plans = plan_launches(r.shape.M, r.config.m_blocks, r.max_par);
  // Every kernel first: a block waits on the lock of a block with a higher index, so all `sms`
  // blocks must be resident at once, or the grid could wait on a block that never starts.
  std::vector<device::KernelEntry> entries;
  int ordinal = 0, multiprocessors = 0;
  TC_CUDA(cudaGetDevice(&ordinal));
  TC_CUDA(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, ordinal));
  for (const LaunchPlan& plan : plans) {
    TileConfig config = r.config;
    config.m_blocks = plan.m_blocks;
    const bool short_slices = runs_short_slices(config, r.shape.N, r.shape.K, plan.par, r.sms);
    const device::KernelEntry entry = device::find_kernel(config, r.bf16, r.zero_points, short_slices);
    if (entry.kernel == nullptr)
      fail(TC_ERR_UNSUPPORTED, cat("no kernel is built for config ", name(config), " (built: ", built_configs(), ")"));
    TC_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(entry.kernel),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, entry.smem_bytes));
    int per_sm = 0;
    TC_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, entry.kernel, kThreads, entry.smem_bytes));
    if (r.sms > per_sm * multiprocessors)
      fail(TC_ERR_INVALID_ARGUMENT, cat("sms=", r.sms, " exceeds the ", per_sm * multiprocessors,
                                        " blocks of config ", name(config), " that this device can hold at once "
                                        "(the cross-block locks need every block resident)"));
    entries.push_back(entry);
  }
  check_locks_zero(p, r, stream);
  const void* a = p->A;
  if (r.act_order) {  // A's columns into the kernel's order, in the workspace's scratch after the partials
    void* permuted = static_cast<char*>(p->workspace) + r.lock_bytes + r.partial_bytes;
    TC_CUDA(launch_permute_columns(p->A, static_cast<const int*>(p->perm), permuted, r.shape.M, r.shape.K, stream));
    a = permuted;
  }
  for (std::size_t l = 0; l < plans.size(); ++l) {
    const LaunchPlan& plan = plans[l];
    const device::KernelEntry& entry = entries[l];
    device::KernelArgs args{};
    args.A = static_cast<const int4*>(a) + static_cast<std::size_t>(plan.row_begin) * r.shape.K / 8;
    args.B = static_cast<const int4*>(p->B);
    args.scales = static_cast<const int4*>(p->scales);
    args.C = static_cast<int4*>(p->C) + static_cast<std::size_t>(plan.row_begin) * r.shape.N / 8;
    args.locks = static_cast<int*>(p->workspace);
    args.partials = r.partial_bytes ? reinterpret_cast<float*>(static_cast<char*>(p->workspace) + r.lock_bytes) : nullptr;
    args.trace = debug.trace ? debug.trace + l * r.sms * (1 + 5 * debug.trace_capacity) : nullptr;
    args.trace_capacity = debug.trace_capacity;
    args.dump = static_cast<int>(l) == debug.dump_launch ? debug.dump : nullptr;
    args.dump_column = debug.dump_column;
    args.rows = plan.rows;
    args.N = r.shape.N;
    args.K = r.shape.K;
    args.par = plan.par;
    args.contract = p->contract;
    args.zero_points = r.zero_points ? static_cast<const int4*>(p->zero_points) : nullptr;
    entry.kernel<<<r.sms, kThreads, entry.smem_bytes, stream>>>(args);
    TC_CUDA(cudaGetLastError());
  }
}

void write_message(char* message, std::size_t capacity, const std::string& text) {
  if (message == nullptr || capacity == 0) return;
  std::snprintf(message, capacity, "%s", text.c_str());
}

template <typename Body>
tc_status guarded(char* message, std::size_t capacity, Body&& body) {
  try {
    body();
    write_message(message, capacity, "");
    return TC_OK;
  } catch (const Failure& f) {
    write_message(message, capacity, f.message);
    return f.status;
  } catch (const std::exception& e) {
    write_message(message, capacity, cat("internal error: ", e.what()));
    return TC_ERR_INVALID_ARGUMENT;
  }
}

}  // namespace

tc_status run_debug(const tc_problem* problem, const Debug& debug, char* message, std::size_t capacity) {
  return guarded(message, capacity, [&] {
    const Resolved r = resolve(problem);
    check_buffers(problem, r);
    launch_all(problem, r, debug);
  });
}

}  // namespace tc::kernel

extern "C" {

const tc_plugin_info_t* tc_plugin_info(void) {
  static const tc_plugin_info_t info = [] {
    constexpr int kCount = static_cast<int>(tc::kLibraryConfigs.size());
    static tc_tile_config configs[kCount];
    for (int i = 0; i < kCount; ++i) {
      const tc::TileConfig& c = tc::kLibraryConfigs[i];
      configs[i] = {c.m_blocks, c.n_blocks, c.k_blocks, c.group_blocks};
    }
    return tc_plugin_info_t{TC_PLUGIN_ABI_VERSION, "tilecheck-marlin", TC_VARIANT_NAME, kCount, configs};
  }();
  return &info;
}

const tc_format* tc_plugin_formats(int* count) {
  if (count != nullptr) *count = tc::kernel::kFormatCount;
  return tc::kernel::kFormats.data();
}

tc_status tc_plugin_workspace_size(const tc_problem* problem, size_t* bytes, char* message,
                                   size_t message_capacity) {
  return tc::kernel::guarded(message, message_capacity, [&] {
    if (bytes == nullptr) tc::kernel::fail(TC_ERR_INVALID_ARGUMENT, "bytes is NULL");
    const tc::kernel::Resolved r = tc::kernel::resolve(problem);
    *bytes = r.lock_bytes + r.partial_bytes + r.permuted_a_bytes;
  });
}

// Locks first (one int per tile column and batched problem), then the fp32 contract's partial sums
// (each block writes its slot before the next block in the column's order reads it), then, with
// act-order, A in the kernel's order (written before the GEMM reads it): scratch, both.
tc_status tc_plugin_workspace_layout(const tc_problem* problem, tc_workspace_layout* layout, char* message,
                                     size_t message_capacity) {
  return tc::kernel::guarded(message, message_capacity, [&] {
    if (layout == nullptr) tc::kernel::fail(TC_ERR_INVALID_ARGUMENT, "layout is NULL");
    const tc::kernel::Resolved r = tc::kernel::resolve(problem);
    *layout = {0, r.lock_bytes, r.lock_bytes, r.partial_bytes + r.permuted_a_bytes};
  });
}

tc_status tc_plugin_run(const tc_problem* problem, char* message, size_t message_capacity) {
  return tc::kernel::run_debug(problem, {}, message, message_capacity);
}

// Exactly the contract asked for, on Marlin's striped schedule; a block's slice holds whole k-tiles
// of the configuration it runs.
tc_status tc_plugin_numerics(const tc_problem* problem, tc_numerics* numerics, char* message,
                             size_t message_capacity) {
  return tc::kernel::guarded(message, message_capacity, [&] {
    if (numerics == nullptr) tc::kernel::fail(TC_ERR_INVALID_ARGUMENT, "numerics is NULL");
    const tc::kernel::Resolved r = tc::kernel::resolve(problem);
    const bool marlin = problem->contract == TC_CONTRACT_MARLIN;
    *numerics = {TC_ACCUMULATOR_FP32, marlin ? TC_PARTIALS_FP16 : TC_PARTIALS_FP32,
                 marlin ? TC_EPILOGUE_ROUND_THEN_SCALE : TC_EPILOGUE_SCALE_THEN_ROUND, TC_SCHEDULE_MARLIN_STRIPED,
                 r.config.tile_k()};
  });
}

tc_status tc_kernel_run_traced(const tc_problem* problem, int* trace, int trace_capacity, char* message,
                               size_t message_capacity) {
  tc::kernel::Debug debug;
  debug.trace = trace;
  debug.trace_capacity = trace_capacity;
  return tc::kernel::run_debug(problem, debug, message, message_capacity);
}

#if TC_ACC_DUMP
tc_status tc_kernel_run_dump(const tc_problem* problem, int launch, int column, float* dump, char* message,
                             size_t message_capacity) {
  tc::kernel::Debug debug;
  debug.dump = dump;
  debug.dump_launch = launch;
  debug.dump_column = column;
  return tc::kernel::run_debug(problem, debug, message, message_capacity);
}
#endif

}  // extern "C"
