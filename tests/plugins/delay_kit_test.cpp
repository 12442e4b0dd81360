// The delay kit (plugins/delay-kit, scripts/delay-kit.py) on a made-up kernel: the library built from
// the kit's copy exports tc_kernel_set_delay_seed (the perturbation tier's hook) and, without a GPU,
// answers it with the CUDA error named; on the GPU the seed is taken, the sums stay right under every
// seed, and the barriers really are delayed (launches take far longer than the kernel's own work).
#include <chrono>
#include <cstring>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "delay_kit_sample.h"
#include "tilecheck/plugin/plugin.h"

extern "C" tc_status tc_kernel_set_delay_seed(unsigned seed, char* message, size_t capacity);

namespace tc {
namespace {

TEST(DelayKit, TheSeedSetterIsExportedAndNamesACudaFailure) {
  char message[256] = "untouched";
  const tc_status s = tc_kernel_set_delay_seed(7, message, sizeof message);
  if (gpu_unavailable_reason().empty()) {
    EXPECT_EQ(s, TC_OK) << message;
    EXPECT_STREQ(message, "");
  } else {
    EXPECT_EQ(s, TC_ERR_CUDA);
    EXPECT_NE(std::strstr(message, "cudaMemcpyToSymbol"), nullptr) << message;
  }
}

TEST(DelayKit, SumsStayRightUnderEverySeedAndTheBarriersAreDelayed) {
  TC_REQUIRE_GPU();
  const int threads = delay_kit_sample_threads();
  const int blocks = 64;
  std::vector<int> in(static_cast<std::size_t>(blocks) * threads);
  std::iota(in.begin(), in.end(), -1000);
  int* d_in = nullptr;
  int* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_in, in.size() * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out, blocks * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
  double seconds = 0;
  constexpr int kLaunches = 20;
  for (unsigned seed = 1; seed <= kLaunches; ++seed) {
    char message[256];
    ASSERT_EQ(tc_kernel_set_delay_seed(seed, message, sizeof message), TC_OK) << message;
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const auto start = std::chrono::steady_clock::now();
    ASSERT_EQ(delay_kit_sample_sums(d_in, d_out, blocks, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<int> out(blocks);
    ASSERT_EQ(cudaMemcpy(out.data(), d_out, blocks * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int b = 0; b < blocks; ++b) {
      const auto first = in.begin() + static_cast<std::ptrdiff_t>(b) * threads;
      ASSERT_EQ(out[b], std::accumulate(first, first + threads, 0)) << "seed " << seed << ", block " << b;
    }
  }
  cudaFree(d_in);
  cudaFree(d_out);
  // 9 barriers x 8 warps x 64 blocks a launch, one pass in 16 sleeping up to 20 us: every launch waits
  // for some warp's sleep of several us (without the kit one launch of this kernel takes ~10 us).
  EXPECT_GT(seconds / kLaunches, 20e-6) << "mean launch " << seconds / kLaunches * 1e6 << " us";
}

}  // namespace
}  // namespace tc
