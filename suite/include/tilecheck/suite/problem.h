// The plugin ABI's problem (tc_problem, tilecheck/plugin/plugin.h) from tilecheck's own types: the
// one place that knows which field a shape, a contract, a launch's options and the device buffers
// go into, for every caller that drives a kernel library (the suite's DeviceCase, `tilecheck bench`).
#pragma once
#include <cstddef>
#include <optional>

#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/plugin/plugin.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/schedule.h"
#include "tilecheck/reference/shape.h"
#include "tilecheck/suite/perturb_plan.h"

namespace tc {

// How to launch: the caller's choices, each left to the kernel when zero.
struct Launch {
  TileConfig config{0, 0, 0, 0};  // m_blocks 0: the kernel chooses
  int sms = 0;                    // 0: every multiprocessor
  int max_par = 0;                // 0: the kernel's default
  unsigned flags = 0;             // TC_FLAG_*
  void* stream = nullptr;         // cudaStream_t; null: the legacy default stream
  // The perturbation tier's round: noise beside the launch, on a stream of the round's priority
  // (tilecheck/suite/noise.h; DeviceCase::run). None for every other launch.
  std::optional<PerturbRound> perturb;
};

// Device pointers, laid out as tilecheck/plugin/plugin.h says.
struct DeviceOperands {
  const void* A = nullptr;       // (M, K) fp16
  const void* B = nullptr;       // (K/16, 2N) int32, Marlin-packed
  const void* scales = nullptr;  // (G, N) fp16, Marlin-permuted
  void* C = nullptr;             // (M, N) fp16
  void* workspace = nullptr;     // zeroed; may be null while asking for the workspace size
  std::size_t workspace_bytes = 0;
  // ABI 2 (tilecheck/suite/kernel_operands.h says what each holds); null where the format has none.
  const void* zero_points = nullptr;  // (G, N/8) int32, uint4 only
  const void* g_idx = nullptr;        // (K) int32, act-order only
  const void* perm = nullptr;         // (K) int32, act-order only
};

tc_contract plugin_contract(Contract c);
// An ABI 2 problem of `format` (the default: ABI 1's format, fp16 / uint4b8). The loader gives a
// library of ABI 1 the same problem with abi_version 1, or refuses it if the format is another.
tc_problem make_problem(const Shape& shape, Contract contract, const Launch& launch, const DeviceOperands& on,
                        const FixtureFormat& format = {});

}  // namespace tc
