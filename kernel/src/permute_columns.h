// Act-order (plugin ABI 2): A's columns put into the kernel's K order before the GEMM,
// A'[:, i] = A[:, perm[i]] (vLLM's marlin_mm does the same). 16-bit elements of either dtype.
#pragma once
#include <cuda_runtime.h>

namespace tc::kernel {

// rows x K elements of A (row-major) into `out` (rows x K, another buffer); perm holds K indices,
// each in 0..K-1 (not checked: the caller's).
cudaError_t launch_permute_columns(const void* A, const int* perm, void* out, int rows, int K, cudaStream_t stream);

}  // namespace tc::kernel
