#include "tilecheck/suite/device_case.h"

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "tilecheck/core/error.h"
#include "tilecheck/compare/poison.h"
#include "tilecheck/suite/cuda_check.h"
#include "tilecheck/suite/noise.h"

namespace tc {
namespace {

bool context_lost = false;  // see describe_fault()

// Errors after which the context cannot be used again (CUDA runtime documentation: "sticky").
bool sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorInsufficientDriver) {  // also what the runtime says when there is no driver at all
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);  // 0: no driver is installed
    cudaRuntimeGetVersion(&runtime);
    if (driver == 0)
      return "no NVIDIA GPU driver is installed (cudaDriverGetVersion finds none, so cudaGetDeviceCount finds no "
             "CUDA device)";
    return cat("the NVIDIA driver supports CUDA up to ", driver / 1000, ".", driver % 1000 / 10,
               ", older than the CUDA ", runtime / 1000, ".", runtime % 1000 / 10,
               " runtime tilecheck was built with (cudaGetDeviceCount: cudaErrorInsufficientDriver)");
  }
  if (e != cudaSuccess) return cat("no usable CUDA device: cudaGetDeviceCount says \"", cudaGetErrorString(e), "\"");
  if (count == 0) return "no CUDA device: cudaGetDeviceCount found none";
  return "";
}

int device_multiprocessors() {
  int ordinal = 0, count = 0;
  TC_CHECK_CUDA(cudaGetDevice(&ordinal));
  TC_CHECK_CUDA(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, ordinal));
  return count;
}

std::string device_description() {
  int ordinal = 0, driver = 0;
  cudaDeviceProp p{};
  TC_CHECK_CUDA(cudaGetDevice(&ordinal));
  TC_CHECK_CUDA(cudaGetDeviceProperties(&p, ordinal));
  cudaDriverGetVersion(&driver);
  return cat(p.name, ", ", p.multiProcessorCount, " SMs, driver ", driver / 1000, ".", driver % 1000 / 10);
}

std::string describe_fault(int cuda_error) {
  const auto e = static_cast<cudaError_t>(cuda_error);
  if (sticky(e)) context_lost = true;
  return cat("FAULT: ", cudaGetErrorName(e), ": ", cudaGetErrorString(e));
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
  TC_CHECK_CUDA(cudaMalloc(&ptr_, bytes ? bytes : 16));
}
DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}
DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  std::swap(ptr_, o.ptr_);
  std::swap(bytes_, o.bytes_);
  return *this;
}
DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cudaFree(ptr_);
}
// Both wait until the device holds the data: a cudaMemcpy from pageable memory may return while
// its DMA is still in flight, and cudaMemset is asynchronous; neither is ordered before kernels on
// a non-blocking stream. (On the H200 a graph replay on such a stream wrote C, then the poison's
// late DMA overwrote it.)
void DeviceBuffer::upload(const void* host, std::size_t bytes, std::size_t offset) {
  TC_CHECK_CUDA(cudaMemcpy(static_cast<char*>(ptr_) + offset, host, bytes, cudaMemcpyHostToDevice));
  TC_CHECK_CUDA(cudaDeviceSynchronize());
}
void DeviceBuffer::download(void* host, std::size_t bytes, std::size_t offset) const {
  TC_CHECK_CUDA(cudaMemcpy(host, static_cast<const char*>(ptr_) + offset, bytes, cudaMemcpyDeviceToHost));
}
void DeviceBuffer::fill16(std::uint16_t value) {
  const std::vector<std::uint16_t> host(bytes_ / 2, value);
  upload(host.data(), host.size() * 2);
}
void DeviceBuffer::zero() {
  TC_CHECK_CUDA(cudaMemset(ptr_, 0, bytes_));
  TC_CHECK_CUDA(cudaDeviceSynchronize());
}

void Workspace::reserve(std::size_t bytes) {
  if (buffer_.get() != nullptr && buffer_.bytes() >= bytes) return;
  buffer_ = DeviceBuffer(bytes);
  buffer_.zero();
}

void Workspace::poison_scratch(const WorkspaceLayout& layout) {
  if (layout.scratch_bytes == 0) return;
  TC_CHECK_CUDA(cudaMemset(static_cast<char*>(buffer_.get()) + layout.scratch_offset, kScratchPoison,
                           layout.scratch_bytes));
  TC_CHECK_CUDA(cudaDeviceSynchronize());  // ordered before a launch on any stream
}

