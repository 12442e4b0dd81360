// The delay variants' seed (delays.cuh), exported beside the plugin ABI: the perturbation tier calls
// tc_kernel_set_delay_seed before each round when a library has it (docs/perturb.md). Built into
// the *_delay libraries only.
#include "delay_seed.h"

#include <cstdio>

#include "tilecheck/plugin/plugin.h"

namespace tc::kernel {

std::vector<DelaySeedSetter>& delay_seed_setters() {
  static std::vector<DelaySeedSetter> setters;
  return setters;
}

}  // namespace tc::kernel

// Sets the seed of every kernel translation unit's delays for the launches that follow on the
// current device. TC_OK, or TC_ERR_CUDA with the failing call's error.
extern "C" TC_PLUGIN_EXPORT tc_status tc_kernel_set_delay_seed(unsigned seed, char* message, size_t capacity) {
  for (const tc::kernel::DelaySeedSetter set : tc::kernel::delay_seed_setters()) {
    const cudaError_t e = set(seed);
    if (e != cudaSuccess) {
      cudaGetLastError();  // not left for the next launch's error check to find
      if (message != nullptr && capacity > 0)
        std::snprintf(message, capacity, "cudaMemcpyToSymbol of the delay seed: %s", cudaGetErrorString(e));
      return TC_ERR_CUDA;
    }
  }
  if (message != nullptr && capacity > 0) message[0] = '\0';
  return TC_OK;
}
