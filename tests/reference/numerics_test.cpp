// Declared numerics (tilecheck/reference/numerics.h): the contracts' own, names that parse back,
// which numerics keep the exact tier, and the refusal of an fp16 accumulator.
#include "tilecheck/reference/numerics.h"

#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"

namespace tc {
namespace {

std::string error_of(void (*f)()) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Numerics, EachContractNamesItsNumerics) {
  const Numerics marlin = contract_numerics(Contract::marlin);
  EXPECT_EQ(marlin.accumulator, Accumulator::fp32);
  EXPECT_EQ(marlin.partials, Partials::fp16);
  EXPECT_EQ(marlin.epilogue, Epilogue::round_then_scale);
  const Numerics fp32 = contract_numerics(Contract::fp32);
  EXPECT_EQ(fp32.partials, Partials::fp32);
  EXPECT_EQ(fp32.epilogue, Epilogue::scale_then_round);
  EXPECT_NE(marlin, fp32);
  // The epilogue alone decides which contract's reference is expected.
  EXPECT_EQ(epilogue_contract(marlin.epilogue), Contract::marlin);
  EXPECT_EQ(epilogue_contract(fp32.epilogue), Contract::fp32);
  const KernelNumerics k = contract_default(Contract::marlin);
  EXPECT_EQ(k.numerics, marlin);
  EXPECT_EQ(k.schedule, ScheduleKind::model);
  EXPECT_EQ(k.min_k_slice, 16);
}

TEST(Numerics, NamesParseBackAndUnknownNamesAreRefusedWithTheChoices) {
  for (Accumulator a : {Accumulator::fp32, Accumulator::fp16}) EXPECT_EQ(parse_accumulator(name(a)), a);
  for (Partials p : {Partials::fp16, Partials::fp32}) EXPECT_EQ(parse_partials(name(p)), p);
  for (Epilogue e : {Epilogue::round_then_scale, Epilogue::scale_then_round, Epilogue::scale_before_reduce})
    EXPECT_EQ(parse_epilogue(name(e)), e);
  EXPECT_EQ(name(Epilogue::scale_before_reduce), "scale-before-reduce");
  for (ScheduleKind s : {ScheduleKind::model, ScheduleKind::unknown}) EXPECT_EQ(parse_schedule_kind(name(s)), s);
  try {
    parse_schedule_kind("striped");
    ADD_FAILURE() << "parsed 'striped'";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "unknown schedule 'striped' (expected model or unknown)");
  }
  EXPECT_THROW(parse_epilogue("round_then_scale"), Error);
  EXPECT_THROW(parse_partials(""), Error);
}

TEST(Numerics, ThePrintedDeclarationSaysEverythingTheBoundsUse) {
  const KernelNumerics vllm{{Accumulator::fp32, Partials::fp32, Epilogue::round_then_scale}, ScheduleKind::unknown, 64};
  EXPECT_EQ(name(vllm), "fp32 accumulator, fp32 partials, round-then-scale; schedule unknown, k-slices >= 64");
  std::ostringstream out;
  out << contract_default(Contract::fp32);
  EXPECT_EQ(out.str(), "fp32 accumulator, fp32 partials, scale-then-round; schedule model");
  KernelNumerics other = vllm;
  other.min_k_slice = 128;
  EXPECT_NE(other, vllm);
}

// The exact cases of the fp32 contract hold partial sums that fp16 cannot: fp16 partials lose T0
// there; the marlin contract's exact cases are exact in fp16 too. The epilogue's order does not
// matter, scaling before the reduction does.
TEST(Numerics, TheExactTierNeedsRoundingAtLeastAsFineAsTheContracts) {
  const Numerics vllm{Accumulator::fp32, Partials::fp32, Epilogue::round_then_scale};
  const Numerics fp16_partials{Accumulator::fp32, Partials::fp16, Epilogue::scale_then_round};
  EXPECT_TRUE(exact_under(vllm, Contract::fp32));
  EXPECT_TRUE(exact_under(vllm, Contract::marlin));
  EXPECT_FALSE(exact_under(fp16_partials, Contract::fp32));
  EXPECT_TRUE(exact_under(fp16_partials, Contract::marlin));
  EXPECT_FALSE(exact_under({Accumulator::fp16, Partials::fp32, Epilogue::scale_then_round}, Contract::marlin));
  // Scaling each slice's sum before the reduction rounds it in fp32 however exact the sum is.
  const Numerics scaled_partials{Accumulator::fp32, Partials::fp32, Epilogue::scale_before_reduce};
  EXPECT_FALSE(exact_under(scaled_partials, Contract::fp32));
  EXPECT_FALSE(exact_under(scaled_partials, Contract::marlin));
  EXPECT_EQ(epilogue_contract(Epilogue::scale_before_reduce), Contract::fp32)
      << "its expected output is RN(RN32(y* s))";
}

TEST(Numerics, AnFp16AccumulatorIsRefusedNamingIt) {
  EXPECT_NO_THROW(require_boundable(contract_numerics(Contract::marlin)));
  const std::string message =
      error_of([] { require_boundable({Accumulator::fp16, Partials::fp16, Epilogue::round_then_scale}); });
  EXPECT_NE(message.find("accumulator fp16 is not supported"), std::string::npos) << message;
}

}  // namespace
}  // namespace tc
