#include "common/gpu_test.h"

#include <cstdlib>

namespace tc::test_support {
const KernelPlugin& kernel_under_test() {
  static const KernelPlugin plugin = [] {
    const char* env = std::getenv("TC_KERNEL");
    return KernelPlugin::load(env && *env ? env : TC_DEFAULT_KERNEL);
  }();
  return plugin;
}

}  // namespace tc::test_support
