#include "gpu_harness.h"

#include <cstdlib>
#include <cstring>

#include <cuda_runtime.h>
#include <omp.h>

#include "tilecheck/error.h"
#include "tilecheck/marlin_format.h"
#include "tilecheck/poison.h"

namespace tc::testing {
namespace {

// GPU tests run several at a time (ctest -j); the CPU reference would start one OpenMP thread per
// core in each. Two each keeps the machine from thrashing, unless OMP_NUM_THREADS says otherwise.
const bool kThreadsCapped = [] {
  if (std::getenv("OMP_NUM_THREADS") == nullptr) omp_set_num_threads(2);
  return true;
}();

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(cat(what, ": ", cudaGetErrorString(e)));
}

}  // namespace

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return cat("cudaGetDeviceCount failed: ", cudaGetErrorString(e));
  if (count == 0) return "cudaGetDeviceCount found no CUDA device";
  return "";
}

const KernelPlugin& kernel_under_test() {
  static const KernelPlugin plugin = [] {
    const char* env = std::getenv("TC_KERNEL");
    return KernelPlugin::load(env && *env ? env : TC_DEFAULT_KERNEL);
  }();
  return plugin;
}

int device_multiprocessors() {
  int ordinal = 0, count = 0;
  check(cudaGetDevice(&ordinal), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, ordinal), "cudaDeviceGetAttribute");
  return count;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  check(cudaMalloc(&ptr_, bytes ? bytes : 16), "cudaMalloc");
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; }
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  std::swap(ptr_, o.ptr_);
  std::swap(bytes_, o.bytes_);
  return *this;
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}
void DeviceBuffer::upload(const void* host, std::size_t bytes, std::size_t offset) {
  check(cudaMemcpy(static_cast<char*>(ptr_) + offset, host, bytes, cudaMemcpyHostToDevice), "upload");
}
void DeviceBuffer::download(void* host, std::size_t bytes, std::size_t offset) const {
  check(cudaMemcpy(host, static_cast<const char*>(ptr_) + offset, bytes, cudaMemcpyDeviceToHost), "download");
}
void DeviceBuffer::fill16(std::uint16_t value) {
  std::vector<std::uint16_t> host(bytes_ / 2, value);
  upload(host.data(), host.size() * 2);
}
void DeviceBuffer::zero() { check(cudaMemset(ptr_, 0, bytes_), "cudaMemset"); }

DeviceProblem::DeviceProblem(const Problem& p)
    : M_(static_cast<int>(p.A.rows())), N_(p.w.N()), K_(p.w.K()) {
  const PackedMatrix B = pack_weights(p.w.codes);
  const HalfMatrix s = permute_scales(p.w.scales, p.w.group);
  A_ = DeviceBuffer(p.A.size() * 2);
  A_.upload(p.A.data(), p.A.size() * 2);
  B_ = DeviceBuffer(B.size() * 4);
  B_.upload(B.data(), B.size() * 4);
  scales_ = DeviceBuffer(s.size() * 2);
  scales_.upload(s.data(), s.size() * 2);
  C_ = DeviceBuffer((static_cast<std::size_t>(M_) + 2 * kGuardRows) * N_ * 2);
}

tc_problem DeviceProblem::abi_problem(const Problem& p) const {
  tc_problem q{};
  q.abi_version = TC_PLUGIN_ABI_VERSION;
  q.M = M_, q.N = N_, q.K = K_, q.group = p.w.group;
  q.contract = p.contract == Contract::marlin ? TC_CONTRACT_MARLIN : TC_CONTRACT_FP32;
  q.A = A_.get(), q.B = B_.get(), q.scales = scales_.get();
  q.C = static_cast<char*>(C_.get()) + static_cast<std::size_t>(kGuardRows) * N_ * 2;
  if (p.config.m_blocks != 0)  // m_blocks 0 leaves the config all zero: automatic
    q.config = {p.config.m_blocks, p.config.n_blocks, p.config.k_blocks, p.config.group_blocks};
  q.sms = p.sms;
  q.max_par = p.max_par;
  q.workspace = workspace_.get();
  q.workspace_bytes = workspace_.bytes();
  return q;
}

KernelRun DeviceProblem::run(const KernelPlugin& kernel, const Problem& p, unsigned flags, void* stream) {
  tc_problem q = abi_problem(p);
  std::size_t need = 0;
  KernelRun out;
  out.status = kernel.workspace_size(q, need);
  if (!out.status.ok()) return out;
  if (workspace_.bytes() < need) {  // grow, zeroed once; the kernel keeps it zeroed
    workspace_ = DeviceBuffer(need);
    workspace_.zero();
  }
  q = abi_problem(p);
  q.flags = flags;
  q.stream = stream;
  C_.fill16(kPoison);
  out.status = kernel.run(q);
  if (!out.status.ok()) return out;
  check(cudaDeviceSynchronize(), "kernel execution");
  HalfMatrix buffer(M_ + 2 * kGuardRows, N_);
  C_.download(buffer.data(), buffer.size() * 2);
  out.C = interior(buffer, kGuardRows, 0, kGuardRows, 0);
  out.guard = guard_band(buffer, kGuardRows, 0, kGuardRows, 0);
  return out;
}

KernelRun DeviceProblem::run_traced(const KernelPlugin& kernel, const Problem& p, int capacity, int launches) {
  tc_problem q = abi_problem(p);
  std::size_t need = 0;
  KernelRun out;
  out.status = kernel.workspace_size(q, need);
  if (!out.status.ok()) return out;
  if (workspace_.bytes() < need) {
    workspace_ = DeviceBuffer(need);
    workspace_.zero();
  }
  q = abi_problem(p);
  const int sms = p.sms;
  const std::size_t words = static_cast<std::size_t>(launches) * sms * (1 + 5 * capacity);
  DeviceBuffer trace_buffer(words * sizeof(int));
  trace_buffer.zero();
  out.status = kernel.run_traced(q, static_cast<int*>(trace_buffer.get()), capacity);
  if (!out.status.ok()) return out;
  check(cudaDeviceSynchronize(), "kernel execution");
  trace.resize(words);
  trace_buffer.download(trace.data(), words * sizeof(int));
  return out;
}

}  // namespace tc::testing
