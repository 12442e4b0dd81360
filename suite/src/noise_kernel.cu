// The perturbation tier's noise kernel (noise_kernel.h, tilecheck/suite/noise.h).
#include "noise_kernel.h"

namespace tc {
namespace {

__device__ inline unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ inline unsigned noise_hash(unsigned x) {  // murmur3's finaliser
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  return x ^ (x >> 16);
}

__device__ inline unsigned xorshift(unsigned x) {
  x ^= x << 13;
  x ^= x >> 17;
  return x ^ (x << 5);
}

// Every thread streams over the global buffer (neighbouring threads, neighbouring words) and
// hammers its block's shared memory; each warp now and then sleeps up to 1 us, drawn from the seed,
// so that the SMs it shares with the kernel see bursts and gaps rather than a steady load. The
// shared-memory updates race with each other on purpose: their values are never used.
__global__ void noise_kernel(NoiseArgs a) {
  extern __shared__ unsigned smem[];
  // The limit counts from the first block's start: a block that starts late (after others ended)
  // does not extend the noise.
  __shared__ unsigned long long begin;
  if (threadIdx.x == 0) {
    atomicCAS(&a.control->epoch, 0ull, global_ns());
    begin = atomicAdd(&a.control->epoch, 0ull);
    atomicAdd(&a.control->started, 1);
  }
  __syncthreads();
  const unsigned long long end = begin + static_cast<unsigned long long>(a.limit_ns);
  const volatile int* stop = &a.control->stop;
  if (a.crowd_warp >= 0) {  // crowd one warp scheduler: SMs give a block's warps to their four in turn
    if (threadIdx.x / 32 % 4 != static_cast<unsigned>(a.crowd_warp)) return;
    // Eight independent chains of integer work, no memory: enough to issue an instruction every cycle.
    unsigned y[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) y[j] = a.seed + 2u * j + 1u;
    while (*stop == 0 && global_ns() < end) {
#pragma unroll
      for (int k = 0; k < 32; ++k) {
#pragma unroll
        for (int j = 0; j < 8; ++j) y[j] = y[j] * 1664525u + 1013904223u;
      }
    }
    unsigned sum = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) sum ^= y[j];
    if (sum == 0x9E3779B9u) a.buffer[0] = sum;  // keeps the loop
    return;
  }
  const unsigned long long threads = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long g = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned x = noise_hash(a.seed ^ noise_hash(blockIdx.x * 1024u + threadIdx.x)) | 1u;
  unsigned w = noise_hash(a.seed ^ noise_hash(blockIdx.x * 64u + threadIdx.x / 32 + 0x80000000u)) | 1u;
  unsigned sum = 0;
  while (*stop == 0 && global_ns() < end) {
    for (int k = 0; k < 4; ++k, g += threads) a.buffer[g % a.buffer_words] += x;
    if (a.smem_words != 0) {
      for (unsigned k = 0; k < 8; ++k) {
        const unsigned i = (x + 33u * k) % a.smem_words;
        smem[i] += x;
        sum += smem[(7u * i + k) % a.smem_words];
      }
    }
    x = xorshift(x);
    w = xorshift(w);  // the same in every lane of a warp: the whole warp sleeps
    if (w % 8 == 0) __nanosleep(w >> 22);
  }
  if (sum == 0x9E3779B9u) a.buffer[0] = sum;  // keeps the shared-memory reads
}

}  // namespace

cudaError_t allow_noise_smem(int optin_bytes, int* dynamic_bytes) {
  cudaFuncAttributes attributes{};
  cudaError_t e = cudaFuncGetAttributes(&attributes, noise_kernel);
  if (e != cudaSuccess) return e;
  *dynamic_bytes = optin_bytes - static_cast<int>(attributes.sharedSizeBytes);  // the block's start time
  e = cudaFuncSetAttribute(noise_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, *dynamic_bytes);
  if (e != cudaSuccess) return e;
  // An SM's split of L1 and shared memory changes only when it is idle: noise blocks with little
  // shared memory would otherwise leave their SMs carved for L1, and a kernel block that needs more
  // shared memory could start on none of them until the noise ends (seen on the H200 with 4 blocks
  // of 128 threads and no shared memory on every SM). The noise asks for the largest shared part.
  return cudaFuncSetAttribute(noise_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                              cudaSharedmemCarveoutMaxShared);
}

cudaError_t launch_noise(const NoiseArgs& args, int blocks, int threads, cudaStream_t stream) {
  noise_kernel<<<blocks, threads, args.smem_words * 4u, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace tc
