// Which compiled kernel runs a configuration. The instantiations are spread over one file per
// m_blocks (kernels_m1.cu .. kernels_m4.cu) so they compile in parallel; find_kernel() is the one
// switch that turns a TileConfig value into a template instance.
#pragma once
#include "marlin_kernel.cuh"
#include "tilecheck/reference/schedule.h"

namespace tc::device {

using KernelFunction = void (*)(KernelArgs);

struct KernelEntry {
  KernelFunction kernel = nullptr;  // nullptr: no such configuration
  int smem_bytes = 0;
};

KernelEntry find_kernel(const TileConfig& c);
KernelEntry find_kernel_m1(int n_blocks, int k_blocks, int group_blocks);
KernelEntry find_kernel_m2(int n_blocks, int k_blocks, int group_blocks);
KernelEntry find_kernel_m3(int n_blocks, int k_blocks, int group_blocks);
KernelEntry find_kernel_m4(int n_blocks, int k_blocks, int group_blocks);

// Every configuration this library is built with: m_blocks 1-4 x tiles 128x128 (n8 k8) and
// 256x64 (n16 k4) x group_blocks -1, 2, 4, 8.
constexpr int kConfigCount = 32;
const TileConfig* all_configs();

template <int M, int N, int K, int G>
KernelEntry entry() {
  return {&marlin_w4a16<M, N, K, G>, smem_layout(M, N, K, G, mutant(kMutScalesInReduceScratch)).total};
}

template <int M>
KernelEntry find_kernel_for(int n, int k, int g) {
  if (n == 8 && k == 8) {
    switch (g) {
      case -1: return entry<M, 8, 8, -1>();
      case 2: return entry<M, 8, 8, 2>();
      case 4: return entry<M, 8, 8, 4>();
      case 8: return entry<M, 8, 8, 8>();
    }
  }
  if (n == 16 && k == 4) {
    switch (g) {
      case -1: return entry<M, 16, 4, -1>();
      case 2: return entry<M, 16, 4, 2>();
      case 4: return entry<M, 16, 4, 4>();
      case 8: return entry<M, 16, 4, 8>();
    }
  }
  return {};
}

}  // namespace tc::device
