// Judges suite cells on worker threads while the caller keeps the GPU busy. Judging a cell (the
// reference under the cell's schedule, then the comparison) is CPU work, independent per cell and
// far longer than the kernel launch: on one thread it would leave the GPU and every other core idle.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "tilecheck/suite/outcome.h"

namespace tc {

class JudgePool {
 public:
  using Work = std::function<CellOutcome()>;

  // `threads` workers (0: one per hardware thread). At most 2 * threads cells wait at once, so the
  // outputs held in memory stay bounded however long the matrix is.
  explicit JudgePool(unsigned threads);
  ~JudgePool();  // finishes the queued work
  JudgePool(const JudgePool&) = delete;
  JudgePool& operator=(const JudgePool&) = delete;

  // Queues `work` for `cell`; blocks while the queue is full. An exception from `work` becomes an
  // ERROR outcome of `cell` carrying its message.
  void submit(const Cell& cell, Work work);
  std::size_t completed() const;
  unsigned threads() const { return static_cast<unsigned>(workers_.size()); }
  // Waits for every submitted cell; the outcomes in submission order.
  std::vector<CellOutcome> finish();

 private:
  struct Task {
    std::size_t index;
    Cell cell;
    Work work;
  };
  void work_loop();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Task> queue_;
  std::vector<CellOutcome> outcomes_;
  std::size_t submitted_ = 0;
  std::size_t completed_ = 0;
  std::size_t max_queued_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace tc
