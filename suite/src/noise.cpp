// The perturbation tier's launch with noise beside it (tilecheck/suite/noise.h); the noise kernel
// itself is noise_kernel.cu.
#include "tilecheck/suite/noise.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include <cuda_runtime.h>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/cuda_check.h"
#include "noise_kernel.h"

namespace tc {
namespace {

constexpr unsigned long long kBufferBytes = 256ull << 20;  // H200's L2 is 60 MB
constexpr double kStartWaitMs = 1;                         // noise first: how long its blocks may take to start

// One per device, made on first use: the streams, the control words, the buffer.
class NoiseDevice {
 public:
  explicit NoiseDevice(int device) {
    int least = 0, greatest = 0;
    TC_CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    TC_CHECK_CUDA(cudaStreamCreateWithPriority(&high_, cudaStreamNonBlocking, greatest));
    TC_CHECK_CUDA(cudaStreamCreateWithPriority(&low_, cudaStreamNonBlocking, least));
    TC_CHECK_CUDA(cudaStreamCreateWithPriority(&control_, cudaStreamNonBlocking, greatest));
    TC_CHECK_CUDA(cudaMalloc(&control_words_, sizeof(NoiseControl)));
    TC_CHECK_CUDA(cudaMallocHost(&host_words_, sizeof(NoiseControl)));
    TC_CHECK_CUDA(cudaMalloc(&buffer_, kBufferBytes));
    TC_CHECK_CUDA(cudaMemset(buffer_, 0, kBufferBytes));
    TC_CHECK_CUDA(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device));
    int optin = 0;
    TC_CHECK_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    TC_CHECK_CUDA(allow_noise_smem(optin, &max_smem_));
    TC_CHECK_CUDA(cudaDeviceSynchronize());
  }
  void* stream(StreamPriority p) const { return p == StreamPriority::high ? high_ : low_; }
  cudaStream_t noise_stream(StreamPriority kernel) const { return kernel == StreamPriority::high ? low_ : high_; }

  // Zeroes the control words before a round (by copies: a memset may need an SM the noise holds).
  void reset() {
    *host_words_ = {0, 0, 0};
    TC_CHECK_CUDA(cudaMemcpyAsync(control_words_, host_words_, sizeof(NoiseControl), cudaMemcpyHostToDevice, control_));
    TC_CHECK_CUDA(cudaStreamSynchronize(control_));
  }
  cudaError_t launch(const PerturbRound& r) {
    const int blocks = noise_blocks(r, multiprocessors_);
    if (blocks == 0) return cudaSuccess;
    const int smem = std::min(r.noise_smem_kib * 1024, max_smem_);
    const NoiseArgs args{control_words_, static_cast<unsigned*>(buffer_), kBufferBytes / sizeof(unsigned),
                         static_cast<unsigned>(smem) / 4u, r.seed, r.noise_crowd_warp,
                         static_cast<long long>(r.noise_limit_ms * 1e6)};
    return launch_noise(args, blocks, r.noise_threads, noise_stream(r.priority));
  }
  // Noise first: until every block has started, or kStartWaitMs (blocks that do not fit wait for
  // others to end).
  void wait_started(const PerturbRound& r) {
    const int blocks = noise_blocks(r, multiprocessors_);
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(kStartWaitMs);
    while (blocks > 0 && std::chrono::steady_clock::now() < until) {
      TC_CHECK_CUDA(
          cudaMemcpyAsync(host_words_, control_words_, sizeof(NoiseControl), cudaMemcpyDeviceToHost, control_));
      TC_CHECK_CUDA(cudaStreamSynchronize(control_));
      if (host_words_->started >= blocks) return;
    }
  }
  cudaError_t stop(const PerturbRound& r) {
    host_words_->stop = 1;
    cudaError_t e = cudaMemcpyAsync(&control_words_->stop, &host_words_->stop, sizeof(int), cudaMemcpyHostToDevice,
                                    control_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(control_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(noise_stream(r.priority));
    return e;
  }

 private:
  cudaStream_t high_ = nullptr, low_ = nullptr, control_ = nullptr;
  NoiseControl* control_words_ = nullptr;
  NoiseControl* host_words_ = nullptr;  // pinned, so that the control copies are asynchronous
  void* buffer_ = nullptr;
  int multiprocessors_ = 0, max_smem_ = 0;
};  // kept for the life of the process, like the CUDA context it belongs to

NoiseDevice& noise_device() {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<NoiseDevice>> devices;
  int device = 0;
  TC_CHECK_CUDA(cudaGetDevice(&device));
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<NoiseDevice>& d = devices[device];
  if (!d) d = std::make_unique<NoiseDevice>(device);
  return *d;
}

// tc_kernel_set_delay_seed of a delay variant (kernel/src/delay_seed.cpp), or null: found in the
// library already loaded (RTLD_NOLOAD), once per path.
using SetDelaySeed = tc_status (*)(unsigned, char*, size_t);
SetDelaySeed delay_seed_setter(const KernelPlugin& kernel) {
  static std::mutex mutex;
  static std::map<std::string, SetDelaySeed> found;
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = found.find(kernel.path());
  if (it != found.end()) return it->second;
  SetDelaySeed set = nullptr;
  if (void* handle = ::dlopen(kernel.path().c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD))
    set = reinterpret_cast<SetDelaySeed>(::dlsym(handle, "tc_kernel_set_delay_seed"));
  return found[kernel.path()] = set;
}

}  // namespace

void* perturbation_stream(StreamPriority p) { return noise_device().stream(p); }

RunResult run_perturbed(const KernelPlugin& kernel, const tc_problem& problem, const PerturbRound& round) {
  check_round(round);
  NoiseDevice& noise = noise_device();
  require(problem.stream == noise.stream(round.priority), "internal: a perturbed launch runs on "
          "perturbation_stream(", name(round.priority), ")");
  if (const SetDelaySeed set = delay_seed_setter(kernel)) {
    char message[512] = "";
    if (set(round.seed, message, sizeof message) != TC_OK)
      return {TC_ERR_CUDA, cat("perturbation: tc_kernel_set_delay_seed of ", kernel.path(), ": ", message)};
  }
  noise.reset();
  cudaError_t noise_error = cudaSuccess;
  if (round.order == NoiseOrder::noise_first) {
    noise_error = noise.launch(round);
    if (noise_error != cudaSuccess) return {TC_ERR_CUDA, cat("perturbation noise: ", cudaGetErrorString(noise_error))};
    noise.wait_started(round);
  }
  const RunResult launched = kernel.run(problem);
  if (round.order == NoiseOrder::kernel_first && launched.ok()) noise_error = noise.launch(round);
  // The noise lasts until the kernel's stream has ended. A fault there is the caller's to report
  // (it synchronises the stream again); the noise then ends by its own limit.
  if (cudaStreamSynchronize(static_cast<cudaStream_t>(problem.stream)) != cudaSuccess) return launched;
  const cudaError_t stopped = noise.stop(round);
  if (noise_error == cudaSuccess) noise_error = stopped;
  if (noise_error != cudaSuccess && launched.ok())
    return {TC_ERR_CUDA, cat("perturbation noise: ", cudaGetErrorString(noise_error))};
  return launched;
}

}  // namespace tc
