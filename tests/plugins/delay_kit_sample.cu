// A made-up kernel for the delay kit's test (delay_kit_test.cpp): a block-wide sum through shared
// memory, one barrier per halving step. The build passes it through scripts/delay-kit.py and compiles
// the copy with plugins/delay-kit/delay_kit.cuh force-included, as it does a foreign kernel's file.
#include "delay_kit_sample.h"

namespace {

constexpr int kThreads = 256;

__global__ void block_sums(const int* in, int* out) {
  __shared__ int partial[kThreads];
  partial[threadIdx.x] = in[blockIdx.x * kThreads + threadIdx.x];
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

}  // namespace

int delay_kit_sample_threads() { return kThreads; }

cudaError_t delay_kit_sample_sums(const int* in, int* out, int blocks, cudaStream_t stream) {
  block_sums<<<blocks, kThreads, 0, stream>>>(in, out);
  return cudaGetLastError();
}
