// How a thread block waits for its turn at a column's lock (the cross-block reduction,
// marlin_kernel.cuh), with the debug builds' spin bound.
#pragma once
#include <cstdio>

#include "ptx.cuh"

namespace tc::device {

// Debug builds (TC_SPIN_BOUND=1): a block that polls a lock this often without progress traps
// with a message naming the lock, so a lost lock ends the launch instead of hanging the process.
// Release builds spin without a bound, as upstream Marlin does: on the H200 (CUDA 13.0) the
// bounded loop's code made slices that follow a non-last slice in the same block compute wrong
// results (root cause not yet found; docs/kernel-speed-diagnosis.md keeps the history), so it stays
// a debug-only aid and ctest's TIMEOUT bounds a hang in release.
#ifndef TC_SPIN_BOUND
#define TC_SPIN_BOUND 0
#endif
#ifndef TC_SPIN_LIMIT
#define TC_SPIN_LIMIT (1ll << 26)
#endif
constexpr long long kSpinLimit = TC_SPIN_LIMIT;

__device__ inline void wait_for_turn(const int* lock, int slice_idx, int column) {
  if constexpr (TC_SPIN_BOUND) {
    long long polls = 0;
    while (load_acquire(lock) != slice_idx) {
      if (++polls > kSpinLimit) {
        printf("tilecheck: block %d gave up after %lld polls of lock %d (column %d): it holds %d, "
               "expected %d; a lock was never released or the workspace was not zeroed\n",
               int(blockIdx.x), polls, column, column, load_acquire(lock), slice_idx);
        __trap();
      }
      __nanosleep(100);
    }
  } else {
    while (load_acquire(lock) != slice_idx) {
    }
  }
}

}  // namespace tc::device
