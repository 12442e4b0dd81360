// The noise kernel of the perturbation tier (noise_kernel.cu), behind a launch function, so that
// the host side (noise.cpp) is plain C++: tilecheck/suite/noise.h says what the noise does.
#pragma once
#include <cuda_runtime.h>

namespace tc {

struct NoiseControl {
  unsigned long long epoch;  // %globaltimer when the first noise block began; 0 until then
  int stop;                  // set by the host (a copy on the control stream) once the kernel's stream has ended
  int started;               // noise blocks that have begun
};

struct NoiseArgs {
  NoiseControl* control;
  unsigned* buffer;  // global traffic: larger than L2, so that the kernel's loads wait for DRAM
  unsigned long long buffer_words;
  unsigned smem_words;  // dynamic shared memory per block, in 4-byte words
  unsigned seed;
  int crowd_warp;  // -1: memory noise; 0-3: only warps w with w % 4 == crowd_warp run, issue-bound
  long long limit_ns;  // every block ends by epoch + limit_ns at the latest, also one that starts late
};

// Raises the noise kernel's dynamic shared memory to what a block may opt in to (optin_bytes) less
// the kernel's own static shared memory; *dynamic_bytes gets that limit.
cudaError_t allow_noise_smem(int optin_bytes, int* dynamic_bytes);
cudaError_t launch_noise(const NoiseArgs& args, int blocks, int threads, cudaStream_t stream);

}  // namespace tc
