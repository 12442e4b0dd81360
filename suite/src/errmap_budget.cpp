#include "tilecheck/suite/errmap_budget.h"

namespace tc {

bool ErrorMapBudget::reserve(std::uint64_t bound) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (used_ >= limit_ || bound > limit_ - used_) {
    ++skipped_;
    return false;
  }
  used_ += bound;
  return true;
}

void ErrorMapBudget::settle(std::uint64_t bound, std::uint64_t actual) {
  std::lock_guard<std::mutex> lock(mutex_);
  used_ = used_ - bound + actual;
  if (actual > 0) ++written_;
}

std::uint64_t ErrorMapBudget::used() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return used_;
}

int ErrorMapBudget::written() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return written_;
}

int ErrorMapBudget::skipped() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return skipped_;
}

}  // namespace tc
