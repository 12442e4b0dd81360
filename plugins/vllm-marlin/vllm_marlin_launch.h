// Launching one planned launch of vLLM's Marlin (vllm_marlin_plan.h) with the kernels compiled into
// this library. Implemented in vllm_marlin_launch.cu, the only file of ours that includes a vLLM
// header (kernel.h, for the kernel template's declaration).
#ifndef TILECHECK_PLUGINS_VLLM_MARLIN_LAUNCH_H
#define TILECHECK_PLUGINS_VLLM_MARLIN_LAUNCH_H

#include <cuda_runtime.h>

#include "vllm_marlin_plan.h"

namespace tc::vllm_marlin {

// Whether this instance is compiled into the library (TC_VLLM_MARLIN_INSTANCES).
bool built(const Instance& kernel);

// The operands and settings every launch of a problem shares (t: fp16 or bf16, the format's dtype).
//   A: (M, K) t row-major (with act-order, A permuted: permute_a's output)  B: (K/16, 2N) int32, or
//   (K/16, 4N) for 8-bit codes, Marlin-packed  scales: (num_groups, N) t  zero_points (uint4):
//   (num_groups, N/8) int32 packed  g_idx (act-order): (K) int32, sorted  C: (M, N) t row-major
//   locks: sms ints, zero  scratch: fp32 partial tiles (fp32_reduce only)
struct LaunchArgs {
  const void* A = nullptr;
  const void* B = nullptr;
  const void* scales = nullptr;
  const void* zero_points = nullptr;
  const int* g_idx = nullptr;
  void* C = nullptr;
  int* locks = nullptr;
  void* scratch = nullptr;
  int N = 0, K = 0;
  int num_groups = 0;
  int sms = 0;             // grid size
  int max_shared_mem = 0;  // dynamic shared memory of every block: the device's opt-in maximum
  bool fp32_reduce = false;
  cudaStream_t stream = nullptr;
};

// Act-order (marlin.cu, marlin_mm): A's columns into the kernel's K order before the GEMM,
// out[:, i] = A[:, perm[i]] for the M rows; A and out (M, K) of a 16-bit type, perm K ints in 0..K-1
// (the caller's). Returns the CUDA error of the launch.
cudaError_t permute_a(const void* A, const int* perm, void* out, int M, int K, cudaStream_t stream);

// Sets the kernel's shared-memory limit and launches it on rows [row0, row0 + rows) of A and C, with
// vLLM's arguments for this case: no bias, no activation scales, no global scale, integer zero points
// (uint4 only), g_idx (act-order; only the act-order kernel reads it), no atomic-add reduction.
// Returns the CUDA error of the launch.
cudaError_t launch(const Launch& launch, const LaunchArgs& args);

}  // namespace tc::vllm_marlin

#endif  // TILECHECK_PLUGINS_VLLM_MARLIN_LAUNCH_H
