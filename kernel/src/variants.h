// Compile-time variants of the kernel, one per library target (kernel/CMakeLists.txt):
//   TC_SCALE_FETCH_ORDER  where the last block fetches per-column scales (the seed issue's question)
//   TC_MUTANT             one injected bug class, for the mutation suite (0: none)
//   TC_DELAYS             seeded delays at the synchronisation points (delays.cuh; 0: none)
// Every switch below is small and named, so a mutant is one `if constexpr` away from the real code.
#pragma once

#include "tilecheck/reference/host_device.h"

#ifndef TC_SCALE_FETCH_ORDER
#define TC_SCALE_FETCH_ORDER 0
#endif
#ifndef TC_MUTANT
#define TC_MUTANT 0
#endif
#ifndef TC_DELAYS
#define TC_DELAYS 0
#endif

namespace tc {

enum class FetchOrder { upstream = 0, swapped = 1, hoisted = 2 };
constexpr FetchOrder kFetchOrder = static_cast<FetchOrder>(TC_SCALE_FETCH_ORDER);

enum Mutant : int {
  kNoMutant = 0,
  kMutScalesInReduceScratch = 1,  // per-column scale slot placed inside the reduction scratch
  kMutNoScaleWait = 2,            // no cp.async wait before the per-column scales are read
  kMutNoStageBarrier = 3,         // no barrier after the pipeline stage wait
  kMutWaitOneTooFew = 4,          // wait_group allows one group too many in flight
  kMutSharedGroupScaleSlot = 5,   // group scales read from the group's first stage (vLLM race)
  kMutNoWriteOutBarrier = 6,      // no barrier at the end of the write-out
  kMutNoLock = 7,                 // cross-block reduction without taking the lock
  kMutNoLockReset = 8,            // last block does not reset its lock
  kMutNoRowPredicate = 9,         // rows past M written on the last partial M tile
  kMutGroupOffByOne = 10,         // scale group index off by one
  kMutZeroPointSeven = 11,        // zero point 7 instead of 8
  kMutNibbleSwap = 12,            // nibbles swapped in dequantization
  kMutRoundTowardZero = 13,       // epilogue rounds toward zero
  kMutFp16Partials = 14,          // fp16 partial sums under the fp32 contract
  kMutWrongColumnPermutation = 15,  // per-column scales read with the grouped permutation
  kMutBf16ScaleThroughFp16 = 16,    // bf16 scales converted through fp16 (the bf16 instances only)
  kMutActOrderScatter = 17,         // act-order: A's columns scattered by perm instead of gathered
  kMutZeroPointOffByOne = 18,       // uint4: every zero point read as z + 1 (the zero-point instances only)
};
constexpr int kMutant = TC_MUTANT;
TC_HOST_DEVICE constexpr bool mutant(Mutant m) { return kMutant == m; }
constexpr bool kDelays = TC_DELAYS;

}  // namespace tc
