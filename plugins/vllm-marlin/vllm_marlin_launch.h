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

// The operands and settings every launch of a problem shares.
//   A: (M, K) fp16 row-major  B: (K/16, 2N) int32 Marlin-packed  scales: (num_groups, N) fp16
//   C: (M, N) fp16 row-major  locks: sms ints, zero  scratch: fp32 partial tiles (fp32_reduce only)
struct LaunchArgs {
  const void* A = nullptr;
  const void* B = nullptr;
  const void* scales = nullptr;
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

// Sets the kernel's shared-memory limit and launches it on rows [row0, row0 + rows) of A and C, with
// vLLM's arguments for this case: no bias, no activation scales, no global scale, no zero points, no
// g_idx (act-order off, K full), no atomic-add reduction. Returns the CUDA error of the launch.
cudaError_t launch(const Launch& launch, const LaunchArgs& args);

}  // namespace tc::vllm_marlin

#endif  // TILECHECK_PLUGINS_VLLM_MARLIN_LAUNCH_H
