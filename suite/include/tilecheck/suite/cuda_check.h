// Checking CUDA runtime calls on the host: a failed call throws tc::Error naming the call as
// written, the error (name and description) and the file and line, e.g.
//   "cudaMalloc(&ptr_, bytes) failed: cudaErrorMemoryAllocation: out of memory (<file>:<line>)"
// so a failure in a long run says which of many similar calls it was. Used by the suite's device
// code and `tilecheck bench`; the kernel library reports its own (kernel/src/host_api.cu).
#pragma once
#include <cuda_runtime_api.h>

namespace tc {

// Throws tc::Error unless `e` is cudaSuccess; `call` is the call's text.
void check_cuda(cudaError_t e, const char* call, const char* file, int line);

}  // namespace tc

#define TC_CHECK_CUDA(call) ::tc::check_cuda((call), #call, __FILE__, __LINE__)
