// Our adapter for vLLM's Marlin (csrc/quantization/marlin, the kernel behind GPTQ/AWQ Marlin serving),
// built only when -DTC_VLLM_MARLIN_SRC=<dir> names a directory holding vLLM's files at their
// repository paths (docs/vllm-marlin.md). Their kernel template is compiled as it is; this file drives
// it through tilecheck's plugin ABI (tilecheck/plugin/plugin.h). Nothing of vLLM's code is in this
// repository: the host logic (configuration choice, the cut of M into launches, workspace sizes) is
// our reimplementation in vllm_marlin_plan.cpp.
//
// What the library runs: the formats of plugin ABI 2 vLLM's Marlin implements (vllm_formats()) whose
// kernels are built, listed by tc_plugin_formats: fp16 / uint4b8 with and without act-order on the
// whole K always; with TC_VLLM_MARLIN_FORMATS also bf16, uint4 with zero points, uint8b128 and
// act-order on a shard of K (is_k_full 0). A, scales and C of one type; groups of 32, 64, 128 and
// per-column scales (act-order: grouped only); the 48 configurations of library_configs(), or vLLM's
// own choice when the problem's config is all zero. Act-order permutes A into the workspace's scratch
// first, as marlin_mm does into its a_tmp. Both contracts are accepted: the numerics this library
// declares decide how tilecheck judges.
//
// Two variants, one per library (TC_VLLM_MARLIN_FP32_REDUCE):
//   1 libtc_vllm_marlin.so              use_fp32_reduce = true (vLLM's default): fp32 partial sums in the
//                                       workspace's scratch; per-column epilogue RN16(RN16(acc) * s)
//   0 libtc_vllm_marlin_fp16_reduce.so  use_fp32_reduce = false: fp16 partial sums in C; same epilogue
// With -DTC_DELAY_VARIANTS also libtc_vllm_marlin_delay.so: variant 1 built from the delay kit's copy of
// the kernel template (TC_VLLM_MARLIN_DELAY; docs/perturb.md), for the perturbation tier.
// With -DTC_VLLM_MARLIN_MUTANTS also libtc_vllm_marlin_vNN.so: variant 1 built from a mutant of vLLM's
// files, with the kernels of the formats the mutant acts on only (docs/mutation-vllm.md).
// All declare schedule unknown: vLLM's split of K over blocks (two parts, the first whole columns)
// is not the one reference/schedule.h models.
#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "tilecheck/plugin/plugin.h"
#include "vllm_marlin_launch.h"
#include "vllm_marlin_plan.h"

#ifndef TC_VLLM_MARLIN_FP32_REDUCE
#error "TC_VLLM_MARLIN_FP32_REDUCE must be 1 (vLLM's default) or 0 (fp16 partial sums)"
#endif

namespace {

using namespace tc::vllm_marlin;

constexpr bool kFp32Reduce = TC_VLLM_MARLIN_FP32_REDUCE != 0;
// The kernel's commit (marlin_template.h); docs/vllm-marlin.md lists every file's. A mutant's library
// (mutants.cmake) names its own variant, so that its cells are never taken for the clean adapter's.
#if defined(TC_VLLM_MARLIN_VARIANT)
constexpr const char* kVariant = TC_VLLM_MARLIN_VARIANT;
#elif TC_VLLM_MARLIN_DELAY
constexpr const char* kVariant = "vllm-bc390b9-fp32-reduce-delay";
#else
constexpr const char* kVariant = kFp32Reduce ? "vllm-bc390b9-fp32-reduce" : "vllm-bc390b9-fp16-reduce";
#endif

tc_status fail(tc_status s, char* message, std::size_t capacity, const char* format, ...)
    __attribute__((format(printf, 4, 5)));
tc_status fail(tc_status s, char* message, std::size_t capacity, const char* format, ...) {
  if (message != nullptr && capacity > 0) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(message, capacity, format, args);
    va_end(args);
  }
  return s;
}

