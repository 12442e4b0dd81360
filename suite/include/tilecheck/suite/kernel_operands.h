// A fixture's operands laid out as the plugin ABI hands them to a kernel (tilecheck/plugin/plugin.h),
// on the host: what DeviceCase uploads. ABI 1's format is the fixture's own packed forms; ABI 2 adds
// 8-bit packed codes (reference/marlin_format_8bit.h), packed zero points (reference/zero_points.h)
// and, under act-order, the sorted g_idx and perm in the kernel's row order.
//   A: (M, K) dtype, original K order   B: (K/16, 2N) int32 4-bit or (K/16, 4N) 8-bit, kernel order
//   scales: (G, N) dtype, permuted      zero_points: (G, N/8) int32 (uint4)   g_idx, perm: (K) int32
#pragma once
#include <vector>

#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/plugin/plugin.h"

namespace tc {

struct KernelOperands {
  Shape shape;
  Contract contract = Contract::marlin;
  FixtureFormat format;
  HalfMatrix A;
  PackedMatrix B;
  HalfMatrix scales;
  PackedMatrix zero_points;  // empty unless the codes are uint4
  std::vector<int> g_idx;    // empty without act-order; sorted
  std::vector<int> perm;     // empty without act-order
};

KernelOperands kernel_operands(const Fixture& f);

// The ABI 2 format of a fixture's: act-order's random and worst permutations are one format to a
// kernel (it reads whatever perm and g_idx it is given).
tc_format plugin_format(const FixtureFormat& f);

}  // namespace tc
