#include "tilecheck/suite/runner.h"

#include "tilecheck/core/error.h"

namespace tc {

SuiteRunner::SuiteRunner(const KernelPlugin* kernel, GoldenPaths paths) : kernel_(kernel), paths_(std::move(paths)) {}

std::shared_ptr<const Fixture> SuiteRunner::shared_fixture(const std::string& case_id) {
  if (!fixture_ || fixture_id_ != case_id) {
    device_.reset();
    fixture_.reset();  // the old case's memory goes before the new case loads (unless shared)
    fixture_ = std::make_shared<const Fixture>(load_case(paths_, case_id));
    fixture_id_ = case_id;
  }
  return fixture_;
}

const Fixture& SuiteRunner::fixture(const std::string& case_id) { return *shared_fixture(case_id); }

Expectation SuiteRunner::expectation(const Cell& cell, const KernelNumerics& numerics) {
  return cell_expectation(fixture(cell.case_id), cell, numerics);
}

KernelRun SuiteRunner::execute(const Cell& cell) {
  if (kernel_ == nullptr) throw Error(cat("no kernel library to run cell ", cell.name()));
  const Fixture& f = fixture(cell.case_id);
  // The problem a v1 library is handed carries fp16 A and scales and Marlin-packed uint4b8 codes only.
  require(is_v1_format(f.spec.format), "cell ", cell.name(), ": ", abi_v1_not_applicable(f.spec.format));
  if (!device_)
    device_ = std::make_unique<DeviceCase>(f.A, f.B_marlin, f.scales_marlin, f.spec.shape.group, f.spec.contract);
  Launch l;
  l.config = cell.config;
  l.sms = cell.sms;
  return device_->run(*kernel_, l, workspace_);
}

}  // namespace tc
