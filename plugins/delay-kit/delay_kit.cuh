// The delay kit (docs/perturb.md): lagging warps for a kernel we did not write. scripts/delay-kit.py
// writes a copy of its source in which every `__syncthreads();` is followed by tc_delay_kit_point,
// and the copy is compiled with this header force-included (nvcc -include). After a barrier one warp
// in kOneIn sleeps for up to kMaxNs: the others run ahead into the next phase while it still works on
// the last, which is the window a race between warps needs (upstream Marlin's H1 and H3 showed in
// numbers only with a lagging warp: docs/case-study-ist-marlin-sanitizer.md). A plugin library built
// from such a copy links kernel/src/delay_seed.cpp, so that tilecheck perturb sets each round's seed
// through tc_kernel_set_delay_seed, as for our own delay variants (kernel/src/delays.cuh).
//
// Unlike our delay variants, a foreign kernel gives us no per-thread pass counter, so the draw mixes
// the seed, the block, the warp, the barrier's line and the clock: a seed chooses a different pattern
// of sleeps, not a bit-for-bit repeatable one.
#pragma once
#include <cstdint>

#include <cuda_runtime.h>

#include "delay_seed.h"
#include "hash32.cuh"

namespace tc_delay_kit {

constexpr std::uint32_t kOneIn = 16;       // one pass of a warp in 16 sleeps
constexpr std::uint32_t kMaxNs = 20000;    // for 0 .. 20 us: upstream's races showed with a 20 us lag

// This translation unit's seed; every unit built with the kit registers its own setter below.
static __device__ std::uint32_t seed = 0x5EEDu;

inline cudaError_t set_seed(std::uint32_t value) { return cudaMemcpyToSymbol(seed, &value, sizeof value); }

// Registers this unit's setter when the library is loaded (no CUDA call until it is used).
struct SeedRegistration {
  SeedRegistration() { tc::kernel::delay_seed_setters().push_back(&set_seed); }
};
static const SeedRegistration seed_registration;

}  // namespace tc_delay_kit

// Warp-uniform: the draw is made from the first active lane's clock, so the whole warp sleeps or not.
static __device__ __forceinline__ void tc_delay_kit_point(int line) {
  const unsigned active = __activemask();
  unsigned now = static_cast<unsigned>(clock64());
  now = __shfl_sync(active, now, __ffs(active) - 1);
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  using tc::device::hash32;
  const std::uint32_t h = hash32(tc_delay_kit::seed ^ hash32(block * 64u + thread / 32u) ^
                                 hash32((static_cast<std::uint32_t>(line) << 20) ^ (now >> 4)));
  if (h % tc_delay_kit::kOneIn != 0) return;
  __nanosleep((h / tc_delay_kit::kOneIn) % tc_delay_kit::kMaxNs);
}
