// Seeded delays at the kernel's synchronisation points, for the perturbation tier (docs/perturb.md).
// The delay variants (TC_DELAYS=1: libtc_kernel_delay.so and the mutants' *_delay libraries,
// kernel/CMakeLists.txt) sleep a warp, at some passes of each site, for a pseudo-random time derived
// from a seed, the block, the warp, the site and how often the thread has passed that site: after the
// pipeline's stage barrier, after the barrier that publishes the per-column scales, before the
// write-out reads the staged tile, after the lock is taken and before it is released. A warp that
// lags there opens the windows that the hardware's own timing keeps shut (docs/case-study-ist-marlin-
// sanitizer.md: a lagging warp is what turned upstream's races into wrong numbers).
// In every other build Delays<false> is empty and each call compiles to nothing: the default
// kernel's code is unchanged (checked by comparing its PTX and machine code with and without this seam).
#pragma once
#include <cstdint>

#include "variants.h"

#if TC_DELAYS
#include "delay_seed.h"
#include "hash32.cuh"
#endif

namespace tc::device {

enum class DelaySite : int { stage_wait, scale_wait, write_out, lock_acquire, lock_release, count };

template <bool kOn>
struct Delays {
  __device__ void at(DelaySite) {}
};

#if TC_DELAYS
// One pass in kDelayOneIn sleeps, for 0 .. kDelayMaxNs ns: upstream's H3 showed with a 20 us lag
// (docs/case-study-ist-marlin-sanitizer.md, section 4), and rarer, shorter sleeps keep a k-tile loop's
// slow-down small.
constexpr std::uint32_t kDelayOneIn = 16;
constexpr std::uint32_t kDelayMaxNs = 20000;

// This translation unit's copy of the seed: without relocatable device code every kernels_mN.cu has
// its own, and tc_kernel_set_delay_seed (delay_seed.cpp) sets them all through the setters below.
static __device__ std::uint32_t delay_seed = 0x5EEDu;

template <>
struct Delays<true> {
  std::uint32_t passes[static_cast<int>(DelaySite::count)] = {};
  // Warp-uniform: every lane of a warp draws the same number, so the whole warp lags.
  __device__ void at(DelaySite site) {
    const int s = static_cast<int>(site);
    const std::uint32_t warp = threadIdx.x / 32;
    const std::uint32_t h = hash32(delay_seed ^ hash32(blockIdx.x * 64u + warp) ^
                                   hash32((static_cast<std::uint32_t>(s) << 24) ^ passes[s]++));
    if (h % kDelayOneIn != 0) return;
    __nanosleep((h / kDelayOneIn) % kDelayMaxNs);
  }
};
#endif

}  // namespace tc::device

#if TC_DELAYS
namespace tc::kernel {
namespace {
cudaError_t set_this_units_delay_seed(std::uint32_t seed) {
  return cudaMemcpyToSymbol(device::delay_seed, &seed, sizeof seed);
}
// Registers this translation unit's setter when the library is loaded (no CUDA call until it is used).
struct DelaySeedRegistration {
  DelaySeedRegistration() { delay_seed_setters().push_back(&set_this_units_delay_seed); }
};
const DelaySeedRegistration delay_seed_registration;
}  // namespace

}  // namespace tc::kernel
#endif
