#include "tilecheck/kernel/plugin_loader.h"

#include <dlfcn.h>

#include "tilecheck/reference/error.h"

namespace tc {
namespace {

template <typename Fn>
Fn symbol(void* handle, const char* name, const std::string& path, bool required) {
  void* p = dlsym(handle, name);
  require(p != nullptr || !required, "kernel library ", path, " does not export ", name,
          " (see tilecheck/kernel/plugin.h)");
  return reinterpret_cast<Fn>(p);
}

constexpr size_t kMessageCapacity = 1024;

}  // namespace

const char* status_name(tc_status s) {
  switch (s) {
    case TC_OK: return "TC_OK";
    case TC_ERR_INVALID_ARGUMENT: return "TC_ERR_INVALID_ARGUMENT";
    case TC_ERR_UNSUPPORTED: return "TC_ERR_UNSUPPORTED";
    case TC_ERR_WORKSPACE: return "TC_ERR_WORKSPACE";
    case TC_ERR_CUDA: return "TC_ERR_CUDA";
  }
  return "unknown status";
}

KernelPlugin KernelPlugin::load(const std::string& path) {
  KernelPlugin k;
  k.path_ = path;
  k.handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (k.handle_ == nullptr) throw Error(cat("cannot load kernel library ", path, ": ", dlerror()));
  using InfoFn = const tc_plugin_info_t* (*)();
  k.info_ = symbol<InfoFn>(k.handle_, "tc_plugin_info", path, true)();
  require(k.info_ != nullptr && k.info_->abi_version == TC_PLUGIN_ABI_VERSION, "kernel library ", path,
          " implements plugin ABI ", k.info_ ? k.info_->abi_version : -1, "; tilecheck needs ",
          TC_PLUGIN_ABI_VERSION);
  k.workspace_size_ = symbol<decltype(k.workspace_size_)>(k.handle_, "tc_plugin_workspace_size", path, true);
  k.run_ = symbol<decltype(k.run_)>(k.handle_, "tc_plugin_run", path, true);
  k.traced_ = symbol<tc_kernel_run_traced_fn>(k.handle_, "tc_kernel_run_traced", path, false);
  k.dump_ = symbol<tc_kernel_run_dump_fn>(k.handle_, "tc_kernel_run_dump", path, false);
  return k;
}

std::vector<TileConfig> KernelPlugin::configs() const {
  std::vector<TileConfig> out;
  for (int i = 0; i < info_->config_count; ++i) {
    const tc_tile_config& c = info_->configs[i];
    out.push_back({c.m_blocks, c.n_blocks, c.k_blocks, c.group_blocks});
  }
  return out;
}

RunResult KernelPlugin::workspace_size(const tc_problem& problem, size_t& bytes) const {
  char message[kMessageCapacity] = {0};
  const tc_status s = workspace_size_(&problem, &bytes, message, sizeof message);
  return {s, message};
}

RunResult KernelPlugin::run(const tc_problem& problem) const {
  char message[kMessageCapacity] = {0};
  const tc_status s = run_(&problem, message, sizeof message);
  return {s, message};
}

RunResult KernelPlugin::run_traced(const tc_problem& problem, int* trace, int capacity) const {
  require(traced_ != nullptr, "kernel library ", path_, " does not export tc_kernel_run_traced");
  char message[kMessageCapacity] = {0};
  const tc_status s = traced_(&problem, trace, capacity, message, sizeof message);
  return {s, message};
}

RunResult KernelPlugin::run_dump(const tc_problem& problem, int launch, int column, float* dump) const {
  require(dump_ != nullptr, "kernel library ", path_, " does not export tc_kernel_run_dump (build the dump variant: "
          "libtc_kernel_upstream_dump.so, preset gpu)");
  char message[kMessageCapacity] = {0};
  const tc_status s = dump_(&problem, launch, column, dump, message, sizeof message);
  return {s, message};
}

}  // namespace tc
