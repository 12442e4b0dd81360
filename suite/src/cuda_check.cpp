#include "tilecheck/suite/cuda_check.h"

#include "tilecheck/core/error.h"

namespace tc {

void check_cuda(cudaError_t e, const char* call, const char* file, int line) {
  if (e == cudaSuccess) return;
  throw Error(cat(call, " failed: ", cudaGetErrorName(e), ": ", cudaGetErrorString(e), " (", file, ":", line, ")"));
}

}  // namespace tc
