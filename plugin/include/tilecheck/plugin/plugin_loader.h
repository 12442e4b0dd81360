// Loads a kernel library that implements the plugin ABI (tilecheck/plugin/plugin.h) with dlopen, checks
// its ABI version and declarations, and calls it. Our own kernel variants are loaded the same way.
// Every call with a problem goes through one gate first: the problem is given the library's ABI
// version, and a problem of a format the library does not implement is refused (TC_ERR_UNSUPPORTED,
// naming the library and the format) without calling it. A problem built by hand with abi_version
// 1, or 2 with its format left all zero, is ABI 1's format (its ABI 2 fields are filled in).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tilecheck/plugin/debug_entry_points.h"
#include "tilecheck/plugin/formats.h"
#include "tilecheck/plugin/plugin.h"
#include "tilecheck/reference/numerics.h"
#include "tilecheck/reference/schedule.h"

namespace tc {

// Which bytes of a problem's workspace are locks and which scratch (tc_workspace_layout), checked to
// lie inside the workspace and not to overlap. `declared` is false for a library without
// tc_plugin_workspace_layout: then the whole workspace is locks.
struct WorkspaceLayout {
  std::size_t lock_offset = 0, lock_bytes = 0;
  std::size_t scratch_offset = 0, scratch_bytes = 0;
  bool declared = false;
};

struct RunResult {
  tc_status status = TC_OK;
  std::string message;
  bool ok() const { return status == TC_OK; }
};

class KernelPlugin {
 public:
  // Throws tc::Error naming the path and the problem (missing file, missing symbol, an ABI version
  // outside 1..TC_PLUGIN_ABI_VERSION, a malformed tc_plugin_formats list: the entry, field and value).
  static KernelPlugin load(const std::string& path);

  const tc_plugin_info_t& info() const { return *info_; }
  int abi_version() const { return info_->abi_version; }
  // The formats the library implements: its tc_plugin_formats list (ABI 2), or ABI 1's format.
  const std::vector<tc_format>& formats() const { return formats_; }
  bool declares_formats() const { return declared_formats_; }
  // "" if the library implements `f`; else why not, naming the library and the format: for a
  // library of ABI 1, "kernel library X (plugin ABI 1): format ...: the kernel library's ABI v1
  // implements ..."; for ABI 2, "kernel library X does not list format bf16-uint4 (it lists ...)".
  std::string not_applicable(const tc_format& f) const;
  std::vector<TileConfig> configs() const;  // info().configs as values
  const std::string& path() const { return path_; }
  RunResult workspace_size(const tc_problem& problem, size_t& bytes) const;
  RunResult run(const tc_problem& problem) const;
  // Whether the library declares its numerics (the optional tc_plugin_numerics).
  bool declares_numerics() const { return numerics_ != nullptr; }
  // Its declaration for `problem`, checked: a field left zero or out of its enum, or a min_k_slice
  // that is not a non-negative multiple of 16, is TC_ERR_INVALID_ARGUMENT naming the library, the
  // field and its value. Only for libraries that declare; throws otherwise.
  RunResult numerics(const tc_problem& problem, KernelNumerics& out) const;
  // The layout of the `bytes` of workspace `problem` asked for: the library's declaration, checked
  // (a range outside the workspace, or overlapping ranges, are TC_ERR_INVALID_ARGUMENT naming the
  // library and the values), or all locks for a library that declares none.
  RunResult workspace_layout(const tc_problem& problem, std::size_t bytes, WorkspaceLayout& out) const;
  bool declares_workspace_layout() const { return layout_ != nullptr; }
  bool can_trace() const { return traced_ != nullptr; }
  // Only for libraries that export tc_kernel_run_traced (ours); throws otherwise.
  RunResult run_traced(const tc_problem& problem, int* trace, int capacity) const;
  bool can_dump() const { return dump_ != nullptr; }
  // Only for our dump variant (tc_kernel_run_dump); throws otherwise.
  RunResult run_dump(const tc_problem& problem, int launch, int column, float* dump) const;

 private:
  // The problem as this library is to see it (its abi_version, the ABI 2 fields of ABI 1's format
  // filled in), or TC_ERR_UNSUPPORTED with not_applicable's reason.
  RunResult gate(const tc_problem& problem, tc_problem& out) const;

  std::string path_;
  std::vector<tc_format> formats_;
  bool declared_formats_ = false;
  void* handle_ = nullptr;  // kept open for the life of the process
  const tc_plugin_info_t* info_ = nullptr;
  tc_status (*workspace_size_)(const tc_problem*, size_t*, char*, size_t) = nullptr;
  tc_status (*run_)(const tc_problem*, char*, size_t) = nullptr;
  tc_status (*numerics_)(const tc_problem*, tc_numerics*, char*, size_t) = nullptr;
  tc_status (*layout_)(const tc_problem*, tc_workspace_layout*, char*, size_t) = nullptr;
  tc_kernel_run_traced_fn traced_ = nullptr;
  tc_kernel_run_dump_fn dump_ = nullptr;
};

const char* status_name(tc_status s);

}  // namespace tc
