// The adapter's one dispatch from values to vLLM's Marlin template: every instance CMake built
// (vllm_marlin_built_instances.h, written from TC_VLLM_MARLIN_INSTANCES) maps to its kernel, which an
// instance file of the build tree instantiates (instance.cu.in). Only the kernel template's
// declaration comes from vLLM (kernel.h); the definitions are linked from those files, whose host stubs
// are not static (-static-global-template-stub=false).
#include "vllm_marlin_launch.h"

#include <cstddef>

#include "kernel.h"  // vLLM: MARLIN_KERNEL_PARAMS and the Marlin kernel template

namespace tc::vllm_marlin {
namespace {

using KernelFn = void (*)(MARLIN_KERNEL_PARAMS);

constexpr vllm::ScalarTypeId kHalf = vllm::kFloat16.id();
constexpr vllm::ScalarTypeId kUint4b8 = vllm::kU4B8.id();
constexpr int kStages = 4;

KernelFn find_kernel(const Instance& i) {
// TC_VLLM_INSTANCE(m_blocks, m8, n_blocks, k_blocks, threads, group_blocks): one per built instance.
#define TC_VLLM_INSTANCE(M, M8, N, K, THREADS, G)                                                         \
  if (i == Instance{M, M8, N, K, THREADS, G})                                                          \
    return &MARLIN_NAMESPACE_NAME::Marlin<kHalf, kUint4b8, kHalf, kHalf, THREADS, M, N, K, M8, kStages, G, \
                                          false>;
#include "vllm_marlin_built_instances.h"
#undef TC_VLLM_INSTANCE
  return nullptr;
}

}  // namespace

bool built(const Instance& kernel) { return find_kernel(kernel) != nullptr; }

cudaError_t launch(const Launch& l, const LaunchArgs& a) {
  const KernelFn kernel = find_kernel(l.kernel);
  if (kernel == nullptr) return cudaErrorInvalidDeviceFunction;  // plan_problem refuses these first
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, a.max_shared_mem);
  if (e != cudaSuccess) return e;
  // A and C advance by whole rows; an int4 holds 8 fp16 values.
  const int4* A = static_cast<const int4*>(a.A) + static_cast<std::ptrdiff_t>(l.row0) * (a.K / 8);
  int4* C = static_cast<int4*>(a.C) + static_cast<std::ptrdiff_t>(l.row0) * (a.N / 8);
  kernel<<<a.sms, l.kernel.threads, a.max_shared_mem, a.stream>>>(
      A, static_cast<const int4*>(a.B), C, static_cast<int4*>(a.scratch), /*b_bias_ptr=*/nullptr,
      /*a_scales_ptr=*/nullptr, static_cast<const int4*>(a.scales), /*global_scale_ptr=*/nullptr,
      /*zp_ptr=*/nullptr, /*g_idx=*/nullptr, a.num_groups, l.rows, a.N, a.K, /*lda=*/a.K, a.locks,
      /*has_bias=*/false, /*use_atomic_add=*/false, a.fp32_reduce, a.max_shared_mem);
  return cudaGetLastError();
}

}  // namespace tc::vllm_marlin
