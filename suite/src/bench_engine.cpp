#include "tilecheck/suite/bench_engine.h"

#include "tilecheck/core/error.h"
#include "tilecheck/reference/rng.h"
#include "tilecheck/suite/bench_order.h"
#include "tilecheck/suite/problem.h"

namespace tc {
namespace {

void check_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Error(cat(call, " failed: cuBLAS status ", int(s), " (", file, ":", line, ")"));
}
#define TC_CHECK_CUBLAS(call) check_cublas((call), #call, __FILE__, __LINE__)

}  // namespace

bool is_auto(const TileConfig& c) {
  return c.m_blocks == 0 && c.n_blocks == 0 && c.k_blocks == 0 && c.group_blocks == 0;
}

std::string config_label(const TileConfig& c) { return is_auto(c) ? "auto" : name(c); }

void fill_device(void* device, std::size_t bytes, std::uint64_t seed, bool half_range, int copies) {
  std::vector<std::uint16_t> host(bytes / 2);
  const CounterRng rng(seed, "bench");
  for (std::size_t i = 0; i < host.size(); ++i) {
    const auto b = static_cast<std::uint16_t>(rng.bits(i));
    host[i] = half_range ? static_cast<std::uint16_t>(0x3000 | (b & 0x87FF)) : b;  // |x| in [2^-3, 2^-1)
  }
  TC_CHECK_CUDA(cudaMemcpy(device, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  for (int c = 1; c < copies; ++c)
    TC_CHECK_CUDA(cudaMemcpy(static_cast<char*>(device) + c * bytes, device, bytes, cudaMemcpyDeviceToDevice));
  TC_CHECK_CUDA(cudaDeviceSynchronize());  // the copies are not ordered before the timing stream's work
}

BenchOperands::BenchOperands(const Shape& s, int rotate_mb)
    : shape(s),
      b_bytes(static_cast<std::size_t>(s.K) * s.N / 2),
      s_bytes(static_cast<std::size_t>(scale_rows(s.K, s.group)) * s.N * 2),
      copies(std::max<int>(2, static_cast<int>((static_cast<std::size_t>(rotate_mb) << 20) / (b_bytes + s_bytes)) + 1)),
      A(static_cast<std::size_t>(s.M) * s.K * 2),
      C(static_cast<std::size_t>(s.M) * s.N * 2),
      B(copies * b_bytes),
      S(copies * s_bytes) {
  fill_device(A.get(), static_cast<std::size_t>(s.M) * s.K * 2, 1, true);
  fill_device(B.get(), b_bytes, 2, false, copies);
  fill_device(S.get(), s_bytes, 3, true, copies);
}

std::vector<KernelTimings> time_kernels(const std::vector<KernelPlugin>& kernels, const BenchLaunch& l,
                                        BenchOperands& ops) {
  const std::string label = config_label(l.config);  // once, not per captured launch
  Launch launch;
  launch.config = l.config;
  launch.sms = l.sms;
  launch.flags = TC_FLAG_SKIP_WORKSPACE_CHECK;
  launch.stream = l.stream;
  tc_problem q = make_problem(ops.shape, l.contract, launch, {ops.A.get(), ops.B.get(), ops.S.get(), ops.C.get()});
  std::size_t ws_bytes = 0;
  std::vector<KernelTimings> timings(kernels.size());
  std::string refusals;
  // A library may decline when asked for the workspace size or when first run.
  const auto declines = [&](std::size_t k, const RunResult& r) {
    if (r.status != TC_ERR_UNSUPPORTED) return false;
    timings[k].not_applicable = r.message;
    refusals += cat(refusals.empty() ? "" : "; ", kernels[k].info().variant, ": ", r.message);
    return true;
  };
  const auto require_one = [&] {
    const bool none =
        std::all_of(timings.begin(), timings.end(), [](const KernelTimings& t) { return !t.not_applicable.empty(); });
    require(!none, label, ": ", status_name(TC_ERR_UNSUPPORTED), ": ", refusals);
  };
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    std::size_t need = 0;
    const RunResult sized = kernels[k].workspace_size(q, need);
    if (declines(k, sized)) continue;
    require(sized.ok(), "workspace size for ", label, ": ", status_name(sized.status), ": ", sized.message);
    ws_bytes = std::max(ws_bytes, need);
  }
  require_one();
  DeviceBuffer workspace(ws_bytes);
  workspace.zero();
  q.workspace = workspace.get(), q.workspace_bytes = ws_bytes;
  for (int round = 0; round < l.rounds; ++round) {
    for (const std::size_t k : round_order(kernels.size(), round)) {
      if (!timings[k].not_applicable.empty()) continue;
      const RunResult check = kernels[k].run(q);  // once outside the graph, to report errors plainly
      if (round == 0 && declines(k, check)) continue;
      require(check.ok(), label, ": ", status_name(check.status), ": ", check.message);
      TC_CHECK_CUDA(cudaStreamSynchronize(l.stream));
      timings[k].rounds.push_back(time_graph(l.stream, ops.copies, l.repeats, [&](int i) {
        q.B = static_cast<char*>(ops.B.get()) + i * ops.b_bytes;
        q.scales = static_cast<char*>(ops.S.get()) + i * ops.s_bytes;
        const RunResult r = kernels[k].run(q);
        require(r.ok(), label, ": ", r.message);
      }));
    }
  }
  require_one();
  return timings;
}

double copy_ceiling_tbs(cudaStream_t stream, int rotate_mb, int repeats) {
  const std::size_t copy_bytes = static_cast<std::size_t>(rotate_mb) << 19;
  DeviceBuffer copy_src(copy_bytes), copy_dst(copy_bytes);
  TC_CHECK_CUDA(cudaMemset(copy_src.get(), 1, copy_bytes));
  const double copy_s = time_graph(stream, 4, repeats, [&](int) {
    TC_CHECK_CUDA(cudaMemcpyAsync(copy_dst.get(), copy_src.get(), copy_bytes, cudaMemcpyDeviceToDevice, stream));
  }).median;
  return 2.0 * copy_bytes / copy_s / 1e12;
}

// C^T = W^T A^T in column-major.
double cublas_seconds(cublasHandle_t cublas, cudaStream_t stream, BenchOperands& ops, int rotate_mb, int repeats) {
  const int M = ops.shape.M, N = ops.shape.N, K = ops.shape.K;
  const std::size_t w_bytes = static_cast<std::size_t>(K) * N * 2;
  const int w_copies = std::max<int>(2, static_cast<int>((static_cast<std::size_t>(rotate_mb) << 20) / w_bytes) + 1);
  DeviceBuffer W(w_copies * w_bytes);
  fill_device(W.get(), w_bytes, 4, true, w_copies);
  const float one = 1.0f, zero = 0.0f;
  return time_graph(stream, w_copies, repeats, [&](int i) {
    TC_CHECK_CUBLAS(cublasGemmEx(cublas, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one,
                                 static_cast<char*>(W.get()) + i * w_bytes, CUDA_R_16F, N, ops.A.get(), CUDA_R_16F, K,
                                 &zero, ops.C.get(), CUDA_R_16F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }).median;
}

}  // namespace tc
