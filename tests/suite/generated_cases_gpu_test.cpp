// The GPU matrix's set-up (ctest: suite_gpu.generated_cases, FIXTURES_SETUP for every matrix
// process): the catalogue's on-demand cases whose file is missing, made once and several at a time
// before the matrix processes start. Without it each process that needs a missing large case makes
// its own copy, all at once: on a fresh build tree 32 processes making the same cases was most of
// the GPU label's time (docs/results/framework-speed-2026-12-02-s18.md). One `tilecheck golden
// regenerate --case` process per case (HDF5 is not thread-safe here), the largest first.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "common/run_command.h"
#include "tilecheck/core/error.h"
#include "tilecheck/fixtures/golden.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

std::vector<CaseSpec> missing_generated_cases(const GoldenPaths& paths) {
  std::vector<CaseSpec> missing;
  for (const CatalogueEntry& e : load_catalogue(paths.catalogue()).entries)
    if (e.storage == Storage::generated && !fs::exists(paths.location(e))) missing.push_back(e.spec);
  const auto work = [](const CaseSpec& s) { return double(s.shape.M) * s.shape.N * s.shape.K; };
  std::sort(missing.begin(), missing.end(), [&](const CaseSpec& a, const CaseSpec& b) { return work(a) > work(b); });
  return missing;
}

TEST(GeneratedCases, AreMadeOnceBeforeTheMatrixProcesses) {
  TC_REQUIRE_GPU();
  const GoldenPaths paths = default_golden_paths();
  const std::vector<CaseSpec> missing = missing_generated_cases(paths);
  const fs::path scratch = fs::path(::testing::TempDir()) / "tc_generated_cases";
  const unsigned processes = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::mutex failures_mutex;
  std::vector<std::string> failures;
  const auto make = [&](unsigned slot) {
    const fs::path dir = scratch / std::to_string(slot);  // run_command's stderr file, one per process
    fs::create_directories(dir);
    for (std::size_t i = next++; i < missing.size(); i = next++) {
      const test_support::CommandResult r = test_support::run_command(
          cat(TC_TILECHECK, " golden regenerate --keep-manifest --fixtures '", paths.fixtures_dir, "' --generated '",
              paths.generated_dir, "' --case ", missing[i].id),
          dir);
      if (r.code == 0) continue;
      std::lock_guard<std::mutex> lock(failures_mutex);
      failures.push_back(cat(missing[i].id, ": exit ", r.code, "\n", r.out, r.err));
    }
  };
  std::vector<std::thread> threads;
  for (unsigned slot = 0; slot < processes; ++slot) threads.emplace_back(make, slot);
  for (std::thread& t : threads) t.join();
  for (const std::string& f : failures) ADD_FAILURE() << f;
  std::printf("%zu on-demand cases were missing and are made (%u at a time)\n", missing.size(), processes);
  EXPECT_TRUE(missing_generated_cases(paths).empty());
}

}  // namespace
}  // namespace tc
