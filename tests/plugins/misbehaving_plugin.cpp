// A kernel plugin that misbehaves on purpose, for testing that tilecheck keeps going and reports
// exactly what happened. Every cell is forwarded to our own kernel (libtc_kernel_upstream.so, which
// CMake places in the same directory), except the cells of one victim, where this library does
// what TC_KIT_BEHAVIOUR names:
//   trap         configuration m1n8k8g4: a device-side trap (a sticky CUDA error: the context is lost)
//                under the marlin contract; its fp32 cells are declined (TC_ERR_UNSUPPORTED)
//   hang         configuration m2n16k4g8: a kernel that never ends
//   unsupported  group 32 (either tile, any m_blocks) and the fp32 contract: TC_ERR_UNSUPPORTED
//   wrong_tile   configuration m1n8k8gcol: output tile (0, 0) overwritten after a correct run
//   crash        configuration m4n16k4gcol: a segmentation fault in tc_plugin_run (the host dies)
//   dirty_lock   configuration m1n16k4g8: a correct run that leaves the workspace's first lock at 1
//   scratch_reader configuration m2n8k8gcol: a correct run, then C[0] += the fp16 in its own scratch
//                (kKitScratchBytes past the forward target's workspace, declared as scratch), which it
//                clears after: invisible while the scratch stays zero, wrong whenever it holds anything
//   row_past_m   configuration m1n16k4gcol: a correct run, then 8 elements of row M written
// The victims are listed in misbehaving_plugin.h so that the tests assert against the same list.
// Every library declares its forward target's workspace layout (ABI 1.1), the scratch reader's with
// its own scratch added.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "misbehaving_kernels.h"
#include "misbehaving_plugin.h"
#include "tilecheck/plugin/plugin.h"

namespace {

using RunFn = tc_status (*)(const tc_problem*, char*, size_t);
using SizeFn = tc_status (*)(const tc_problem*, size_t*, char*, size_t);
using InfoFn = const tc_plugin_info_t* (*)();
using LayoutFn = tc_status (*)(const tc_problem*, tc_workspace_layout*, char*, size_t);

struct Forward {
  const tc_plugin_info_t* info = nullptr;
  SizeFn size = nullptr;
  RunFn run = nullptr;
  LayoutFn layout = nullptr;
  std::string error;  // why the forward target could not be loaded
};

// Our kernel, loaded from this library's own directory (so a copied build tree still works).
const Forward& forward() {
  static const Forward f = [] {
    Forward out;
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&forward), &self) == 0 || self.dli_fname == nullptr) {
      out.error = "cannot locate the kit library itself (dladdr)";
      return out;
    }
    std::string dir = self.dli_fname;
    dir = dir.substr(0, dir.find_last_of('/') + 1);
    const std::string path = dir + "libtc_kernel_upstream.so";
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      out.error = std::string("cannot load ") + path + ": " + dlerror();
      return out;
    }
    out.info = reinterpret_cast<InfoFn>(dlsym(handle, "tc_plugin_info"))();
    out.size = reinterpret_cast<SizeFn>(dlsym(handle, "tc_plugin_workspace_size"));
    out.run = reinterpret_cast<RunFn>(dlsym(handle, "tc_plugin_run"));
    out.layout = reinterpret_cast<LayoutFn>(dlsym(handle, "tc_plugin_workspace_layout"));
    return out;
  }();
  return f;
}

void say(char* message, size_t capacity, const std::string& text) {
  if (message != nullptr && capacity > 0) std::snprintf(message, capacity, "%s", text.c_str());
}

}  // namespace

