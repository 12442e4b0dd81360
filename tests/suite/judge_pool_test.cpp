// JudgePool: outcomes come back in submission order whatever order the workers finish in, a
// throwing cell becomes an ERROR outcome naming the cause, and the queue stays bounded.
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/suite/judge_pool.h"

namespace tc {
namespace {

Cell cell_number(int i) {
  Cell c;
  c.case_id = "case" + std::to_string(i);
  c.sms = i;
  return c;
}

TEST(JudgePool, OutcomesComeBackInSubmissionOrder) {
  JudgePool pool(4);
  EXPECT_EQ(pool.threads(), 4u);
  for (int i = 0; i < 64; ++i) {
    pool.submit(cell_number(i), [i] {
      std::this_thread::sleep_for(std::chrono::microseconds((64 - i) * 50));  // later cells finish first
      CellOutcome o;
      o.cell = cell_number(i);
      o.status = CellStatus::pass;
      return o;
    });
  }
  const std::vector<CellOutcome> outcomes = pool.finish();
  ASSERT_EQ(outcomes.size(), 64u);
  EXPECT_EQ(pool.completed(), 64u);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(outcomes[i].cell.sms, i);
}

TEST(JudgePool, AThrowingCellBecomesAnErrorOutcome) {
  JudgePool pool(2);
  pool.submit(cell_number(7), []() -> CellOutcome { throw std::runtime_error("golden file unreadable"); });
  const std::vector<CellOutcome> outcomes = pool.finish();
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].status, CellStatus::error);
  EXPECT_EQ(outcomes[0].cell.case_id, "case7");
  EXPECT_EQ(outcomes[0].message, "golden file unreadable");
}

TEST(JudgePool, AtMostTwiceTheThreadsCellsWait) {
  JudgePool pool(1);
  std::atomic<bool> release{false};
  std::atomic<int> started{0};
  const auto blocked = [&] {
    ++started;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return CellOutcome{};
  };
  pool.submit(cell_number(0), blocked);  // taken by the worker, which then blocks
  while (started == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  pool.submit(cell_number(1), blocked);  // two wait in the queue: full
  pool.submit(cell_number(2), blocked);
  std::atomic<bool> third_queued{false};
  std::thread submitter([&] {
    pool.submit(cell_number(3), blocked);
    third_queued = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(third_queued) << "submit must wait while 2 * threads cells are queued";
  release = true;
  submitter.join();
  EXPECT_TRUE(third_queued);
  EXPECT_EQ(pool.finish().size(), 4u);
}

TEST(JudgePool, ZeroThreadsMeansOnePerHardwareThread) {
  JudgePool pool(0);
  EXPECT_EQ(pool.threads(), std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace
}  // namespace tc
