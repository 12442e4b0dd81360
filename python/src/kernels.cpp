#include "kernels.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "tilecheck/core/error.h"
#include "tilecheck/plugin/plugin_loader.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/suite/problem.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace tc::py {
namespace {

// What the problem's sizes, contract, configuration name ("" lets the kernel choose) and grid size
// make, with the device pointers given as integers (torch's data_ptr()).
tc_problem problem_of(int M, int N, int K, int group, const std::string& contract, const std::string& config,
                      int sms, std::uintptr_t stream) {
  Launch launch;
  if (!config.empty()) launch.config = parse_config(config);
  launch.sms = sms;
  launch.stream = reinterpret_cast<void*>(stream);
  return make_problem(Shape{M, N, K, group}, parse_contract(contract), launch, DeviceOperands{});
}

void check(const KernelPlugin& k, const RunResult& r, const char* what) {
  require(r.ok(), k.info().name, " (", k.path(), "): ", what, " answered ", status_name(r.status), ": ", r.message);
}

}  // namespace

void bind_kernel(nb::module_& m) {
  nb::class_<KernelPlugin>(m, "Kernel")
      .def("__init__", [](KernelPlugin* self, const std::string& path) { new (self) KernelPlugin(KernelPlugin::load(path)); },
           "path"_a)
      .def_prop_ro("path", [](const KernelPlugin& k) { return k.path(); })
      .def_prop_ro("name", [](const KernelPlugin& k) { return std::string(k.info().name); })
      .def_prop_ro("variant", [](const KernelPlugin& k) { return std::string(k.info().variant); })
      .def_prop_ro("configs", [](const KernelPlugin& k) {
        std::vector<std::string> names;
        for (const TileConfig& c : k.configs()) names.push_back(name(c));
        return names;
      })
      .def("workspace_size", [](const KernelPlugin& k, int M, int N, int K, int group, const std::string& contract,
                                const std::string& config, int sms) {
        const tc_problem p = problem_of(M, N, K, group, contract, config, sms, 0);
        std::size_t bytes = 0;
        check(k, k.workspace_size(p, bytes), "tc_plugin_workspace_size");
        return bytes;
      }, "M"_a, "N"_a, "K"_a, "group"_a, "contract"_a, "config"_a, "sms"_a)
      .def("run", [](const KernelPlugin& k, int M, int N, int K, int group, const std::string& contract,
                     const std::string& config, int sms, std::uintptr_t A, std::uintptr_t B, std::uintptr_t scales,
                     std::uintptr_t C, std::uintptr_t workspace, std::size_t workspace_bytes, std::uintptr_t stream) {
        tc_problem p = problem_of(M, N, K, group, contract, config, sms, stream);
        p.A = reinterpret_cast<const void*>(A);
        p.B = reinterpret_cast<const void*>(B);
        p.scales = reinterpret_cast<const void*>(scales);
        p.C = reinterpret_cast<void*>(C);
        p.workspace = reinterpret_cast<void*>(workspace);
        p.workspace_bytes = workspace_bytes;
        RunResult r;
        {
          nb::gil_scoped_release unlocked;
          r = k.run(p);
        }
        check(k, r, "tc_plugin_run");
      }, "M"_a, "N"_a, "K"_a, "group"_a, "contract"_a, "config"_a, "sms"_a, "A"_a, "B"_a, "scales"_a, "C"_a,
         "workspace"_a, "workspace_bytes"_a, "stream"_a);
}

}  // namespace tc::py
