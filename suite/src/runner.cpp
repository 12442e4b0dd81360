#include "tilecheck/suite/runner.h"

#include "tilecheck/core/error.h"

namespace tc {

std::string format_not_applicable(const KernelPlugin& kernel, const FixtureFormat& format) {
  if (kernel.abi_version() < 2) return abi_v1_not_applicable(format);
  return kernel.not_applicable(plugin_format(format));
}

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
  // A format the library does not implement is n/a before anything reaches the device.
  const std::string refused = format_not_applicable(*kernel_, f.spec.format);
  if (!refused.empty()) {
    KernelRun out;
    out.status = {TC_ERR_UNSUPPORTED, refused};
    return out;
  }
  if (!device_) device_ = std::make_unique<DeviceCase>(kernel_operands(f));
  Launch l;
  l.config = cell.config;
  l.sms = cell.sms;
  return device_->run(*kernel_, l, workspace_);
}

}  // namespace tc
