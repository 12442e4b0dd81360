// Output poisoning, shared by the GPU harness and the comparator. Before a launch the harness fills
// C, and a guard band around it, with kPoison. After the launch an element of C that still holds it
// was never written (verdict UNWRITTEN), and a guard cell that no longer holds it was written out of
// bounds (verdict GUARD). kPoison is a quiet NaN with a payload (0x25A) that arithmetic never
// produces: NVIDIA hardware and tc::round_to_half emit canonical NaNs (0x7FFF, 0x7E00), and a NaN
// input carries its own payload, so a surviving sentinel cannot be mistaken for a computed result.
// Host code only, no dependencies but the dtype enum: the harness fills C from the host (tilecheck/suite/device_case.h)
// and no device code reads the sentinel.
#pragma once
#include <cstdint>

#include "tilecheck/reference/weight_format.h"

namespace tc {

constexpr std::uint16_t kPoison = 0x7E5A;
// The same for a bf16 output (kPoison read as bf16 is a finite number near 1.7e37): a quiet bf16 NaN
// with payload 0x5A, where hardware emits 0x7FFF and tc::round_to_bf16 0x7FC0.
constexpr std::uint16_t kBf16Poison = 0x7FDA;

constexpr bool is_poison(std::uint16_t bits) { return bits == kPoison; }
// The sentinel for an output of the dtype (tilecheck/reference/weight_format.h).
constexpr std::uint16_t poison(Dtype d) { return d == Dtype::bf16 ? kBf16Poison : kPoison; }

}  // namespace tc
