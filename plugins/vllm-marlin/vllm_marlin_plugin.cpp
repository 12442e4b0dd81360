// Our adapter for vLLM's Marlin (csrc/quantization/marlin, the kernel behind GPTQ/AWQ Marlin serving),
// built only when -DTC_VLLM_MARLIN_SRC=<dir> names a directory holding vLLM's files at their
// repository paths (docs/vllm-marlin.md). Their kernel template is compiled as it is; this file drives
// it through tilecheck's plugin ABI (tilecheck/plugin/plugin.h). Nothing of vLLM's code is in this
// repository: the host logic (configuration choice, the cut of M into launches, workspace sizes) is
// our reimplementation in vllm_marlin_plan.cpp.
//
// What the library runs: fp16 activations, scales and output, 4-bit codes (vLLM's uint4b8, our zero
// point 8), no zero points, no act-order; groups of 32, 64, 128 and per-column scales; the 48
// configurations of library_configs(), or vLLM's own choice when the problem's config is all zero.
// Both contracts are accepted: the numerics this library declares decide how tilecheck judges.
//
// Two variants, one per library (TC_VLLM_MARLIN_FP32_REDUCE):
//   1 libtc_vllm_marlin.so              use_fp32_reduce = true (vLLM's default): fp32 partial sums in the
//                                       workspace's scratch; per-column epilogue RN16(RN16(acc) * s)
//   0 libtc_vllm_marlin_fp16_reduce.so  use_fp32_reduce = false: fp16 partial sums in C; same epilogue
// With -DTC_DELAY_VARIANTS also libtc_vllm_marlin_delay.so: variant 1 built from the delay kit's copy of
// the kernel template (TC_VLLM_MARLIN_DELAY; docs/perturb.md), for the perturbation tier.
// All declare schedule unknown: vLLM's split of K over blocks (two parts, the first whole columns)
// is not the one reference/schedule.h models.
#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>

#include "tilecheck/plugin/plugin.h"
#include "vllm_marlin_launch.h"
#include "vllm_marlin_plan.h"

#ifndef TC_VLLM_MARLIN_FP32_REDUCE
#error "TC_VLLM_MARLIN_FP32_REDUCE must be 1 (vLLM's default) or 0 (fp16 partial sums)"
#endif

namespace {

using namespace tc::vllm_marlin;

constexpr bool kFp32Reduce = TC_VLLM_MARLIN_FP32_REDUCE != 0;
// The kernel's commit (marlin_template.h); docs/vllm-marlin.md lists every file's.
#if TC_VLLM_MARLIN_DELAY
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

}  // namespace

extern "C" {

TC_PLUGIN_EXPORT const tc_plugin_info_t* tc_plugin_info(void) {
  static const tc_plugin_info_t info = {TC_PLUGIN_ABI_VERSION, "vllm-marlin", kVariant,
                                        static_cast<int>(library_configs().size()), library_configs().data()};
  return &info;
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
  if (p->A == nullptr || p->B == nullptr || p->scales == nullptr || p->C == nullptr || p->workspace == nullptr)
    return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", "a pointer is null");
  if (!aligned16(p->A) || !aligned16(p->B) || !aligned16(p->scales) || !aligned16(p->C) || !aligned16(p->workspace))
    return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", "A, B, scales, C and workspace must be 16-byte aligned");
  if (p->workspace_bytes < plan.workspace_bytes)
    return fail(TC_ERR_WORKSPACE, message, capacity, "workspace of %zu bytes; %zu needed (%zu of locks for sms=%d%s)",
                p->workspace_bytes, plan.workspace_bytes, plan.lock_bytes, plan.sms,
                kFp32Reduce ? ", then the fp32 partial tiles" : "");

  DeviceLimits device;
  const tc_status limits = device_limits(device, message, capacity);
  if (limits != TC_OK) return limits;
  LaunchArgs args;
  args.A = p->A, args.B = p->B, args.scales = p->scales, args.C = p->C;
  args.locks = static_cast<int*>(p->workspace);
  args.scratch = kFp32Reduce ? static_cast<char*>(p->workspace) + plan.scratch_offset : nullptr;
  args.N = p->N, args.K = p->K, args.num_groups = plan.num_groups;
  args.sms = plan.sms, args.max_shared_mem = device.max_shared_mem;
  args.fp32_reduce = kFp32Reduce;
  args.stream = static_cast<cudaStream_t>(p->stream);
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
  // marlin_template.h: fp32 MMA accumulators from sm_80 on; partial sums between blocks in C_tmp as
  // fp32 (global_reduce_fp32) or in C as fp16 (global_reduce_fp16); per-column scales multiply the
  // output after it is rounded to fp16 (write_result). The shallowest k-slice a block sums is one tile.
  *numerics = {TC_ACCUMULATOR_FP32, kFp32Reduce ? TC_PARTIALS_FP32 : TC_PARTIALS_FP16, TC_EPILOGUE_ROUND_THEN_SCALE,
               TC_SCHEDULE_UNKNOWN, plan.min_k_slice};
  return TC_OK;
}

}  // extern "C"
