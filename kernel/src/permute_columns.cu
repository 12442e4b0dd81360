#include "permute_columns.h"

#include <cstddef>
#include <cstdint>

#include "variants.h"

namespace tc::kernel {
namespace {

constexpr int kThreads = 256;

// One thread per element of a row: the reads gather, the writes are coalesced.
__global__ void permute_columns(const std::uint16_t* A, const int* perm, std::uint16_t* out, int K) {
  const int i = blockIdx.x * kThreads + threadIdx.x;
  if (i >= K) return;
  const std::size_t row = static_cast<std::size_t>(blockIdx.y) * K;
  if constexpr (mutant(kMutActOrderScatter)) {
    out[row + perm[i]] = A[row + i];  // the permutation applied the other way round
  } else {
    out[row + i] = A[row + perm[i]];
  }
}

}  // namespace

cudaError_t launch_permute_columns(const void* A, const int* perm, void* out, int rows, int K, cudaStream_t stream) {
  constexpr int kMaxGridRows = 65535;  // gridDim.y's limit: more rows go in several launches
  for (int first = 0; first < rows; first += kMaxGridRows) {
    const int count = rows - first < kMaxGridRows ? rows - first : kMaxGridRows;
    const std::size_t offset = static_cast<std::size_t>(first) * K;
    const dim3 grid((K + kThreads - 1) / kThreads, count);
    permute_columns<<<grid, kThreads, 0, stream>>>(static_cast<const std::uint16_t*>(A) + offset, perm,
                                                   static_cast<std::uint16_t*>(out) + offset, K);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace tc::kernel
