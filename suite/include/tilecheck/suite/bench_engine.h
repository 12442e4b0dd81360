// What `tilecheck bench` measures, without the printing (cli/cmd_bench.cpp prints): CUDA-graph
// timings of kernel libraries on one shape and configuration, with the weights rotated over copies
// so the L2 cannot hold them, interleaved A/B/A/B over rounds (bench_order.h), and the two ceilings
// measured in the same run: a device-to-device copy and cuBLAS fp16 on the same shape.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "tilecheck/plugin/plugin_loader.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/schedule.h"
#include "tilecheck/suite/cuda_check.h"
#include "tilecheck/suite/device_case.h"

namespace tc {

// Seconds per call: the median and the 10th / 90th percentiles over the replays.
struct Timing {
  double median = 0, p10 = 0, p90 = 0;
};

// Seconds per call of `calls` captured into one graph by `record(i)`, over `repeats` replays.
template <typename Record>
Timing time_graph(cudaStream_t stream, int calls, int repeats, Record&& record) {
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  TC_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < calls; ++i) record(i);
  TC_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  TC_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t start, stop;
  TC_CHECK_CUDA(cudaEventCreate(&start));
  TC_CHECK_CUDA(cudaEventCreate(&stop));
  for (int w = 0; w < 2; ++w) TC_CHECK_CUDA(cudaGraphLaunch(exec, stream));  // warm-up
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    TC_CHECK_CUDA(cudaEventRecord(start, stream));
    TC_CHECK_CUDA(cudaGraphLaunch(exec, stream));
    TC_CHECK_CUDA(cudaEventRecord(stop, stream));
    TC_CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    TC_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    seconds.push_back(ms * 1e-3 / calls);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  std::sort(seconds.begin(), seconds.end());
  const auto at = [&](double q) { return seconds[static_cast<std::size_t>(q * (seconds.size() - 1) + 0.5)]; };
  return {at(0.5), at(0.1), at(0.9)};
}

// Fills `copies` consecutive device buffers of `bytes` each with the same 16-bit words from the
// counter RNG: `half_range` gives fp16 values of about +-1 (random codes otherwise), so nothing
// overflows or goes non-finite.
void fill_device(void* device, std::size_t bytes, std::uint64_t seed, bool half_range, int copies = 1);

// One shape's operands on the device: A and C once, the weights and scales `copies` times over.
struct BenchOperands {
  BenchOperands(const Shape& s, int rotate_mb);
  // Bytes one call moves at the least: the weights and scales once, A read, C written.
  double bytes() const { return double(b_bytes + s_bytes) + 2.0 * shape.M * shape.K + 2.0 * shape.M * shape.N; }

  Shape shape;
  std::size_t b_bytes, s_bytes;
  int copies;
  DeviceBuffer A, C, B, S;
};

// How the libraries are launched and timed.
struct BenchLaunch {
  Contract contract = Contract::fp32;
  TileConfig config;   // all zero: each library chooses (`tilecheck bench --config auto`)
  int sms = 0;         // 0: every multiprocessor
  int rounds = 1;
  int repeats = 20;
  cudaStream_t stream = nullptr;
};

// One library on one configuration: its timing per round, or why it does not implement it.
struct KernelTimings {
  std::string not_applicable;  // non-empty: the library refused (TC_ERR_UNSUPPORTED)
  std::vector<Timing> rounds;
};

// Every library on one configuration, the rounds interleaved (round_order). A library that does not
// implement it gets its refusal and the others are still timed; if none does, the error names
// TC_ERR_UNSUPPORTED (so a parent process reports the configuration n/a).
std::vector<KernelTimings> time_kernels(const std::vector<KernelPlugin>& kernels, const BenchLaunch& l,
                                        BenchOperands& ops);

// Ceiling 1: a device-to-device copy of half the rotation size, in TB/s (bytes read + written).
double copy_ceiling_tbs(cudaStream_t stream, int rotate_mb, int repeats);

// Ceiling 2: cuBLAS fp16 on fp16 weights of the same shape, rotated likewise, seconds per call.
double cublas_seconds(cublasHandle_t cublas, cudaStream_t stream, BenchOperands& ops, int rotate_mb, int repeats);

// "auto" for the all-zero configuration (the library chooses), else tc::name.
std::string config_label(const TileConfig& c);
bool is_auto(const TileConfig& c);

}  // namespace tc
