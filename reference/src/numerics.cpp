#include "tilecheck/reference/numerics.h"

#include "tilecheck/core/error.h"

namespace tc {
namespace {

// One parser for the four enums: `names` in enum order.
template <typename Enum, size_t Count>
Enum parse_enum(std::string_view text, const char* what, const std::string_view (&names)[Count]) {
  for (size_t i = 0; i < Count; ++i)
    if (text == names[i]) return static_cast<Enum>(i);
  std::string expected;
  for (size_t i = 0; i < Count; ++i) expected += cat(i == 0 ? "" : i + 1 == Count ? " or " : ", ", names[i]);
  throw Error(cat("unknown ", what, " '", text, "' (expected ", expected, ")"));
}

constexpr std::string_view kAccumulators[] = {"fp32", "fp16"};
constexpr std::string_view kPartials[] = {"fp16", "fp32"};
constexpr std::string_view kEpilogues[] = {"round-then-scale", "scale-then-round", "scale-before-reduce"};
constexpr std::string_view kSchedules[] = {"model", "unknown"};

}  // namespace

bool operator==(const Numerics& a, const Numerics& b) {
  return a.accumulator == b.accumulator && a.partials == b.partials && a.epilogue == b.epilogue;
}

bool operator==(const KernelNumerics& a, const KernelNumerics& b) {
  return a.numerics == b.numerics && a.schedule == b.schedule && a.min_k_slice == b.min_k_slice;
}

Numerics contract_numerics(Contract c) {
  if (c == Contract::marlin) return {Accumulator::fp32, Partials::fp16, Epilogue::round_then_scale};
  return {Accumulator::fp32, Partials::fp32, Epilogue::scale_then_round};
}

Contract epilogue_contract(Epilogue e) {
  return e == Epilogue::round_then_scale ? Contract::marlin : Contract::fp32;
}

bool exact_under(const Numerics& n, Contract c) {
  if (n.accumulator != Accumulator::fp32) return false;
  if (n.epilogue == Epilogue::scale_before_reduce) return false;  // each slice's scaled sum rounds in fp32
  return c == Contract::marlin || n.partials == Partials::fp32;
}

void require_boundable(const Numerics& n) {
  require(n.accumulator == Accumulator::fp32, "accumulator ", name(n.accumulator),
          " is not supported: tilecheck's bounds assume fp32 accumulation (an fp16 accumulator's worst case, "
          "gamma_K(2^-10) * S, exceeds S from K = 512 on and admits almost anything; docs/numerics.md, "
          "\"Declared numerics\")");
}

KernelNumerics contract_default(Contract c) { return {contract_numerics(c), ScheduleKind::model, 16}; }

std::string_view name(Accumulator a) { return kAccumulators[static_cast<int>(a)]; }
std::string_view name(Partials p) { return kPartials[static_cast<int>(p)]; }
std::string_view name(Epilogue e) { return kEpilogues[static_cast<int>(e)]; }
std::string_view name(ScheduleKind s) { return kSchedules[static_cast<int>(s)]; }

Accumulator parse_accumulator(std::string_view text) { return parse_enum<Accumulator>(text, "accumulator", kAccumulators); }
Partials parse_partials(std::string_view text) { return parse_enum<Partials>(text, "partial-sum precision", kPartials); }
Epilogue parse_epilogue(std::string_view text) { return parse_enum<Epilogue>(text, "epilogue order", kEpilogues); }
ScheduleKind parse_schedule_kind(std::string_view text) { return parse_enum<ScheduleKind>(text, "schedule", kSchedules); }

std::string name(const Numerics& n) {
  return cat(name(n.accumulator), " accumulator, ", name(n.partials), " partials, ", name(n.epilogue));
}

std::string name(const KernelNumerics& k) {
  std::string text = cat(name(k.numerics), "; schedule ", name(k.schedule));
  if (k.schedule == ScheduleKind::unknown) text += cat(", k-slices >= ", k.min_k_slice);
  return text;
}

std::ostream& operator<<(std::ostream& out, const Numerics& n) { return out << name(n); }
std::ostream& operator<<(std::ostream& out, const KernelNumerics& k) { return out << name(k); }

}  // namespace tc
