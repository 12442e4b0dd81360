// What a kernel's arithmetic is, as the bounds need it (derivation: docs/numerics.md, "Declared
// numerics"): its accumulator, the precision of the partial sums that thread blocks pass to each
// other, and the order of the per-column epilogue; and how it splits K (our model of Marlin's
// striped schedule, or unknown). A kernel library declares them per problem (tc_plugin_numerics,
// tilecheck/plugin/plugin.h); without a declaration each contract names one:
//   marlin: fp32 accumulator, fp16 partials, round-then-scale   out = RN16(RN16(acc) * s)
//   fp32:   fp32 accumulator, fp32 partials, scale-then-round   out = RN16(RN32(acc * s))
// The expected (correctly rounded) output depends only on the epilogue; y* and S on nothing here.
#pragma once
#include <ostream>
#include <string>
#include <string_view>

#include "tilecheck/reference/contract.h"

namespace tc {

enum class Accumulator { fp32, fp16 };
enum class Partials { fp16, fp32 };
// Per-column scales only. scale_before_reduce: each thread block multiplies its fp32 sum by s (in
// fp32) before the reduction between blocks, so the partials hold scaled sums and the output is their
// total rounded once, RN16(sum_j RN32(acc_j * s)) (vLLM's Marlin for 8-bit codes); with one slice it is
// scale_then_round.
enum class Epilogue { round_then_scale, scale_then_round, scale_before_reduce };
enum class ScheduleKind { model, unknown };  // model: Marlin's striped schedule (reference/schedule.h)

struct Numerics {
  Accumulator accumulator = Accumulator::fp32;
  Partials partials = Partials::fp32;
  Epilogue epilogue = Epilogue::scale_then_round;
};
bool operator==(const Numerics& a, const Numerics& b);
inline bool operator!=(const Numerics& a, const Numerics& b) { return !(a == b); }

Numerics contract_numerics(Contract c);
// The contract whose epilogue this is: the reference (tc::reference_gemm) computes the expected
// output under it.
Contract epilogue_contract(Epilogue e);
// Whether every rounding of `n` is at least as fine as the contract's: the `exact` fixtures of a
// contract keep every partial sum exact under its rounding, so only then must the output be bitwise
// equal to the expected one (tier T0).
// scale_before_reduce never is: a slice's scaled sum is rounded to fp32 however exact the sum.
bool exact_under(const Numerics& n, Contract c);

// Throws tc::Error unless the bounds can judge `n`: an fp16 accumulator has no useful bound
// (docs/numerics.md says why), so it is refused rather than judged by a vacuous one.
void require_boundable(const Numerics& n);

// What a kernel declares for a problem: its numerics and its work split. min_k_slice, the
// shallowest range of K one thread block sums (rows, a multiple of 16), bounds the number of slices
// when the schedule is unknown (tc::max_slices_for); 16 (one MMA step) when nothing is known.
struct KernelNumerics {
  Numerics numerics;
  ScheduleKind schedule = ScheduleKind::model;
  int min_k_slice = 16;
};
bool operator==(const KernelNumerics& a, const KernelNumerics& b);
inline bool operator!=(const KernelNumerics& a, const KernelNumerics& b) { return !(a == b); }

// The contract's numerics under Marlin's schedule: how a kernel that declares nothing is judged.
KernelNumerics contract_default(Contract c);

std::string_view name(Accumulator a);   // "fp32" | "fp16"
std::string_view name(Partials p);      // "fp16" | "fp32"
std::string_view name(Epilogue e);      // "round-then-scale" | "scale-then-round" | "scale-before-reduce"
std::string_view name(ScheduleKind s);  // "model" | "unknown"
// Inverses of name(); each throws naming the text and the accepted values.
Accumulator parse_accumulator(std::string_view text);
Partials parse_partials(std::string_view text);
Epilogue parse_epilogue(std::string_view text);
ScheduleKind parse_schedule_kind(std::string_view text);

// "fp32 accumulator, fp16 partials, round-then-scale"
std::string name(const Numerics& n);
// "fp32 accumulator, fp16 partials, round-then-scale; schedule unknown, k-slices >= 64"
std::string name(const KernelNumerics& k);
std::ostream& operator<<(std::ostream& out, const Numerics& n);
std::ostream& operator<<(std::ostream& out, const KernelNumerics& k);

}  // namespace tc
