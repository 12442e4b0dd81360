#include "tilecheck/compare/compare_gtest.h"

#include <cstdlib>
#include <filesystem>

#include "tilecheck/core/error.h"
#include "tilecheck/compare/errormap.h"
#include "tilecheck/compare/report.h"

namespace tc {
namespace {

// Writes the error map of a failing comparison; returns its path, or a note why there is none. Never
// throws: a test that fails must report its mismatch, not an I/O problem.
std::string save_error_map(const Expectation& e, const Comparison& c, std::string& note) {
  const std::string dir = error_map_dir();
  if (dir == "off") return {};
  try {
    std::filesystem::create_directories(dir);
    const std::string path = (std::filesystem::path(dir) / error_map_name(e)).string();
    write_error_map(path, e, c);
    return path;
  } catch (const std::exception& ex) {
    note = cat("(no error map: ", ex.what(), ")\n");
    return {};
  }
}

::testing::AssertionResult judge(const char* expectation_text, const char* output_text, const Expectation& e,
                                 const HalfMatrix& got, const GuardBand& guard, const CompareOptions& options,
                                 bool write_map) {
  Comparison c;
  try {
    c = compare(e, got, guard, options);
  } catch (const std::exception& ex) {
    return ::testing::AssertionFailure() << output_text << " cannot be compared with " << expectation_text << ": "
                                         << ex.what();
  }
  if (c.passed()) return ::testing::AssertionSuccess();
  std::string note;
  ReportOptions report_options;
  if (write_map) report_options.error_map = save_error_map(e, c, note);
  return ::testing::AssertionFailure() << output_text << " does not match " << expectation_text << ":\n"
                                       << report(e, c, report_options) << note;
}

}  // namespace

std::string error_map_dir() {
  const char* env = std::getenv("TC_ERRMAP_DIR");
  return env && *env ? env : "tilecheck-errmaps";
}

::testing::AssertionResult Matches::operator()(const char* expectation_text, const char* output_text,
                                               const Expectation& e, const HalfMatrix& got) const {
  return judge(expectation_text, output_text, e, got, {}, options_, write_error_map_);
}

::testing::AssertionResult Matches::operator()(const char* expectation_text, const char* output_text,
                                               const char* /*guard_text*/, const Expectation& e,
                                               const HalfMatrix& got, const GuardBand& guard) const {
  return judge(expectation_text, output_text, e, got, guard, options_, write_error_map_);
}

::testing::AssertionResult MatchesReference(const char* expectation_text, const char* output_text,
                                            const Expectation& e, const HalfMatrix& got) {
  return Matches()(expectation_text, output_text, e, got);
}

::testing::AssertionResult MatchesReferenceWithGuard(const char* expectation_text, const char* output_text,
                                                     const char* guard_text, const Expectation& e,
                                                     const HalfMatrix& got, const GuardBand& guard) {
  return Matches()(expectation_text, output_text, guard_text, e, got, guard);
}

::testing::AssertionResult Deterministic(const char* schedule_text, const char* outputs_text, const Schedule& s,
                                         const std::vector<HalfMatrix>& outputs) {
  Determinism d;
  try {
    d = check_determinism(s, outputs);
  } catch (const std::exception& ex) {
    return ::testing::AssertionFailure() << outputs_text << ": " << ex.what();
  }
  if (d.passed()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << outputs_text << " are not bitwise equal (schedule " << schedule_text
                                       << "):\n"
                                       << determinism_report(s, d);
}

}  // namespace tc
