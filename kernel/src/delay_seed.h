// The delay variants' seed setters (delays.cuh): each kernel translation unit registers the one that
// sets its own copy of the seed; tc_kernel_set_delay_seed (delay_seed.cpp) calls them all.
#pragma once
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

namespace tc::kernel {

using DelaySeedSetter = cudaError_t (*)(std::uint32_t);
std::vector<DelaySeedSetter>& delay_seed_setters();

}  // namespace tc::kernel
