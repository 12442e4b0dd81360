// Runs suite cells in this process: loads each case's golden fixture once (verified against the
// manifest), keeps its device copies while consecutive cells use it, and runs the kernel plugin.
// The GPU ctest matrix runs cells with it when the kernel must run in the test's own process (the
// sanitizer tier); `tilecheck` commands use it as their fixture cache. Judging is the judge chain's
// (tilecheck/suite/judge.h), included here for the callers that do both.
#pragma once
#include <memory>
#include <string>

#include "tilecheck/compare/expectation.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/cells.h"
#include "tilecheck/suite/device_case.h"
#include "tilecheck/suite/judge.h"

namespace tc {

// Why `kernel` cannot run cases of `format`, "" if it can: for a library of plugin ABI 1, the
// sentence of abi_v1_not_applicable (the one the matrix's excluded_formats prints); for ABI 2, the
// loader's, naming the library and the format it does not list.
std::string format_not_applicable(const KernelPlugin& kernel, const FixtureFormat& format);

class SuiteRunner {
 public:
  // `kernel` may be null for judging recordings only.
  SuiteRunner(const KernelPlugin* kernel, GoldenPaths paths);

  const Fixture& fixture(const std::string& case_id);  // loaded and verified once
  // The same fixture, kept alive for work that outlives the runner's switch to the next case.
  std::shared_ptr<const Fixture> shared_fixture(const std::string& case_id);
  // The cell's case under `numerics` on the cell's schedule (the expectation the judge chain builds).
  Expectation expectation(const Cell& cell, const KernelNumerics& numerics);
  // The kernel's output for the cell; a case of a format the library does not implement is
  // TC_ERR_UNSUPPORTED (n/a) with format_not_applicable's reason, without touching the device.
  KernelRun execute(const Cell& cell);

 private:
  const KernelPlugin* kernel_;
  GoldenPaths paths_;
  std::string fixture_id_;
  std::shared_ptr<const Fixture> fixture_;
  std::unique_ptr<DeviceCase> device_;
  Workspace workspace_;
};

}  // namespace tc
