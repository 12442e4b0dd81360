// The arguments of one launch of the kernel (marlin_kernel.cuh), filled by the host API
// (host_api.cu), and the dump variant's switch.
#pragma once
#include <cuda_runtime.h>

#include "tilecheck/plugin/plugin.h"  // tc_contract

namespace tc::device {

// Arguments of one launch. `rows` is the number of valid rows (16 * m_blocks * par, or fewer
// on the tail launch); rows past it are never read (zero-filled) nor written.
struct KernelArgs {
  const int4* A;
  const int4* B;
  const int4* scales;
  int4* C;
  float* partials;   // fp32 contract: one tile of fp32 partial sums per thread block
  int* locks;        // one per column of tiles (n_tiles * par), zero between launches
  int* trace;        // optional: per block, [count, then (column, k_begin, k_end, idx, count)...]
  int trace_capacity;
  int rows;
  int N;
  int K;
  int par;
  tc_contract contract;
  // The dump variant (TC_ACC_DUMP) only: for the tile of schedule column `dump_column`, each warp
  // row's accumulators after every k-tile, then the running sum after every reduction step
  // (layout: tilecheck/plugin/debug_entry_points.h, tc_kernel_run_dump).
  float* dump;
  int dump_column;
  // uint4 instances only: (G, N/8) int32, the ABI's packed zero points (tilecheck/plugin/plugin.h).
  // Last, so that the fields before it keep the offsets the uint4b8 instances' code was built with.
  const int4* zero_points;
};

#ifndef TC_ACC_DUMP
#define TC_ACC_DUMP 0
#endif
constexpr bool kAccDump = TC_ACC_DUMP;

}  // namespace tc::device
