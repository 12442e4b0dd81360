#include "tilecheck/suite/judge_pool.h"

#include <omp.h>

#include <algorithm>
#include <exception>

namespace tc {

JudgePool::JudgePool(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  max_queued_ = 2 * static_cast<std::size_t>(threads);
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work_loop(); });
}

JudgePool::~JudgePool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void JudgePool::submit(const Cell& cell, Work work) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return queue_.size() < max_queued_; });
  queue_.push_back({submitted_++, cell, std::move(work)});
  outcomes_.resize(submitted_);
  changed_.notify_all();
}

std::size_t JudgePool::completed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return completed_;
}

std::vector<CellOutcome> JudgePool::finish() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [this] { return completed_ == submitted_; });
  return outcomes_;
}

void JudgePool::work_loop() {
  // The pool is the parallelism: a judge's OpenMP regions (reference, bounds, comparison) run on
  // its own thread, not on a team per worker (16 workers x 16 threads thrash; one is also faster
  // for the small cells that make up most of the matrix: 0.71 s vs 0.97 s for the recording here).
  omp_set_num_threads(1);
  for (;;) {
    Task task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to judge
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    changed_.notify_all();  // a submitter may wait for room
    CellOutcome outcome;
    try {
      outcome = task.work();
    } catch (const std::exception& e) {
      outcome = CellOutcome{};
      outcome.cell = task.cell;
      outcome.status = CellStatus::error;
      outcome.message = e.what();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      outcomes_[task.index] = std::move(outcome);
      ++completed_;
    }
    changed_.notify_all();
  }
}

}  // namespace tc
