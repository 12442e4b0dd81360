// The bound is checked against emulations of the kernel's arithmetic: it must never be violated
// by fp32 accumulation that truncates in any order (with the schedule's cross-block reductions,
// fp16 partial sums under the marlin contract or as declared), and it must be tight enough that
// accumulating in fp16 instead breaks it.
#include "tilecheck/reference/bound.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include <gtest/gtest.h>

#include "tilecheck/core/error.h"
#include "tilecheck/reference/gemm.h"
#include "common/test_inputs.h"
#include "common/truncating_fp32.h"

namespace tc {
namespace {

using truncating_fp32::rn16;
using truncating_fp32::trunc32;

// One output element the way a Marlin-style kernel may compute it: each slice sums its k-range in
// 16-deep MMA steps taken in a random order, spread over `warp_rows` partial accumulators that are
// then added; the slices are combined in reduction order through fp32 or fp16 partials; then the
// epilogue. Every fp32 addition truncates (the worst case of the model).
half_bits emulate_element(const F64Matrix& a, const F64Matrix& w, int i, int j, half_bits scale, int group,
                          const Numerics& numerics, const std::vector<Slice>& slices, int tile_k,
                          const CounterRng& rng, std::uint64_t counter) {
  const double stored = truncating_fp32::reduce_slices(slices.size(), numerics.partials, [&](size_t n) {
    std::vector<int> steps;
    for (int k = slices[n].k_tile_begin * tile_k; k < slices[n].k_tile_end * tile_k; k += 16) steps.push_back(k);
    for (size_t s = steps.size(); s > 1; --s)
      std::swap(steps[s - 1], steps[rng.integer(counter++, 0, s - 1)]);
    double warps[4] = {0, 0, 0, 0};
    for (size_t s = 0; s < steps.size(); ++s) {
      double acc = warps[s % 4];
      for (int k = steps[s]; k < steps[s] + 16; ++k) acc = trunc32(acc + a(i, k) * w(k, j));
      warps[s % 4] = acc;
    }
    return trunc32(trunc32(warps[0] + warps[1]) + trunc32(warps[2] + warps[3]));
  });
  return truncating_fp32::epilogue(stored, group, half_to_double(scale), numerics.epilogue);
}

// Every element of a case, emulated `trials` times in random orders, must be admitted by the
// schedule-aware bound under `numerics`. Returns how many elements the schedule split into slices.
int check_emulation(const Shape& shape, const TileConfig& config, int sms, const Numerics& numerics, int trials) {
  const HalfMatrix A = test_support::normal_half(shape.M, shape.K, 21, "A");
  const QuantizedWeights q = test_support::normal_weights(shape.K, shape.N, shape.group, 22);
  const ReferenceOutput ref = reference_gemm(A, q, epilogue_contract(numerics.epilogue), GemmPath::exact);
  const Schedule schedule = make_schedule(shape, config, sms);
  const OutputBounds bounds = output_bounds(A, q, ref.y_exact, ref.S, numerics, schedule);
  const F64Matrix a = to_double(A), w = to_double(dequantize(q));
  const CounterRng rng(23, "order");
  int multi_slice = 0;
  for (int i = 0; i < shape.M; ++i) {
    for (int j = 0; j < shape.N; ++j) {
      const std::vector<Slice> slices = slices_of(schedule, locate(schedule, i, j));
      multi_slice += slices.size() > 1;
      for (int trial = 0; trial < trials; ++trial) {
        const half_bits got = emulate_element(a, w, i, j, q.scales(0, j), q.group, numerics, slices, config.tile_k(),
                                              rng, (i * 7919ull + j) * 100000 + trial * 10000);
        const Admissible adm = bounds.at(i, j);
        EXPECT_TRUE(admits(adm, got)) << name(numerics) << " (" << i << ", " << j << ") got " << half_to_double(got)
                                      << " admissible keys [" << adm.key_lo << ", " << adm.key_hi
                                      << "] y*=" << ref.y_exact(i, j) << " E=" << bounds.E(i, j);
        if (!admits(adm, got)) return multi_slice;
      }
    }
  }
  return multi_slice;
}

struct EmulationCase {
  Shape shape;
  TileConfig config;
  int sms;
  Contract contract;
};
void PrintTo(const EmulationCase& c, std::ostream* out) { *out << name(c.config) << " M=" << c.shape.M << " K=" << c.shape.K << " " << name(c.contract) << " sms=" << c.sms; }

class BoundHolds : public ::testing::TestWithParam<EmulationCase> {};

TEST_P(BoundHolds, ForTruncatingFp32AccumulationInRandomOrder) {
  const auto& c = GetParam();
  const int multi_slice = check_emulation(c.shape, c.config, c.sms, contract_numerics(c.contract), 3);
  if (c.sms > 1) {
    EXPECT_GT(multi_slice, 0) << "the case never splits a column across blocks";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Emulation, BoundHolds,
    ::testing::Values(EmulationCase{{8, 256, 1024, 128}, {1, 8, 8, 8}, 1, Contract::fp32},
                      EmulationCase{{8, 256, 1024, 128}, {1, 8, 8, 8}, 7, Contract::marlin},
                      EmulationCase{{17, 256, 2048, -1}, {2, 16, 4, -1}, 5, Contract::marlin},
                      EmulationCase{{17, 256, 2048, -1}, {2, 16, 4, -1}, 5, Contract::fp32},
                      EmulationCase{{5, 256, 4096, 32}, {1, 16, 4, 2}, 16, Contract::marlin},
                      EmulationCase{{33, 128, 768, 64}, {3, 8, 8, 4}, 3, Contract::fp32}),
    [](const auto& test_info) {
      const auto& p = test_info.param;
      return name(p.config) + "_m" + std::to_string(p.shape.M) + "k" + std::to_string(p.shape.K) +
             "_" + std::string(name(p.contract)) + "_sms" + std::to_string(p.sms);
    });

// Numerics a kernel may declare beyond the two contracts': fp32 partials with round-then-scale
// (vLLM-like) and fp16 partials with scale-then-round, on split per-column and grouped schedules.
TEST(BoundHolds, ForDeclaredNumericsThatAreNoContracts) {
  const Numerics vllm{Accumulator::fp32, Partials::fp32, Epilogue::round_then_scale};
  const Numerics fp16_scale_first{Accumulator::fp32, Partials::fp16, Epilogue::scale_then_round};
  for (const Numerics& n : {vllm, fp16_scale_first}) {
    EXPECT_GT(check_emulation({17, 256, 2048, -1}, {2, 16, 4, -1}, 5, n, 1), 0);
    EXPECT_GT(check_emulation({8, 256, 1024, 128}, {1, 8, 8, 8}, 7, n, 2), 0);
  }
}

// The partial precision sets E, the epilogue order the admissible set around it, each alone.
TEST(OutputBounds, DeclaredNumericsTakeThePartialsAndTheEpilogueSeparately) {
  const Shape shape{5, 256, 1024, -1};
  const HalfMatrix A = test_support::normal_half(shape.M, shape.K, 61, "A");
  const QuantizedWeights q = test_support::normal_weights(shape.K, shape.N, shape.group, 62);
  const Schedule schedule = make_schedule(shape, {1, 16, 4, -1}, 7);
  const ReferenceOutput ref = reference_gemm(A, q, Contract::marlin, GemmPath::exact);
  const Numerics vllm{Accumulator::fp32, Partials::fp32, Epilogue::round_then_scale};
  const Numerics fp16_scale_first{Accumulator::fp32, Partials::fp16, Epilogue::scale_then_round};
  const OutputBounds b_vllm = output_bounds(A, q, ref.y_exact, ref.S, vllm, schedule);
  const OutputBounds b_fp32 = output_bounds(A, q, ref.y_exact, ref.S, Contract::fp32, schedule);
  const OutputBounds b_marlin = output_bounds(A, q, ref.y_exact, ref.S, Contract::marlin, schedule);
  const OutputBounds b_mixed = output_bounds(A, q, ref.y_exact, ref.S, fp16_scale_first, schedule);
  int narrower = 0, other_epilogue = 0;
  for (int i = 0; i < shape.M; ++i) {
    for (int j = 0; j < shape.N; ++j) {
      ASSERT_EQ(b_vllm.E(i, j), b_fp32.E(i, j));
      ASSERT_EQ(b_mixed.E(i, j), b_marlin.E(i, j));
      const Admissible v = b_vllm.at(i, j), m = b_marlin.at(i, j), f = b_fp32.at(i, j);
      const Admissible same = admissible_output(ref.y_exact(i, j), b_fp32.E(i, j), q.scales(0, j), q.group,
                                                Epilogue::round_then_scale);
      ASSERT_EQ(v.key_lo, same.key_lo);
      ASSERT_EQ(v.key_hi, same.key_hi);
      ASSERT_TRUE(m.key_lo <= v.key_lo && v.key_hi <= m.key_hi) << "fp32 partials admit more than fp16 ones";
      narrower += m.key_hi - m.key_lo > v.key_hi - v.key_lo;
      other_epilogue += v.key_lo != f.key_lo || v.key_hi != f.key_hi;
    }
  }
  EXPECT_GT(narrower, 0) << "dropping the fp16 partials never narrowed the admissible set";
  EXPECT_GT(other_epilogue, 0) << "round-then-scale never changed the admissible set";
  const Numerics fp16_acc{Accumulator::fp16, Partials::fp32, Epilogue::scale_then_round};
  EXPECT_THROW(output_bounds(A, q, ref.y_exact, ref.S, fp16_acc, schedule), Error);
  EXPECT_THROW(output_bounds_any_schedule(ref.y_exact, ref.S, q.scales, fp16_acc, shape, 8), Error);
}

// The same data accumulated in fp16 (every addition rounded to binary16) must fail the bound:
// otherwise the bound could not tell fp32 accumulation from fp16.
TEST(BoundIsTight, Fp16AccumulationViolatesItForDeepK) {
  // The deterministic bound grows like K^2 (gamma_K * S), fp16 rounding error like K, so the share
  // of violations falls with depth: measured 2026-11-30, K=1024: 40%, K=4096: 3.7%.
  for (auto [K, min_fraction] : {std::pair{1024, 0.10}, std::pair{4096, 0.01}}) {
    const Shape shape{16, 256, K, 128};
    const HalfMatrix A = test_support::normal_half(shape.M, K, 31, "A");
    const QuantizedWeights q = test_support::normal_weights(K, shape.N, shape.group, 32);
    const ReferenceOutput ref = reference_gemm(A, q, Contract::fp32, GemmPath::exact);
    const Schedule schedule = make_schedule(shape, {1, 8, 8, 8}, 1);
    const OutputBounds bounds = output_bounds(A, q, ref.y_exact, ref.S, Contract::fp32, schedule);
    const F64Matrix a = to_double(A), w = to_double(dequantize(q));
    int violations = 0;
    for (int i = 0; i < shape.M; ++i) {
      for (int j = 0; j < shape.N; ++j) {
        double acc = 0;
        for (int k = 0; k < K; ++k) acc = rn16(acc + a(i, k) * w(k, j));
        violations += !admits(bounds.at(i, j), round_to_half(acc));
      }
    }
    const double fraction = double(violations) / (shape.M * shape.N);
    std::printf("K=%d: fp16 accumulation violates the bound in %.1f%% of outputs\n", K, 100 * fraction);
    EXPECT_GT(fraction, min_fraction) << "K=" << K << ": only " << violations << " violations";
  }
}

TEST(Admissible, ExactSumsAdmitOnlyTheirRoundingAndSpecialsFollowTheRules) {
  const Admissible one = admissible_output(1.0, 0.0, 0, 128, Contract::fp32);
  EXPECT_TRUE(admits(one, round_to_half(1.0)));
  EXPECT_FALSE(admits(one, 0x3C01));
  EXPECT_FALSE(admits(one, kHalfCanonicalNan));
  const Admissible zero = admissible_output(0.0, 0.0, 0, 128, Contract::fp32);
  EXPECT_TRUE(admits(zero, 0x8000));  // -0 equals +0
  const Admissible nan = admissible_output(std::nan(""), 0.0, 0, 128, Contract::fp32);
  EXPECT_TRUE(admits(nan, 0xFE01));
  EXPECT_FALSE(admits(nan, 0x0000));
  const Admissible inf = admissible_output(INFINITY, 0.0, 0, 128, Contract::fp32);
  EXPECT_TRUE(admits(inf, kHalfPosInf));
  EXPECT_FALSE(admits(inf, 0x7BFF));
  // Straddling the overflow threshold admits both 65504 and +Inf.
  const Admissible edge = admissible_output(65510.0, 20.0, 0, 128, Contract::fp32);
  EXPECT_TRUE(admits(edge, 0x7BFF));
  EXPECT_TRUE(admits(edge, kHalfPosInf));
  // Per-column marlin: RN16(acc) first, so 70000 * 0.001 overflows; fp32 does not.
  const half_bits s = round_to_half(0.001);
  EXPECT_TRUE(admits(admissible_output(70000.0, 0.0, s, -1, Contract::marlin), kHalfPosInf));
  EXPECT_FALSE(admits(admissible_output(70000.0, 0.0, s, -1, Contract::fp32), kHalfPosInf));
  // A negative scale flips the interval.
  const Admissible flipped = admissible_output(10.0, 1.0, round_to_half(-2.0), -1, Contract::fp32);
  EXPECT_TRUE(admits(flipped, round_to_half(-20.0)));
  EXPECT_TRUE(admits(flipped, round_to_half(-21.5)));
  EXPECT_FALSE(admits(flipped, round_to_half(20.0)));
}

// The marlin allowance must charge one fp16 rounding per stored partial, each of the magnitude of
// the sum from that slice's first k-tile to the end of K: recomputed here by brute force.
TEST(OutputBounds, MarlinChargesEachStoredPartialItsSuffixMagnitude) {
  const Shape shape{3, 128, 1024, 128};
  const HalfMatrix A = test_support::normal_half(shape.M, shape.K, 41, "A");
  const QuantizedWeights q = test_support::normal_weights(shape.K, shape.N, shape.group, 42);
  const ReferenceOutput ref = reference_gemm(A, q, Contract::marlin, GemmPath::exact);
  const Schedule schedule = make_schedule(shape, {1, 8, 8, 8}, 5);
  const OutputBounds bounds = output_bounds(A, q, ref.y_exact, ref.S, Contract::marlin, schedule);
  const F64Matrix a = to_double(A), w = to_double(dequantize(q));
  int checked = 0;
  for (int i = 0; i < shape.M; ++i) {
    for (int j = 0; j < shape.N; ++j) {
      const std::vector<Slice> slices = slices_of(schedule, locate(schedule, i, j));
      std::vector<double> partial_S;
      for (size_t n = 0; n + 1 < slices.size(); ++n) {
        double sum = 0;
        for (int k = slices[n].k_tile_begin * 128; k < shape.K; ++k) sum += std::fabs(a(i, k) * w(k, j));
        partial_S.push_back(sum);
      }
      const double E = error_bound(ref.S(i, j), shape.K, static_cast<int>(slices.size()) - 1, partial_S);
      ASSERT_NEAR(bounds.E(i, j), E, 1e-12 * E) << i << "," << j;
      checked += slices.size() > 2;
    }
  }
  EXPECT_GT(checked, 0) << "no element had two stored partials";
}

// Above the work limit each stored partial is charged the element's whole S: never tighter than
// the precise bound, and computed without the partial-sum GEMMs.
TEST(OutputBounds, LargeProblemsChargeEachPartialTheWholeS) {
  const Shape shape{5, 256, 1024, -1};
  const HalfMatrix A = test_support::normal_half(shape.M, shape.K, 51, "A");
  const QuantizedWeights q = test_support::normal_weights(shape.K, shape.N, shape.group, 52);
  const ReferenceOutput ref = reference_gemm(A, q, Contract::marlin, GemmPath::exact);
  const Schedule schedule = make_schedule(shape, {1, 16, 4, -1}, 7);
  const OutputBounds precise = output_bounds(A, q, ref.y_exact, ref.S, Contract::marlin, schedule);
  const OutputBounds blanket = output_bounds(A, q, ref.y_exact, ref.S, Contract::marlin, schedule, 0.0);
  int looser = 0;
  for (int i = 0; i < shape.M; ++i) {
    for (int j = 0; j < shape.N; ++j) {
      const int count = static_cast<int>(slices_of(schedule, locate(schedule, i, j)).size());
      const double expected = error_bound(ref.S(i, j), shape.K, count - 1, std::vector<double>(count - 1, ref.S(i, j)));
      ASSERT_DOUBLE_EQ(blanket.E(i, j), expected) << i << "," << j;
      ASSERT_GE(blanket.E(i, j), precise.E(i, j)) << i << "," << j;
      looser += blanket.E(i, j) > precise.E(i, j);
    }
  }
  EXPECT_GT(looser, 0) << "no element had a stored partial";
}

TEST(Allowance, GrowsWithDepthAndWithFp16Partials) {
  EXPECT_DOUBLE_EQ(gamma(1, 0.5), 1.0);
  EXPECT_TRUE(std::isinf(gamma(2, 0.5)));
  const double base = error_bound(100.0, 4096, 0, {});
  EXPECT_NEAR(base, 4096 * 0x1p-23 * 100, 1e-3 * base);  // gamma_n(u) = nu / (1 - nu)
  EXPECT_GT(error_bound(100.0, 4096, 2, {50.0, 80.0}), base + 0x1p-11 * 130);
}

}  // namespace
}  // namespace tc