namespace {

// The first non-zero 32-bit word of `bytes` (read at `offset` of the workspace), as a lock of the
// layout, with how many words are non-zero; "" when all are zero.
std::string dirty_locks(const std::vector<unsigned char>& bytes, std::size_t offset, const WorkspaceLayout& l) {
  std::size_t first = bytes.size(), words = 0;
  for (std::size_t b = 0; b < bytes.size(); b += 4) {
    bool dirty = false;
    for (std::size_t i = b; i < std::min(b + 4, bytes.size()); ++i) dirty = dirty || bytes[i] != 0;
    if (!dirty) continue;
    ++words;
    if (first == bytes.size()) first = b;
  }
  if (words == 0) return {};
  std::int32_t value = 0;
  std::memcpy(&value, bytes.data() + first, std::min<std::size_t>(4, bytes.size() - first));
  const std::size_t at = offset + first;
  const bool lock = at >= l.lock_offset && at < l.lock_offset + l.lock_bytes;
  std::string where = lock ? cat("lock ", (at - l.lock_offset) / 4, " (workspace byte ", at, ")")
                           : cat("workspace byte ", at, " (neither lock nor scratch: treated as a lock)");
  std::string text = cat("workspace: ", where, " left at ", value, "; ", words, " non-zero 32-bit word",
                         words == 1 ? "" : "s", " outside the scratch after the launch");
  if (!l.declared)
    text += " (the library declares no workspace layout, so all of it is locks: tc_plugin_workspace_layout, "
            "docs/plugin.md)";
  return text;
}

}  // namespace

std::string Workspace::settle(const WorkspaceLayout& layout, std::size_t used) {
  // The bytes that must be zero again: [0, used) less the scratch (at most two ranges).
  const std::size_t scratch_end = layout.scratch_offset + layout.scratch_bytes;
  const std::pair<std::size_t, std::size_t> ranges[2] = {
      {0, layout.scratch_bytes ? std::min(layout.scratch_offset, used) : used},
      {layout.scratch_bytes ? std::min(scratch_end, used) : used, used}};
  std::string found;
  char* base = static_cast<char*>(buffer_.get());
  for (const auto& [begin, end] : ranges) {
    if (end <= begin) continue;
    std::vector<unsigned char> bytes(end - begin);
    buffer_.download(bytes.data(), bytes.size(), begin);
    const std::string dirty = dirty_locks(bytes, begin, layout);
    if (dirty.empty()) continue;
    if (found.empty()) found = dirty;
    TC_CHECK_CUDA(cudaMemset(base + begin, 0, end - begin));
  }
  if (layout.scratch_bytes) TC_CHECK_CUDA(cudaMemset(base + layout.scratch_offset, 0, layout.scratch_bytes));
  TC_CHECK_CUDA(cudaDeviceSynchronize());
  return found;
}

DeviceCase::DeviceCase(const HalfMatrix& A, const PackedMatrix& B, const HalfMatrix& scales_marlin, int group,
                       Contract contract)
    : M_(static_cast<int>(A.rows())),
      N_(static_cast<int>(B.cols() / 2)),
      K_(static_cast<int>(A.cols())),
      group_(group),
      contract_(contract),
      A_(A.size() * 2),
      B_(B.size() * 4),
      scales_(scales_marlin.size() * 2),
      C_((static_cast<std::size_t>(M_) + 2 * kGuardRows) * N_ * 2) {
  require(B.rows() * 16 == K_, "packed B has ", B.rows(), " rows; K=", K_, " needs ", K_ / 16);
  A_.upload(A.data(), A.size() * 2);
  B_.upload(B.data(), B.size() * 4);
  scales_.upload(scales_marlin.data(), scales_marlin.size() * 2);
}

