// A run's budget of error-map bytes (`tilecheck run --errmap-budget MB`), shared by the threads
// that judge cells. Before a map is written its size bound (tc::error_map_size_bound) is reserved;
// a map that does not fit is not written (its cell keeps its verdict), and once written the
// reservation becomes the file's real size. The total on disk never exceeds the limit, as long as
// the bound holds (it counts the payload before compression).
#pragma once
#include <cstdint>
#include <mutex>

namespace tc {

class ErrorMapBudget {
 public:
  explicit ErrorMapBudget(std::uint64_t limit_bytes) : limit_(limit_bytes) {}

  // Reserves `bound` bytes for one map; false (counted as skipped) when they do not fit.
  bool reserve(std::uint64_t bound);
  // The map was written with `actual` bytes (or, with `actual` 0, not written after all).
  void settle(std::uint64_t bound, std::uint64_t actual);

  std::uint64_t limit() const { return limit_; }
  std::uint64_t used() const;  // bytes written, plus reservations not settled yet
  int written() const;
  int skipped() const;

 private:
  mutable std::mutex mutex_;
  std::uint64_t limit_;
  std::uint64_t used_ = 0;
  int written_ = 0;
  int skipped_ = 0;
};

}  // namespace tc
