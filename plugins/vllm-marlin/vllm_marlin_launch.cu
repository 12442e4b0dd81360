// The adapter's one dispatch from values to vLLM's Marlin template: every instance CMake built
// (vllm_marlin_built_instances.h, written from TC_VLLM_MARLIN_INSTANCES and TC_VLLM_MARLIN_FORMATS)
// maps to its kernel, which an instance file of the build tree instantiates (instance.cu.in); and
// act-order's permutation of A, our own kernel (vLLM's marlin_mm launches its permute_cols_kernel). Only the kernel
// template's declaration comes from vLLM (kernel.h); the definitions are linked from those files, whose host stubs are
// not static (-static-global-template-stub=false).
#include "vllm_marlin_launch.h"

#include <algorithm>
#include <cstddef>

#include "kernel.h"  // vLLM: MARLIN_KERNEL_PARAMS and the Marlin kernel template

namespace tc::vllm_marlin {
namespace {

using KernelFn = void (*)(MARLIN_KERNEL_PARAMS);

constexpr int kStages = 4;

KernelFn find_kernel(const Instance& i) {
// TC_VLLM_INSTANCE(m_blocks, m8, n_blocks, k_blocks, threads, group_blocks, dtype, weight, vLLM's
// activation type, vLLM's code type): one per built instance; scales and C of the activations' type.
#define TC_VLLM_INSTANCE(M, M8, N, K, THREADS, G, DTYPE, WEIGHT, A_TYPE, B_TYPE)                                      \
  if (i == Instance{M, M8, N, K, THREADS, G, DTYPE, WEIGHT})                                                          \
    return &MARLIN_NAMESPACE_NAME::Marlin<vllm::A_TYPE.id(), vllm::B_TYPE.id(), vllm::A_TYPE.id(), vllm::A_TYPE.id(), \
                                          THREADS, M, N, K, M8, kStages, G, false>;
#include "vllm_marlin_built_instances.h"
#undef TC_VLLM_INSTANCE
  return nullptr;
}

// One thread per element of out, grid-stride: a gather within each row (perm's K ints stay in cache).
// Not tuned: it runs once per problem, before the GEMM.
__global__ void permute_columns(const unsigned short* __restrict__ A, const int* __restrict__ perm,
                                unsigned short* __restrict__ out, long long elements, int K) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; e < elements; e += stride) {
    const long long row = e / K;
    const int column = static_cast<int>(e - row * K);
    out[e] = A[row * K + perm[column]];
  }
}

}  // namespace

bool built(const Instance& kernel) { return find_kernel(kernel) != nullptr; }

cudaError_t permute_a(const void* A, const int* perm, void* out, int M, int K, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const long long elements = static_cast<long long>(M) * K;
  const long long blocks = std::min<long long>((elements + kThreads - 1) / kThreads, 65535);
  permute_columns<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const unsigned short*>(A), perm, static_cast<unsigned short*>(out), elements, K);
  return cudaGetLastError();
}

cudaError_t launch(const Launch& l, const LaunchArgs& a) {
  const KernelFn kernel = find_kernel(l.kernel);
  if (kernel == nullptr) return cudaErrorInvalidDeviceFunction;  // plan_problem refuses these first
  cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, a.max_shared_mem);
  if (e != cudaSuccess) return e;
  // A and C advance by whole rows; an int4 holds 8 16-bit values.
  const int4* A = static_cast<const int4*>(a.A) + static_cast<std::ptrdiff_t>(l.row0) * (a.K / 8);
  int4* C = static_cast<int4*>(a.C) + static_cast<std::ptrdiff_t>(l.row0) * (a.N / 8);
  kernel<<<a.sms, l.kernel.threads, a.max_shared_mem, a.stream>>>(
      A, static_cast<const int4*>(a.B), C, static_cast<int4*>(a.scratch), /*b_bias_ptr=*/nullptr,
      /*a_scales_ptr=*/nullptr, static_cast<const int4*>(a.scales), /*global_scale_ptr=*/nullptr,
      static_cast<const int4*>(a.zero_points), a.g_idx, a.num_groups, l.rows, a.N, a.K, /*lda=*/a.K, a.locks,
      /*has_bias=*/false, /*use_atomic_add=*/false, a.fp32_reduce, a.max_shared_mem);
  return cudaGetLastError();
}

}  // namespace tc::vllm_marlin
