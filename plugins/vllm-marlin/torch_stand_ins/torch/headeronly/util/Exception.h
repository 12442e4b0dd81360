// tilecheck's stand-in for torch's torch/headeronly/util/Exception.h, written for the vllm-marlin
// adapter (plugins/vllm-marlin): vLLM's scalar_type.hpp needs one macro from it, STD_TORCH_CHECK, and
// nothing else of torch. Our own minimal declaration, not torch's code.
//
// STD_TORCH_CHECK(cond, message parts...) fails when cond is false. scalar_type.hpp uses it inside
// constexpr constructors of its type constants, so the failing branch must be a plain call that is
// never evaluated in a constant expression; the message parts are not evaluated at all. On the host
// a failure throws std::runtime_error naming the condition (the adapter builds its types from
// constants only, so it never does); in device code it traps.
#pragma once

#include <stdexcept>
#include <string>

#if defined(__CUDACC__)
#define TC_TORCH_STAND_IN_HD __host__ __device__
#else
#define TC_TORCH_STAND_IN_HD
#endif

namespace tc_torch_stand_in {

[[noreturn]] inline TC_TORCH_STAND_IN_HD void check_failed(const char* condition) {
#if defined(__CUDA_ARCH__)
  (void)condition;
  __trap();
#else
  throw std::runtime_error(std::string("STD_TORCH_CHECK failed: ") + condition);
#endif
}

}  // namespace tc_torch_stand_in

#define STD_TORCH_CHECK(cond, ...) \
  ((cond) ? static_cast<void>(0) : ::tc_torch_stand_in::check_failed(#cond))