tc_status cuda_fail(cudaError_t e, const char* what, char* message, std::size_t capacity) {
  return fail(TC_ERR_CUDA, message, capacity, "%s: %s", what, cudaGetErrorString(e));
}

// The current device's limits, as marlin.cu reads them.
tc_status device_limits(DeviceLimits& d, char* message, std::size_t capacity) {
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return cuda_fail(e, "cudaGetDevice", message, capacity);
  int major = 0, minor = 0;
  const struct {
    int* value;
    cudaDeviceAttr attribute;
  } queries[] = {{&d.multiprocessors, cudaDevAttrMultiProcessorCount},
                 {&d.max_shared_mem, cudaDevAttrMaxSharedMemoryPerBlockOptin},
                 {&major, cudaDevAttrComputeCapabilityMajor},
                 {&minor, cudaDevAttrComputeCapabilityMinor}};
  for (const auto& q : queries) {
    e = cudaDeviceGetAttribute(q.value, q.attribute, device);
    if (e != cudaSuccess) return cuda_fail(e, "cudaDeviceGetAttribute", message, capacity);
  }
  d.compute_capability = 10 * major + minor;
  return TC_OK;
}

// The plan for this problem on the current device, or an error in the caller's buffer.
tc_status plan_for(const tc_problem* p, Plan& plan, char* message, std::size_t capacity) {
  if (p == nullptr) return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", "null problem");
  DeviceLimits device;
  const tc_status limits = device_limits(device, message, capacity);
  if (limits != TC_OK) return limits;
  PlanResult r = plan_problem(*p, kFp32Reduce, device, [](const Instance& i) { return built(i); });
  if (r.status != TC_OK) return fail(r.status, message, capacity, "%s", r.message.c_str());
  plan = std::move(r.plan);
  return TC_OK;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// The operands the problem's format needs, present and 16-byte aligned as plugin.h promises (vLLM's
// kernel reads the matrices, zero points and g_idx with 16-byte loads); an empty string if they are.
const char* missing_operand(const tc_problem& p, const tc_format& f) {
  struct Operand {
    const void* pointer;
    bool needed;
    const char* null_message;
    const char* misaligned_message;
  };
  const Operand operands[] = {
      {p.A, true, "A is NULL", "A is not 16-byte aligned"},
      {p.B, true, "B is NULL", "B is not 16-byte aligned"},
      {p.scales, true, "scales is NULL", "scales is not 16-byte aligned"},
      {p.C, true, "C is NULL", "C is not 16-byte aligned"},
      {p.workspace, true, "workspace is NULL", "workspace is not 16-byte aligned"},
      {p.zero_points, f.weight_type == TC_WEIGHT_UINT4, "zero_points is NULL (weight_type uint4 needs them)",
       "zero_points is not 16-byte aligned"},
      {p.g_idx, f.act_order == 1, "g_idx is NULL (act_order 1 needs it)", "g_idx is not 16-byte aligned"},
      {p.perm, f.act_order == 1, "perm is NULL (act_order 1 needs it)", "perm is not 16-byte aligned"},
  };
  for (const Operand& o : operands) {
    if (!o.needed) continue;
    if (o.pointer == nullptr) return o.null_message;
    if (!aligned16(o.pointer)) return o.misaligned_message;
  }
  return "";
}

}  // namespace

