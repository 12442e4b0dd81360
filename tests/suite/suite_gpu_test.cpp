// The numerical suite on the GPU: every catalogue case (of the formats the library implements: its
// plugin ABI 2 list, else ABI 1's fp16-uint4b8) x applicable configuration x grid size,
// for the kernel library under test ($TC_KERNEL; its variant is the scale-fetch order), against
// the golden fixtures, through the judge chain `tilecheck run` uses (T0 on exact cases, T1, T2, guard
// rows, poison, the workspace's locks left zero), so a cell gets the same verdict here as there.
//   Catalogue/KernelVsGolden.Matches/<case>_<config>_<contract>_<variant>_sms<S>
//   Sanitize/KernelVsGolden.Matches/...   the reduced matrix the compute-sanitizer tier runs
// ctest runs one process per (library, configuration). The kernel runs in a worker process
// (tilecheck/suite/kernel_workers.h): a cell that faults, crashes the worker or hangs fails with
// FAULT or HANG and the next cell gets a new worker; after three in a row the configuration's other
// cells fail as not run. A cell the library does not implement (TC_ERR_UNSUPPORTED) is skipped with
// its reason. TC_IN_PROCESS=1 runs the kernel in this process instead (the sanitizer tier, which
// must see the kernel's own process).
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "tilecheck/compare/compare_gtest.h"
#include "tilecheck/compare/errormap.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/kernel_workers.h"
#include "tilecheck/suite/runner.h"

namespace tc {
namespace {

// The device's multiprocessor count names the "all SMs" cells; without a GPU (test listing on a
// CPU machine) the H200's 132, so the names match those of a real run.
int all_sms() {
  static const int sms = gpu_unavailable_reason().empty() ? device_multiprocessors() : 132;
  return sms;
}

std::vector<Cell> cells(bool reduced) {
  try {
    const KernelPlugin& kernel = test_support::kernel_under_test();
    MatrixOptions options;
    options.kernel = kernel.info().name;
    options.variant = kernel.info().variant;
    options.all_sms = all_sms();
    options.reduced = reduced;
    options.formats = kernel.formats();  // a library that lists formats gets their cases' cells too
    options.lists_formats = kernel.declares_formats();
    return suite_cells(load_catalogue(default_golden_paths().catalogue()).entries, kernel.configs(), options);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "cannot list the suite's cells: " << e.what();
    return {};
  }
}

SuiteRunner& runner() {
  static SuiteRunner r(&test_support::kernel_under_test(), default_golden_paths());
  return r;
}

bool in_process() {
  const char* env = std::getenv("TC_IN_PROCESS");
  return env != nullptr && std::string(env) == "1";
}

KernelRun execute(const Cell& cell) {
  if (in_process()) return runner().execute(cell);
  static KernelWorkers workers([] {
    KernelWorkersOptions o;
    o.executable = TC_TILECHECK;
    o.kernel = test_support::kernel_under_test().path();
    o.devices = {0};
    return o;
  }());
  return workers.run(0, cell, runner().fixture(cell.case_id)).run;
}

class KernelVsGolden : public ::testing::TestWithParam<Cell> {};

TEST_P(KernelVsGolden, Matches) {
  TC_REQUIRE_GPU();
  const Cell& cell = GetParam();
  const KernelRun run = execute(cell);
  if (run.status.status == TC_ERR_UNSUPPORTED) GTEST_SKIP() << "n/a: " << run.status.message;
  ASSERT_FALSE(run.fault) << cell.name() << ": " << run.status.message;
  ASSERT_TRUE(run.status.ok()) << cell.name() << ": " << status_name(run.status.status) << ": " << run.status.message;
  const Judgement j = judge(runner().fixture(cell.case_id), cell, judged_numerics(run.declared, cell.contract),
                            {run.C, run.guard, run.workspace});
  if (j.outcome.status == CellStatus::pass) return;
  ReportOptions options;
  const std::string dir = error_map_dir();
  if (dir != "off" && !j.comparison.passed()) {
    try {
      std::filesystem::create_directories(dir);
      options.error_map = (std::filesystem::path(dir) / error_map_name(j.expectation)).string();
      write_error_map(options.error_map, j.expectation, j.comparison);
    } catch (const std::exception& e) {
      options.error_map.clear();
      ADD_FAILURE() << "no error map: " << e.what();
    }
  }
  ADD_FAILURE() << cell.name() << ": " << name(j.outcome.status) << "\n" << judgement_report(j, options);
}

std::string cell_name(const ::testing::TestParamInfo<Cell>& info) { return info.param.name(); }

INSTANTIATE_TEST_SUITE_P(Catalogue, KernelVsGolden, ::testing::ValuesIn(cells(false)), cell_name);
INSTANTIATE_TEST_SUITE_P(Sanitize, KernelVsGolden, ::testing::ValuesIn(cells(true)), cell_name);

}  // namespace

void PrintTo(const Cell& c, std::ostream* out) { *out << c.name(); }

}  // namespace tc