extern "C" {

TC_PLUGIN_EXPORT const tc_plugin_info_t* tc_plugin_info(void) {
  static tc_plugin_info_t info = [] {
    tc_plugin_info_t i{};
    i.abi_version = TC_PLUGIN_ABI_VERSION;
    i.name = "tilecheck-misbehaving-kit";
    i.variant = tc_kit::kVariant;
    if (forward().info != nullptr) {
      i.config_count = forward().info->config_count;
      i.configs = forward().info->configs;
    }
    return i;
  }();
  return &info;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_size(const tc_problem* p, size_t* bytes, char* message,
                                                    size_t capacity) {
  if (forward().size == nullptr) {
    say(message, capacity, forward().error);
    return TC_ERR_INVALID_ARGUMENT;
  }
  if (p != nullptr && tc_kit::is_declined(*p)) {
    say(message, capacity, tc_kit::kTrapDeclines);
    return TC_ERR_UNSUPPORTED;
  }
  const tc_status s = forward().size(p, bytes, message, capacity);
  if (s == TC_OK && tc_kit::kBehaviour == tc_kit::Behaviour::scratch_reader) *bytes += tc_kit::kKitScratchBytes;
  return s;
}

// The forward target's layout; the scratch reader's own scratch follows the target's workspace.
TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_layout(const tc_problem* p, tc_workspace_layout* layout, char* message,
                                                      size_t capacity) {
  size_t bytes = 0;
  tc_status s = forward().size(p, &bytes, message, capacity);
  if (s != TC_OK) return s;
  *layout = {0, bytes, bytes, 0};  // a target without a layout: all locks
  if (forward().layout != nullptr && (s = forward().layout(p, layout, message, capacity)) != TC_OK) return s;
  if (tc_kit::kBehaviour == tc_kit::Behaviour::scratch_reader) {
    if (layout->scratch_bytes == 0) layout->scratch_offset = bytes;
    if (layout->scratch_offset + layout->scratch_bytes != bytes) {
      say(message, capacity, "the kit's scratch must follow the target's");
      return TC_ERR_INVALID_ARGUMENT;
    }
    layout->scratch_bytes += tc_kit::kKitScratchBytes;
  }
  return TC_OK;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_run(const tc_problem* p, char* message, size_t capacity) {
  if (forward().run == nullptr) {
    say(message, capacity, forward().error);
    return TC_ERR_INVALID_ARGUMENT;
  }
  if (p != nullptr && tc_kit::is_declined(*p)) {
    say(message, capacity, tc_kit::kTrapDeclines);
    return TC_ERR_UNSUPPORTED;
  }
  if (p != nullptr && tc_kit::is_victim(*p)) {
    switch (tc_kit::kBehaviour) {
      case tc_kit::Behaviour::trap:
        return tc_kit_launch_trap(p->stream, message, capacity);
      case tc_kit::Behaviour::hang:
        return tc_kit_launch_hang(p->stream, message, capacity);
      case tc_kit::Behaviour::unsupported:
        say(message, capacity, "the misbehaving kit implements no group-32 fp32 cell");
        return TC_ERR_UNSUPPORTED;
      case tc_kit::Behaviour::wrong_tile: {
        const tc_status s = forward().run(p, message, capacity);
        if (s != TC_OK) return s;
        return tc_kit_spoil_tile(p->C, p->N, p->M < 16 ? p->M : 16, 64, p->stream, message, capacity);
      }
      case tc_kit::Behaviour::crash: {
        volatile int* nowhere = nullptr;
        *nowhere = 1;  // SIGSEGV on the host
        break;
      }
      case tc_kit::Behaviour::dirty_lock: {
        const tc_status s = forward().run(p, message, capacity);
        if (s != TC_OK) return s;
        return tc_kit_dirty_lock(p->workspace, p->stream, message, capacity);
      }
      case tc_kit::Behaviour::scratch_reader: {
        size_t target = 0;
        tc_status s = forward().size(p, &target, message, capacity);
        if (s == TC_OK) s = forward().run(p, message, capacity);
        if (s != TC_OK) return s;
        return tc_kit_read_scratch(p->C, static_cast<char*>(p->workspace) + target, p->stream, message, capacity);
      }
      case tc_kit::Behaviour::row_past_m: {
        const tc_status s = forward().run(p, message, capacity);
        if (s != TC_OK) return s;
        return tc_kit_write_row(p->C, p->M, p->N, p->stream, message, capacity);
      }
    }
  }
  return forward().run(p, message, capacity);
}

}  // extern "C"
