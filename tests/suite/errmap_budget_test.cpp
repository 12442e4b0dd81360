// A run's error-map budget (tilecheck/suite/errmap_budget.h): reservations that do not fit are
// refused and counted, settling replaces a reservation by the real size; judge_cell writes a
// failing cell's map only when the budget has room, and the cell keeps its verdict either way.
#include "tilecheck/suite/errmap_budget.h"

#include <filesystem>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/temp_dir.h"
#include "tilecheck/compare/errormap.h"
#include "tilecheck/suite/runner.h"
#include "tilecheck/suite/summary.h"

namespace tc {
namespace {

const std::string kCleanWorkspace;  // a workspace the check found clean

TEST(ErrorMapBudget, RefusesWhatDoesNotFitAndSettlesToTheRealSize) {
  ErrorMapBudget b(1000);
  EXPECT_TRUE(b.reserve(600));
  EXPECT_FALSE(b.reserve(600)) << "600 + 600 > 1000";
  EXPECT_EQ(b.used(), 600u);
  b.settle(600, 150);  // the file came out smaller than its bound
  EXPECT_EQ(b.used(), 150u);
  EXPECT_TRUE(b.reserve(850)) << "exactly the rest";
  b.settle(850, 0);  // not written after all
  EXPECT_EQ(b.used(), 150u);
  EXPECT_EQ(b.written(), 1);
  EXPECT_EQ(b.skipped(), 1);
  ErrorMapBudget none(0);
  EXPECT_FALSE(none.reserve(1));
}

TEST(ErrorMapBudget, NeverHandsOutMoreThanItsLimitAcrossThreads) {
  ErrorMapBudget b(1000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&b] {
      for (int i = 0; i < 100; ++i) b.reserve(7);
    });
  for (std::thread& t : threads) t.join();
  EXPECT_LE(b.used(), 1000u);
  EXPECT_EQ(b.used(), 7u * (1000 / 7));
  EXPECT_EQ(b.skipped(), 800 - 1000 / 7);
}

Fixture committed_m17_case() { return load_case(default_golden_paths(), "normal_m17_n128_k128_g128_marlin"); }

TEST(ErrorMapBudget, JudgeCellWritesMapsUntilTheBudgetIsSpent) {
  const Fixture f = committed_m17_case();
  HalfMatrix C = f.ref.expected;
  C.block(0, 0, 16, 128).setZero();
  const Cell cell{f.spec.id, choose_config(f.spec.shape), f.spec.contract, "upstream", 3};
  const Cell other{f.spec.id, choose_config(f.spec.shape), f.spec.contract, "upstream", 5};
  TempDir maps;
  const Expectation e = make_expectation(f, cell.contract, make_schedule(f.spec.shape, cell.config, cell.sms), "");
  const std::uint64_t bound = error_map_size_bound(e, compare(e, C));
  // Room for one map (4 kB of slack: judge_cell names the case's source in its expectation), not
  // for the second's bound beside the first map.
  ErrorMapBudget budget(bound + 4096);
  const CellOutcome first = judge_cell(f, cell, contract_default(cell.contract), {C, GuardBand{}, kCleanWorkspace}, maps.path().string(), nullptr, &budget);
  const CellOutcome second = judge_cell(f, other, contract_default(other.contract), {C, GuardBand{}, kCleanWorkspace}, maps.path().string(), nullptr, &budget);
  EXPECT_EQ(first.status, CellStatus::fail);
  ASSERT_FALSE(first.error_map.empty());
  EXPECT_EQ(first.error_map_bytes, std::filesystem::file_size(first.error_map));
  EXPECT_LE(first.error_map_bytes, bound);
  EXPECT_FALSE(first.error_map_skipped);
  EXPECT_EQ(second.status, CellStatus::fail) << "no map, same verdict";
  EXPECT_TRUE(second.error_map.empty());
  EXPECT_TRUE(second.error_map_skipped);
  EXPECT_EQ(budget.used(), first.error_map_bytes);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(maps.path()), {}), 1);

  Summary summary;
  summary.add(first);
  summary.add(second);
  std::ostringstream text;
  summary.print(text);
  EXPECT_NE(text.str().find("error maps: 1 written ("), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("; 1 not written: the run's error-map budget was reached"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find(second.cell.name() + ": " + second.message + " [no error map: over the budget]"),
            std::string::npos)
      << text.str();
}

}  // namespace
}  // namespace tc
