// A CPU model of a Marlin-style kernel for the served formats (schema v2 fixtures: bf16, zero
// points, uint8b128, act-order), correct under the bounds' model or with one classic bug switched
// on. It walks K in the kernel's order (act-order's perm), each thread block's slice sums its 16-deep
// steps in a random order over 4 warp accumulators with truncating fp32 additions, product by
// product; the slices combine in reduction order with partials in fp32 or in the dtype (as the
// numerics declare; scale-before-reduce scales each slice first), then the epilogue in the dtype.
// Used by tests/compare/format_bounds_test.cpp.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "tilecheck/compare/expectation.h"
#include "tilecheck/fixtures/fixture.h"

namespace tc::format_model {

enum class Fault {
  none,
  zero_point_off_by_one,  // uint4: v = q - (z + 1)
  scale_through_fp16,     // bf16: every scale converted bf16 -> fp16 -> bf16 before use
  uint8_bias_8,           // uint8b128: v = q - 8
  g_idx_wrong_side,       // act-order: kernel row i uses g_idx[i] instead of g_idx[perm[i]]
  act_order_scatter,      // act-order: A's columns scattered by perm (A'[:, perm[i]] = A[:, i]), not gathered
  // Bugs the hints must tell apart (tests/compare/hints_formats_test.cpp):
  zero_point_down_in_group_0,  // uint4: group 0 only, v = q - (z - 1)
  zero_points_ignored,         // uint4 read as uint4b8: v = q - 8
  scale_group_off_by_one,      // grouped: row k scaled by group g(k) + 1 (mod G)
  scale_column_swapped,        // column j scaled by column j ^ 1's scales
};
std::string_view name(Fault f);
bool applies(Fault f, const FixtureFormat& format);  // whether the bug can exist in this format

// A split of K (for kernels whose schedule the bounds do not model): slice n covers 16-row steps
// [cut[n], cut[n + 1]) of the kernel's order; order[s] is the slice combined at reduction step s.
struct Split {
  std::vector<int> cut;
  std::vector<int> order;
};

// The kernel's output for the fixture under `e`'s numerics: Marlin's striped schedule (e.schedule)
// when `random_splits` is false, else for every element a random split of K into at most
// e.max_slices slices combined in a random order. `seed` picks the orders.
HalfMatrix model_output(const Fixture& f, const Expectation& e, Fault fault, bool random_splits, std::uint64_t seed);

}  // namespace tc::format_model
