// TC_CHECK_CUDA (tilecheck/suite/cuda_check.h): a failed CUDA call becomes a tc::Error naming the
// call as written, the error and the file and line; a successful one passes. No GPU needed: the
// errors are given, not provoked.
#include "tilecheck/suite/cuda_check.h"

#include <string>

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"

namespace tc {
namespace {

cudaError_t returns(cudaError_t e) { return e; }

TEST(CheckCuda, ASuccessfulCallPasses) { EXPECT_NO_THROW(TC_CHECK_CUDA(returns(cudaSuccess))); }

TEST(CheckCuda, AFailedCallNamesTheCallTheErrorAndTheLine) {
  const int line = __LINE__ + 2;
  try {
    TC_CHECK_CUDA(returns(cudaErrorMemoryAllocation));
    ADD_FAILURE() << "a failed call passed";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_EQ(text.rfind("returns(cudaErrorMemoryAllocation) failed: cudaErrorMemoryAllocation: ", 0), 0u) << text;
    EXPECT_NE(text.find(cudaGetErrorString(cudaErrorMemoryAllocation)), std::string::npos) << text;
    EXPECT_NE(text.find(std::string(__FILE__) + ":" + std::to_string(line) + ")"), std::string::npos) << text;
  }
}

TEST(CheckCuda, TheFunctionFormReportsWhatItIsGiven) {
  try {
    check_cuda(cudaErrorInvalidValue, "cudaMemcpy(dst, src, n, kind)", "bench.cpp", 42);
    ADD_FAILURE() << "a failed call passed";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), std::string("cudaMemcpy(dst, src, n, kind) failed: cudaErrorInvalidValue: ") +
                                         cudaGetErrorString(cudaErrorInvalidValue) + " (bench.cpp:42)");
  }
}

}  // namespace
}  // namespace tc
