#include "kernels.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "arrays.h"
#include "judging.h"
#include "tilecheck/core/error.h"
#include "tilecheck/plugin/formats.h"
#include "tilecheck/plugin/plugin_loader.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/suite/kernel_operands.h"
#include "tilecheck/suite/problem.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace tc::py {
namespace {

// A format by the name a kernel library's list gives it ("bf16-uint4", "fp16-uint4b8-act-kpart",
// format_name) or by a case's ("fp16-uint4b8-actrandom-kpart"): a kernel reads whatever g_idx and
// perm it is given, so "act" stands for either permutation.
FixtureFormat kernel_format(const std::string& text) {
  std::string as_case = text;
  const std::size_t act = as_case.find("-act");
  if (act != std::string::npos && (act + 4 == as_case.size() || as_case[act + 4] == '-'))
    as_case.insert(act + 4, "random");
  try {
    return parse_format(as_case);
  } catch (const Error&) {
    throw Error(cat("format '", text,
                    "' is not a format (expected <fp16|bf16>-<uint4b8|uint4|uint8b128>[-act[-kpart]], "
                    "as Kernel.formats lists them, or a case's format)"));
  }
}

nb::dict format_dict(const FixtureFormat& f) {
  nb::dict d;
  d["name"] = format_name(plugin_format(f));
  d["dtype"] = std::string(name(f.dtype));
  d["weight_type"] = std::string(name(f.weights));
  d["bits"] = code_bits(f.weights);
  d["act_order"] = f.act_order != ActOrder::none;
  d["is_k_full"] = f.k_full;
  return d;
}

// What the problem's sizes, contract, configuration name ("" lets the kernel choose), grid size and
// format make, with the device pointers given as integers (torch's data_ptr(); 0 for NULL).
tc_problem problem_of(int M, int N, int K, int group, const std::string& contract, const std::string& config, int sms,
                      const std::string& format, std::uintptr_t stream, const DeviceOperands& on = {}) {
  Launch launch;
  if (!config.empty()) launch.config = parse_config(config);
  launch.sms = sms;
  launch.stream = reinterpret_cast<void*>(stream);
  return make_problem(Shape{M, N, K, group}, parse_contract(contract), launch, on, kernel_format(format));
}

void check(const KernelPlugin& k, const RunResult& r, const char* what) {
  require(r.ok(), k.info().name, " (", k.path(), "): ", what, " answered ", status_name(r.status), ": ", r.message);
}

const void* address(std::uintptr_t p) { return reinterpret_cast<const void*>(p); }  // 0: NULL

// A case's operands in the plugin ABI's layouts (kernel_operands.h), as read-only NumPy views that
// keep them alive: the dtype arrays as their bits (uint16), the rest int32; None where the format
// has none.
nb::dict operands_dict(const Case& c) {
  auto ops = std::make_shared<const KernelOperands>(kernel_operands(*c.fixture));
  const nb::capsule owner = keep_alive(ops);
  const auto vector_or_none = [&](const std::vector<int>& v) {
    return v.empty() ? nb::object(nb::none()) : nb::cast(view_vector(v, owner));
  };
  nb::dict d = format_dict(ops->format);
  d["case_format"] = name(ops->format);
  d["A"] = view(ops->A, owner);
  d["B"] = view(ops->B, owner);
  d["scales"] = view(ops->scales, owner);
  d["zero_points"] = ops->zero_points.size() == 0 ? nb::object(nb::none()) : nb::cast(view(ops->zero_points, owner));
  d["g_idx"] = vector_or_none(ops->g_idx);
  d["perm"] = vector_or_none(ops->perm);
  return d;
}

}  // namespace

void bind_kernel(nb::module_& m) {
  m.def(
      "format_fields", [](const std::string& text) { return format_dict(kernel_format(text)); }, "format"_a);
  m.def("kernel_operands", &operands_dict, "case"_a);
  nb::class_<KernelPlugin>(m, "Kernel")
      .def(
          "__init__",
          [](KernelPlugin* self, const std::string& path) { new (self) KernelPlugin(KernelPlugin::load(path)); },
          "path"_a)
      .def_prop_ro("path", [](const KernelPlugin& k) { return k.path(); })
      .def_prop_ro("name", [](const KernelPlugin& k) { return std::string(k.info().name); })
      .def_prop_ro("variant", [](const KernelPlugin& k) { return std::string(k.info().variant); })
      .def_prop_ro("abi_version", [](const KernelPlugin& k) { return k.abi_version(); })
      .def_prop_ro("configs",
                   [](const KernelPlugin& k) {
                     std::vector<std::string> names;
                     for (const TileConfig& c : k.configs()) names.push_back(name(c));
                     return names;
                   })
      .def_prop_ro("formats",
                   [](const KernelPlugin& k) {
                     std::vector<std::string> names;
                     for (const tc_format& f : k.formats()) names.push_back(format_name(f));
                     return names;
                   })
      .def_prop_ro("lists_formats", [](const KernelPlugin& k) { return k.declares_formats(); })
      // "" where the library implements the format; else the loader's reason, naming both.
      .def(
          "not_applicable",
          [](const KernelPlugin& k, const std::string& format) {
            return k.not_applicable(plugin_format(kernel_format(format)));
          },
          "format"_a)
      .def(
          "workspace_size",
          [](const KernelPlugin& k, int M, int N, int K, int group, const std::string& contract,
             const std::string& config, int sms, const std::string& format) {
            const tc_problem p = problem_of(M, N, K, group, contract, config, sms, format, 0);
            std::size_t bytes = 0;
            check(k, k.workspace_size(p, bytes), "tc_plugin_workspace_size");
            return bytes;
          },
          "M"_a, "N"_a, "K"_a, "group"_a, "contract"_a, "config"_a, "sms"_a, "format"_a)
      .def(
          "run",
          [](const KernelPlugin& k, int M, int N, int K, int group, const std::string& contract,
             const std::string& config, int sms, const std::string& format, std::uintptr_t A, std::uintptr_t B,
             std::uintptr_t scales, std::uintptr_t zero_points, std::uintptr_t g_idx, std::uintptr_t perm,
             std::uintptr_t C, std::uintptr_t workspace, std::size_t workspace_bytes, std::uintptr_t stream) {
            DeviceOperands on;
            on.A = address(A), on.B = address(B), on.scales = address(scales);
            on.zero_points = address(zero_points), on.g_idx = address(g_idx), on.perm = address(perm);
            on.C = reinterpret_cast<void*>(C);
            on.workspace = reinterpret_cast<void*>(workspace);
            on.workspace_bytes = workspace_bytes;
            const tc_problem p = problem_of(M, N, K, group, contract, config, sms, format, stream, on);
            RunResult r;
            {
              nb::gil_scoped_release unlocked;
              r = k.run(p);
            }
            check(k, r, "tc_plugin_run");
          },
          "M"_a, "N"_a, "K"_a, "group"_a, "contract"_a, "config"_a, "sms"_a, "format"_a, "A"_a, "B"_a, "scales"_a,
          "zero_points"_a, "g_idx"_a, "perm"_a, "C"_a, "workspace"_a, "workspace_bytes"_a, "stream"_a);
}

}  // namespace tc::py
