#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdio>

#include "misbehaving_kernels.h"

namespace {

__global__ void trap_kernel() { __trap(); }

// Spins until a flag that nothing sets: the launch never ends (the kernel sleeps between polls so
// that it does not starve other work on the device).
__global__ void hang_kernel(const volatile int* never_set) {
  while (*never_set == 0) __nanosleep(1000);
}

// Adds the fp16 value in scratch[0] to C[0] and then clears scratch[0]: a kernel that reads its
// scratch before writing it. Harmless while the scratch happens to be zero, which it stays when the
// workspace is zeroed once and every launch clears it again.
__global__ void add_scratch_kernel(unsigned short* C, unsigned short* scratch) {
  const __half sum = __hadd(__ushort_as_half(C[0]), __ushort_as_half(scratch[0]));
  C[0] = __half_as_ushort(sum);
  scratch[0] = 0;
}

tc_status launched(const char* what, char* message, size_t capacity) {
  const cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) return TC_OK;
  if (message != nullptr) std::snprintf(message, capacity, "%s: %s", what, cudaGetErrorString(e));
  return TC_ERR_CUDA;
}

}  // namespace

tc_status tc_kit_launch_trap(void* stream, char* message, size_t capacity) {
  trap_kernel<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>();
  return launched("trap_kernel", message, capacity);
}

tc_status tc_kit_launch_hang(void* stream, char* message, size_t capacity) {
  static int* flag = nullptr;  // device memory, zero, never written again
  if (flag == nullptr) {
    if (cudaMalloc(&flag, sizeof(int)) != cudaSuccess || cudaMemset(flag, 0, sizeof(int)) != cudaSuccess)
      return launched("hang flag", message, capacity);
  }
  hang_kernel<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>(flag);
  return launched("hang_kernel", message, capacity);
}

tc_status tc_kit_spoil_tile(void* C, int N, int rows, int cols, void* stream, char* message, size_t capacity) {
  // Every byte 0x64: each fp16 element becomes 0x6464 = 1124.0, far outside every bound of the suite.
  const cudaError_t e = cudaMemset2DAsync(C, static_cast<size_t>(N) * 2, 0x64, static_cast<size_t>(cols) * 2, rows,
                                          static_cast<cudaStream_t>(stream));
  if (e == cudaSuccess) return TC_OK;
  if (message != nullptr) std::snprintf(message, capacity, "cudaMemset2DAsync: %s", cudaGetErrorString(e));
  return TC_ERR_CUDA;
}

namespace {

tc_status checked(cudaError_t e, const char* what, char* message, size_t capacity) {
  if (e == cudaSuccess) return TC_OK;
  if (message != nullptr) std::snprintf(message, capacity, "%s: %s", what, cudaGetErrorString(e));
  return TC_ERR_CUDA;
}

}  // namespace

tc_status tc_kit_dirty_lock(void* workspace, void* stream, char* message, size_t capacity) {
  // One byte 1: the first lock (a little-endian int) left at 1, as a last block that forgot its reset.
  return checked(cudaMemsetAsync(workspace, 1, 1, static_cast<cudaStream_t>(stream)), "cudaMemsetAsync", message,
                 capacity);
}

tc_status tc_kit_read_scratch(void* C, void* scratch, void* stream, char* message, size_t capacity) {
  add_scratch_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<unsigned short*>(C),
                                                                      static_cast<unsigned short*>(scratch));
  return launched("add_scratch_kernel", message, capacity);
}

tc_status tc_kit_write_row(void* C, int M, int N, void* stream, char* message, size_t capacity) {
  // Row M: the first row past the output, 8 elements of fp16 zero (the guard band's poison is not zero).
  char* row = static_cast<char*>(C) + static_cast<size_t>(M) * N * 2;
  return checked(cudaMemsetAsync(row, 0, 8 * 2, static_cast<cudaStream_t>(stream)), "cudaMemsetAsync", message,
                 capacity);
}