extern "C" {

TC_PLUGIN_EXPORT const tc_plugin_info_t* tc_plugin_info(void) {
  static const tc_plugin_info_t info = {TC_PLUGIN_ABI_VERSION, "vllm-marlin", kVariant,
                                        static_cast<int>(library_configs().size()), library_configs().data()};
  return &info;
}

// The formats whose kernels are built into this library (formats_with_kernels), computed once.
TC_PLUGIN_EXPORT const tc_format* tc_plugin_formats(int* count) {
  static const std::vector<tc_format> formats = formats_with_kernels([](const Instance& i) { return built(i); });
  if (count != nullptr) *count = static_cast<int>(formats.size());
  return formats.data();
}

TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_size(const tc_problem* p, std::size_t* bytes, char* message,
                                                    std::size_t capacity) {
  if (bytes == nullptr) return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", "null bytes");
  // The whole plan, as a run makes it: tilecheck learns that a cell is n/a without a launch.
  Plan plan;
  const tc_status planned = plan_for(p, plan, message, capacity);
  if (planned != TC_OK) return planned;
  *bytes = plan.workspace_bytes;
  return TC_OK;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_layout(const tc_problem* p, tc_workspace_layout* layout,
                                                      char* message, std::size_t capacity) {
  if (layout == nullptr) return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", "null layout");
  Plan plan;
  const tc_status planned = plan_for(p, plan, message, capacity);
  if (planned != TC_OK) return planned;
  *layout = {0, plan.lock_bytes, plan.scratch_offset, plan.scratch_bytes};
  return TC_OK;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_run(const tc_problem* p, char* message, std::size_t capacity) {
  Plan plan;
  const tc_status planned = plan_for(p, plan, message, capacity);
  if (planned != TC_OK) return planned;
  const char* missing = missing_operand(*p, plan.format);
  if (*missing != '\0') return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", missing);
  const bool act_order = plan.format.act_order == 1;
  if (p->workspace_bytes < plan.workspace_bytes)
    return fail(TC_ERR_WORKSPACE, message, capacity, "workspace of %zu bytes; %zu needed (%zu of locks for sms=%d%s%s)",
                p->workspace_bytes, plan.workspace_bytes, plan.lock_bytes, plan.sms,
                kFp32Reduce ? ", then the fp32 partial tiles" : "", act_order ? ", then A permuted" : "");

  DeviceLimits device;
  const tc_status limits = device_limits(device, message, capacity);
  if (limits != TC_OK) return limits;
  LaunchArgs args;
  args.A = p->A, args.B = p->B, args.scales = p->scales, args.C = p->C;
  args.zero_points = plan.format.weight_type == TC_WEIGHT_UINT4 ? p->zero_points : nullptr;
  args.stream = static_cast<cudaStream_t>(p->stream);
  if (act_order) {  // marlin_mm: A's columns into the kernel's order first; g_idx passed on, as vLLM does
    void* permuted = static_cast<char*>(p->workspace) + plan.permuted_a_offset;
    const cudaError_t e = permute_a(p->A, static_cast<const int*>(p->perm), permuted, p->M, p->K, args.stream);
    if (e != cudaSuccess)
      return fail(TC_ERR_CUDA, message, capacity, "permutation of A (act-order): %s", cudaGetErrorString(e));
    args.A = permuted;
    args.g_idx = static_cast<const int*>(p->g_idx);
  }
  args.locks = static_cast<int*>(p->workspace);
  args.scratch = kFp32Reduce ? static_cast<char*>(p->workspace) + plan.scratch_offset : nullptr;
  args.N = p->N, args.K = p->K, args.num_groups = plan.num_groups;
  args.sms = plan.sms, args.max_shared_mem = device.max_shared_mem;
  args.fp32_reduce = kFp32Reduce;
  for (const Launch& l : plan.launches) {
    const cudaError_t e = launch(l, args);
    if (e != cudaSuccess)
      return fail(TC_ERR_CUDA, message, capacity, "launch of %s on rows %d-%d: %s", name(l.kernel).c_str(), l.row0,
                  l.row0 + l.rows - 1, cudaGetErrorString(e));
  }
  return TC_OK;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_numerics(const tc_problem* p, tc_numerics* numerics, char* message,
                                              std::size_t capacity) {
  if (numerics == nullptr) return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", "null numerics");
  Plan plan;
  const tc_status planned = plan_for(p, plan, message, capacity);
  if (planned != TC_OK) return planned;
  *numerics = declared_numerics(plan);  // vllm_marlin_plan.h says what and why
  return TC_OK;
}

}  // extern "C"
