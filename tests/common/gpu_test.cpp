#include "common/gpu_test.h"

#include <cstdlib>

#include <omp.h>

namespace tc::test_support {
namespace {

// GPU tests run several at a time (ctest -j); the CPU reference would start one OpenMP thread per
// core in each. Two each keeps the machine from thrashing, unless OMP_NUM_THREADS says otherwise.
const bool kThreadsCapped = [] {
  if (std::getenv("OMP_NUM_THREADS") == nullptr) omp_set_num_threads(2);
  return true;
}();

}  // namespace

const KernelPlugin& kernel_under_test() {
  static const KernelPlugin plugin = [] {
    const char* env = std::getenv("TC_KERNEL");
    return KernelPlugin::load(env && *env ? env : TC_DEFAULT_KERNEL);
  }();
  return plugin;
}

}  // namespace tc::test_support
