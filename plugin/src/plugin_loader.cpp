#include "tilecheck/plugin/plugin_loader.h"

#include <dlfcn.h>

#include "tilecheck/core/error.h"

namespace tc {
namespace {

template <typename Fn>
Fn symbol(void* handle, const char* name, const std::string& path, bool required) {
  void* p = dlsym(handle, name);
  require(p != nullptr || !required, "kernel library ", path, " does not export ", name,
          " (see tilecheck/plugin/plugin.h)");
  return reinterpret_cast<Fn>(p);
}

constexpr size_t kMessageCapacity = 1024;

// A declared enum field: 1 + the index of its C++ value, as plugin.h numbers them.
static_assert(TC_ACCUMULATOR_FP16 == 1 + static_cast<int>(Accumulator::fp16) &&
              TC_PARTIALS_FP32 == 1 + static_cast<int>(Partials::fp32) &&
              TC_EPILOGUE_SCALE_BEFORE_REDUCE == 1 + static_cast<int>(Epilogue::scale_before_reduce) &&
              TC_SCHEDULE_UNKNOWN == 1 + static_cast<int>(ScheduleKind::unknown));
template <typename Enum>
bool declared_enum(int value, int count, Enum& out) {
  if (value < 1 || value > count) return false;
  out = static_cast<Enum>(value - 1);
  return true;
}

// tc_numerics -> KernelNumerics, or the first field that is not a declaration.
std::string decode(const tc_numerics& n, KernelNumerics& out) {
  if (!declared_enum(n.accumulator, 2, out.numerics.accumulator))
    return cat("accumulator=", n.accumulator, " (expected TC_ACCUMULATOR_FP32=1 or TC_ACCUMULATOR_FP16=2)");
  if (!declared_enum(n.partials, 2, out.numerics.partials))
    return cat("partials=", n.partials, " (expected TC_PARTIALS_FP16=1 or TC_PARTIALS_FP32=2)");
  if (!declared_enum(n.epilogue, 3, out.numerics.epilogue))
    return cat("epilogue=", n.epilogue,
               " (expected TC_EPILOGUE_ROUND_THEN_SCALE=1, TC_EPILOGUE_SCALE_THEN_ROUND=2 or "
               "TC_EPILOGUE_SCALE_BEFORE_REDUCE=3)");
  if (!declared_enum(n.schedule, 2, out.schedule))
    return cat("schedule=", n.schedule, " (expected TC_SCHEDULE_MARLIN_STRIPED=1 or TC_SCHEDULE_UNKNOWN=2)");
  if (n.min_k_slice < 0 || n.min_k_slice % 16 != 0)
    return cat("min_k_slice=", n.min_k_slice, " (expected a multiple of 16 rows, or 0 when not known)");
  out.min_k_slice = n.min_k_slice == 0 ? 16 : n.min_k_slice;
  return {};
}

// Empty if both ranges lie inside `bytes` and do not overlap; otherwise what is wrong.
std::string check_layout(const tc_workspace_layout& l, std::size_t bytes) {
  const auto inside = [bytes](std::size_t offset, std::size_t n) { return offset <= bytes && n <= bytes - offset; };
  if (!inside(l.lock_offset, l.lock_bytes))
    return cat("locks at bytes [", l.lock_offset, ", +", l.lock_bytes, ") outside its ", bytes, "-byte workspace");
  if (!inside(l.scratch_offset, l.scratch_bytes))
    return cat("scratch at bytes [", l.scratch_offset, ", +", l.scratch_bytes, ") outside its ", bytes,
               "-byte workspace");
  const bool apart = l.lock_bytes == 0 || l.scratch_bytes == 0 || l.lock_offset + l.lock_bytes <= l.scratch_offset ||
                     l.scratch_offset + l.scratch_bytes <= l.lock_offset;
  if (!apart)
    return cat("locks [", l.lock_offset, ", +", l.lock_bytes, ") overlapping scratch [", l.scratch_offset, ", +",
               l.scratch_bytes, ")");
  return {};
}

// A library's formats: its tc_plugin_formats list, checked, or ABI 1's format without one.
std::vector<tc_format> read_formats(const tc_format* (*formats)(int*), int abi_version, const std::string& path) {
  if (formats == nullptr) return {abi_v1_format()};
  require(abi_version >= 2, "kernel library ", path, " says abi_version ", abi_version,
          " but exports tc_plugin_formats (ABI 2): say abi_version ", TC_PLUGIN_ABI_VERSION,
          " (TC_PLUGIN_ABI_VERSION) to list formats");
  int count = -1;
  const tc_format* list = formats(&count);
  require(count >= 1, "kernel library ", path, " lists count=", count,
          " formats in tc_plugin_formats (expected 1 or more; without the function: ABI 1's format only)");
  require(list != nullptr, "kernel library ", path, " lists count=", count, " formats in tc_plugin_formats but returns NULL");
  std::vector<tc_format> out(list, list + count);
  for (int i = 0; i < count; ++i) {
    const std::string bad = format_problem(out[static_cast<size_t>(i)]);
    require(bad.empty(), "kernel library ", path, " lists format ", i, " in tc_plugin_formats with ", bad);
  }
  return out;
}

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
  require(k.info_ != nullptr && k.info_->abi_version >= TC_PLUGIN_ABI_OLDEST &&
              k.info_->abi_version <= TC_PLUGIN_ABI_VERSION,
          "kernel library ", path, " implements plugin ABI ", k.info_ ? k.info_->abi_version : -1,
          "; tilecheck loads ABI ", TC_PLUGIN_ABI_OLDEST, " to ", TC_PLUGIN_ABI_VERSION);
  using FormatsFn = const tc_format* (*)(int*);
  const auto formats = symbol<FormatsFn>(k.handle_, "tc_plugin_formats", path, false);
  k.formats_ = read_formats(formats, k.info_->abi_version, path);
  k.declared_formats_ = formats != nullptr;
  k.workspace_size_ = symbol<decltype(k.workspace_size_)>(k.handle_, "tc_plugin_workspace_size", path, true);
  k.run_ = symbol<decltype(k.run_)>(k.handle_, "tc_plugin_run", path, true);
  k.numerics_ = symbol<decltype(k.numerics_)>(k.handle_, "tc_plugin_numerics", path, false);
  k.layout_ = symbol<decltype(k.layout_)>(k.handle_, "tc_plugin_workspace_layout", path, false);
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

std::string KernelPlugin::not_applicable(const tc_format& f) const {
  for (const tc_format& listed : formats_)
    if (same_format(listed, f)) return "";
  if (abi_version() < 2) return cat("kernel library ", path_, " (plugin ABI 1): ", abi_v1_refusal(f));
  return unlisted_format(path_, f, formats_);
}

RunResult KernelPlugin::gate(const tc_problem& problem, tc_problem& out) const {
  out = problem;
  // Any other version is the caller's mistake: passed through for the library to refuse.
  if (problem.abi_version != 1 && problem.abi_version != TC_PLUGIN_ABI_VERSION) return {};
  const tc_format none{};
  if (problem.abi_version == 1 || same_format(problem.format, none)) {  // ABI 1's format, built by hand
    out.format = abi_v1_format();
    out.bits = 4;
    out.num_groups = problem.group > 0 ? problem.K / problem.group : 1;
    out.zero_points = out.g_idx = out.perm = nullptr;
  }
  const std::string refused = not_applicable(out.format);
  if (!refused.empty()) return {TC_ERR_UNSUPPORTED, refused};
  out.abi_version = abi_version();
  return {};
}

RunResult KernelPlugin::workspace_size(const tc_problem& problem, size_t& bytes) const {
  tc_problem q;
  if (RunResult refused = gate(problem, q); !refused.ok()) return refused;
  char message[kMessageCapacity] = {0};
  const tc_status s = workspace_size_(&q, &bytes, message, sizeof message);
  return {s, message};
}

RunResult KernelPlugin::run(const tc_problem& problem) const {
  tc_problem q;
  if (RunResult refused = gate(problem, q); !refused.ok()) return refused;
  char message[kMessageCapacity] = {0};
  const tc_status s = run_(&q, message, sizeof message);
  return {s, message};
}

RunResult KernelPlugin::numerics(const tc_problem& problem, KernelNumerics& out) const {
  require(numerics_ != nullptr, "kernel library ", path_, " does not export tc_plugin_numerics");
  tc_problem q;
  if (RunResult refused = gate(problem, q); !refused.ok()) return refused;
  char message[kMessageCapacity] = {0};
  tc_numerics declared{};
  const tc_status s = numerics_(&q, &declared, message, sizeof message);
  if (s != TC_OK) return {s, cat("tc_plugin_numerics: ", message)};
  const std::string bad = decode(declared, out);
  if (!bad.empty())
    return {TC_ERR_INVALID_ARGUMENT, cat("kernel library ", path_, " declares ", bad, " for M=", problem.M, " N=",
                                         problem.N, " K=", problem.K, " group=", problem.group)};
  return {};
}

RunResult KernelPlugin::workspace_layout(const tc_problem& problem, std::size_t bytes, WorkspaceLayout& out) const {
  out = WorkspaceLayout{};
  out.lock_bytes = bytes;  // undeclared: all of it is locks
  if (layout_ == nullptr) return {};
  tc_problem q;
  if (RunResult refused = gate(problem, q); !refused.ok()) return refused;
  char message[kMessageCapacity] = {0};
  tc_workspace_layout declared{};
  const tc_status s = layout_(&q, &declared, message, sizeof message);
  if (s != TC_OK) return {s, cat("tc_plugin_workspace_layout: ", message)};
  const std::string bad = check_layout(declared, bytes);
  if (!bad.empty())
    return {TC_ERR_INVALID_ARGUMENT, cat("kernel library ", path_, " declares a workspace layout with ", bad,
                                         " for M=", problem.M, " N=", problem.N, " K=", problem.K,
                                         " group=", problem.group)};
  out = {declared.lock_offset, declared.lock_bytes, declared.scratch_offset, declared.scratch_bytes, true};
  return {};
}

RunResult KernelPlugin::run_traced(const tc_problem& problem, int* trace, int capacity) const {
  require(traced_ != nullptr, "kernel library ", path_, " does not export tc_kernel_run_traced");
  tc_problem q;
  if (RunResult refused = gate(problem, q); !refused.ok()) return refused;
  char message[kMessageCapacity] = {0};
  const tc_status s = traced_(&q, trace, capacity, message, sizeof message);
  return {s, message};
}

RunResult KernelPlugin::run_dump(const tc_problem& problem, int launch, int column, float* dump) const {
  require(dump_ != nullptr, "kernel library ", path_, " does not export tc_kernel_run_dump (build the dump variant: "
          "libtc_kernel_upstream_dump.so, preset gpu)");
  tc_problem q;
  if (RunResult refused = gate(problem, q); !refused.ok()) return refused;
  char message[kMessageCapacity] = {0};
  const tc_status s = dump_(&q, launch, column, dump, message, sizeof message);
  return {s, message};
}

}  // namespace tc