DeviceCase::DeviceCase(const KernelOperands& ops)
    : M_(ops.shape.M),
      N_(ops.shape.N),
      K_(ops.shape.K),
      group_(ops.shape.group),
      contract_(ops.contract),
      format_(ops.format),
      A_(ops.A.size() * 2),
      B_(ops.B.size() * 4),
      scales_(ops.scales.size() * 2),
      C_((static_cast<std::size_t>(M_) + 2 * kGuardRows) * N_ * 2) {
  const int words = N_ * 2 * code_bits(format_.weights) / 4;  // int32 words per packed row: 2N or 4N
  require(ops.B.rows() * 16 == K_ && ops.B.cols() == words, "packed B is (", ops.B.rows(), ", ", ops.B.cols(),
          "); K=", K_, " N=", N_, " of ", name(format_.weights), " codes need (", K_ / 16, ", ", words, ")");
  A_.upload(ops.A.data(), ops.A.size() * 2);
  B_.upload(ops.B.data(), ops.B.size() * 4);
  scales_.upload(ops.scales.data(), ops.scales.size() * 2);
  if (ops.zero_points.size() > 0) {
    zero_points_ = DeviceBuffer(ops.zero_points.size() * 4);
    zero_points_.upload(ops.zero_points.data(), ops.zero_points.size() * 4);
  }
  if (!ops.perm.empty()) {
    static_assert(sizeof(int) == 4, "g_idx and perm are int32");
    g_idx_ = DeviceBuffer(ops.g_idx.size() * 4);
    g_idx_.upload(ops.g_idx.data(), ops.g_idx.size() * 4);
    perm_ = DeviceBuffer(ops.perm.size() * 4);
    perm_.upload(ops.perm.data(), ops.perm.size() * 4);
  }
}

void* DeviceCase::output() const {
  return static_cast<char*>(C_.get()) + static_cast<std::size_t>(kGuardRows) * N_ * 2;
}

tc_problem DeviceCase::problem(const Launch& l, Workspace& ws) const {
  DeviceOperands on{A_.get(), B_.get(), scales_.get(), output(), ws.get(), ws.bytes()};
  on.zero_points = zero_points_.get();
  on.g_idx = g_idx_.get();
  on.perm = perm_.get();
  return make_problem({M_, N_, K_, group_}, contract_, l, on, format_);
}

void DeviceCase::poison() { C_.fill16(kPoison); }

RunResult DeviceCase::ask(const KernelPlugin& kernel, const Launch& l, Workspace& ws) const {
  std::size_t need = 0;
  return kernel.workspace_size(problem(l, ws), need);
}

KernelRun DeviceCase::collect(const Launch& l, const RunResult& launched) {
  KernelRun out;
  out.status = launched;
  if (!launched.ok()) {
    out.fault = launched.message.rfind("FAULT", 0) == 0;
    return out;
  }
  const cudaError_t e = cudaStreamSynchronize(static_cast<cudaStream_t>(l.stream));
  if (e != cudaSuccess) {
    out.fault = true;
    out.status = {TC_ERR_CUDA, describe_fault(e)};
    return out;
  }
  HalfMatrix buffer(M_ + 2 * kGuardRows, N_);
  C_.download(buffer.data(), buffer.size() * 2);
  out.C = interior(buffer, kGuardRows, 0, kGuardRows, 0);
  out.guard = guard_band(buffer, kGuardRows, 0, kGuardRows, 0);
  return out;
}

KernelRun DeviceCase::run(const KernelPlugin& kernel, const Launch& l, Workspace& ws) {
  if (context_lost)
    return collect(l, {TC_ERR_CUDA, "FAULT: the CUDA context was lost by an earlier fault in this process"});
  std::size_t need = 0;
  const RunResult sized = kernel.workspace_size(problem(l, ws), need);
  if (!sized.ok()) return collect(l, sized);
  ws.reserve(need);
  WorkspaceLayout layout;
  const RunResult laid = kernel.workspace_layout(problem(l, ws), need, layout);
  if (!laid.ok()) return collect(l, laid);
  ws.poison_scratch(layout);
  poison();
  // A perturbation round runs the kernel on a stream of its priority, with its noise beside it.
  Launch on = l;
  if (l.perturb) on.stream = perturbation_stream(l.perturb->priority);
  const tc_problem q = problem(on, ws);
  KernelRun out = collect(on, l.perturb ? run_perturbed(kernel, q, *l.perturb) : kernel.run(q));
  // A launch that faulted lost the context (nothing to check); any other outcome, a refusal too,
  // leaves the workspace zero for the next cell.
  if (!out.fault) out.workspace = ws.settle(layout, need);
  // A library that declares its numerics is asked for this problem's once it has run (so that a
  // launch it refuses is reported in its own words, as from any library): a refusal or a bad
  // declaration then replaces the output as the cell's outcome.
  if (!out.status.ok() || out.fault || !kernel.declares_numerics()) return out;
  KernelNumerics n;
  const RunResult asked = kernel.numerics(problem(l, ws), n);
  if (!asked.ok()) {
    KernelRun refused;
    refused.status = asked;
    return refused;
  }
  out.declared = n;
  return out;
}

}  // namespace tc
