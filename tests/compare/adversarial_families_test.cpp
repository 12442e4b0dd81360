// The `ties` and `extremes` distributions (fixtures/src/generate_ties.cpp, generate_extremes.cpp;
// docs/numerics.md, "Tie and extreme fixtures"), on every such case of the catalogue:
//   - a correct kernel, emulated with its contract's partial sums stored at the schedule model's slice
//     boundaries (fp16 for marlin, fp32 for fp32) in both reduction orders, at every configuration
//     and grid size of the sweep, gives every element bit for bit;
//   - each classic bug the family is built to separate changes at least one element, and the judge
//     fails it on T0 (bitwise) whatever T1 says; the test prints how many elements and T1's status.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/expectation.h"
#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/fp16.h"
#include "tilecheck/reference/schedule.h"

namespace tc {

// Test names and messages show a case by its id (GoogleTest finds this by argument lookup).
void PrintTo(const CaseSpec& c, std::ostream* os);
void PrintTo(const CaseSpec& c, std::ostream* os) { *os << c.id; }

namespace {

enum class Bug {
  epilogue_toward_zero,     // the final float -> half conversion truncates
  epilogue_ties_away,       // ... rounds ties away from zero
  scale_order_swapped,      // per column: scale then round under marlin, round then scale under fp32
  zero_point_7,             // w^ = (q - 7) s
  signed_nibble,            // the code read as a two's complement int4, no offset: q >= 8 -> q - 16
  low_three_bits,           // the code's top bit lost: w^ = ((q & 7) - 8) s
  subtract_after_scaling,   // grouped: w^ = RN16(RN16(q s) - RN16(8 s)) (two fp16 operations)
  flush_subnormal_scales,   // a subnormal scale read as 0
  flush_subnormal_outputs,  // a subnormal output written as 0
};
constexpr Bug kBugs[] = {Bug::epilogue_toward_zero, Bug::epilogue_ties_away,     Bug::scale_order_swapped,
                         Bug::zero_point_7,         Bug::signed_nibble,          Bug::low_three_bits,
                         Bug::subtract_after_scaling, Bug::flush_subnormal_scales, Bug::flush_subnormal_outputs};

const char* name(Bug b) {
  switch (b) {
    case Bug::epilogue_toward_zero: return "epilogue rounds toward zero";
    case Bug::epilogue_ties_away: return "epilogue rounds ties away";
    case Bug::scale_order_swapped: return "epilogue order swapped";
    case Bug::zero_point_7: return "zero point 7";
    case Bug::signed_nibble: return "code read as signed int4";
    case Bug::low_three_bits: return "code's top bit lost";
    case Bug::subtract_after_scaling: return "zero point subtracted after scaling";
    case Bug::flush_subnormal_scales: return "subnormal scales flushed";
    case Bug::flush_subnormal_outputs: return "subnormal outputs flushed";
  }
  return "?";
}

// The bugs each family must separate (on every case of it; scale order only with per-column scales,
// the subtraction after scaling only with grouped ones, where the scale meets the code).
bool must_catch(Distribution d, Bug b, bool per_column) {
  switch (b) {
    case Bug::epilogue_toward_zero:
    case Bug::epilogue_ties_away: return d == Distribution::ties;
    case Bug::scale_order_swapped: return d == Distribution::ties && per_column;
    case Bug::subtract_after_scaling: return d == Distribution::extremes && !per_column;
    default: return d == Distribution::extremes;
  }
}

double rn16(double x) { return half_to_double(round_to_half(x)); }

// The fp16 value next to h away from zero (h finite, not the largest).
half_bits step_away(half_bits h) { return static_cast<half_bits>(h + 1); }

// Rounds a finite x to fp16 toward zero or with ties away from zero.
half_bits round_directed(double x, Bug mode) {
  const half_bits nearest = round_to_half(x);
  const double v = half_to_double(nearest);
  if (v == x || !std::isfinite(v)) return nearest;
  const bool beyond = std::fabs(v) > std::fabs(x);  // nearest is the value away from zero
  const half_bits toward = beyond ? static_cast<half_bits>(nearest - 1) : nearest;
  const half_bits away = beyond ? nearest : step_away(nearest);
  if (mode == Bug::epilogue_toward_zero) return (toward & 0x7FFF) == 0 ? static_cast<half_bits>(x < 0 ? 0x8000 : 0) : toward;
  const double gap_toward = std::fabs(x - half_to_double(toward)), gap_away = std::fabs(half_to_double(away) - x);
  return gap_toward == gap_away ? away : nearest;
}

bool subnormal(half_bits h) { return (h & 0x7C00) == 0 && (h & 0x03FF) != 0; }

// The weight a kernel with `bug` multiplies A by (grouped: the dequantized weight; per column: the
// code's integer value, the scale coming in the epilogue).
double buggy_weight(int q, half_bits scale, bool per_column, const Bug* bug) {
  int value = q - kZeroPoint;
  if (bug && *bug == Bug::zero_point_7) value = q - 7;
  if (bug && *bug == Bug::signed_nibble) value = q >= 8 ? q - 16 : q;
  if (bug && *bug == Bug::low_three_bits) value = (q & 7) - kZeroPoint;
  if (bug && *bug == Bug::flush_subnormal_scales && subnormal(scale)) scale = 0;
  if (per_column) return value;
  const double s = half_to_double(scale);
  if (bug && *bug == Bug::subtract_after_scaling) return rn16(rn16(q * s) - rn16(kZeroPoint * s));
  return rn16(value * s);
}

// The epilogue; a rounding bug acts where a kernel converts float to half (the accumulator, or
// per column under fp32 the scaled sum), the fp16 multiply after it rounding to nearest.
half_bits epilogue(double acc, half_bits scale_bits, Contract contract, bool per_column, const Bug* bug) {
  const bool directed = bug && (*bug == Bug::epilogue_toward_zero || *bug == Bug::epilogue_ties_away);
  const auto convert = [&](double x) { return directed ? round_directed(x, *bug) : round_to_half(x); };
  half_bits out = 0;
  if (!per_column) {
    out = convert(acc);
  } else {
    if (bug && *bug == Bug::flush_subnormal_scales && subnormal(scale_bits)) scale_bits = 0;
    const double s = half_to_double(scale_bits);
    bool round_first = contract == Contract::marlin;
    if (bug && *bug == Bug::scale_order_swapped) round_first = !round_first;
    out = round_first ? round_to_half(half_to_double(convert(acc)) * s)
                      : convert(static_cast<double>(static_cast<float>(acc * s)));
  }
  if (bug && *bug == Bug::flush_subnormal_outputs && subnormal(out)) out &= 0x8000;
  return out;
}

// The whole output of a kernel that reduces in one order with its contract's partials (schedule
// model's slices of `sms` blocks), with `bug` (or none) in its dequantization or epilogue.
HalfMatrix emulate(const Fixture& f, const Schedule& schedule, bool reversed, const Bug* bug) {
  const Shape& s = f.spec.shape;
  const bool per_column = is_per_column(s.group);
  const bool fp16_partials = f.spec.contract == Contract::marlin;
  HalfMatrix out(s.M, s.N);
  std::vector<double> w(s.K);
  for (int j = 0; j < s.N; ++j) {
    for (int k = 0; k < s.K; ++k)
      w[k] = buggy_weight(f.weights.codes(k, j), f.weights.scales(per_column ? 0 : k / s.group, j), per_column, bug);
    for (int i = 0; i < s.M; ++i) {
      std::vector<Slice> slices = slices_of(schedule, locate(schedule, i, j));
      if (reversed) std::reverse(slices.begin(), slices.end());
      double acc = 0;
      for (std::size_t p = 0; p < slices.size(); ++p) {
        double own = 0;  // exact: the families' sums are exact in fp32 (and double)
        const int k0 = 16 * schedule.config.k_blocks * slices[p].k_tile_begin;
        const int k1 = 16 * schedule.config.k_blocks * slices[p].k_tile_end;
        for (int k = k0; k < k1; ++k) own += half_to_double(f.A(i, k)) * w[k];
        acc = static_cast<float>(acc + own);
        if (p + 1 < slices.size() && fp16_partials) acc = rn16(acc);
      }
      out(i, j) = epilogue(acc, f.weights.scales(0, j), f.spec.contract, per_column, bug);
    }
  }
  return out;
}

long long differing(const HalfMatrix& a, const HalfMatrix& b) {
  long long n = 0;
  for (Eigen::Index e = 0; e < a.size(); ++e) n += a.data()[e] != b.data()[e];
  return n;
}

std::vector<CaseSpec> catalogue_cases() {
  std::vector<CaseSpec> out;
  // fp16-uint4b8 only: the kernel emulation and the bounds are fp16's (the schema v2 formats'
  // extremes cases have neither yet, issue 29).
  for (const CatalogueEntry& e : load_catalogue(default_golden_paths().catalogue()).entries)
    if ((e.spec.distribution == Distribution::ties || e.spec.distribution == Distribution::extremes) &&
        is_v1_format(e.spec.format))
      out.push_back(e.spec);
  return out;
}

class AdversarialFamily : public ::testing::TestWithParam<CaseSpec> {};

TEST_P(AdversarialFamily, CorrectKernelsAreBitwiseAndTheClassicBugsAreNot) {
  const CaseSpec& spec = GetParam();
  const Fixture f = make_fixture(spec);
  const bool per_column = is_per_column(spec.shape.group);
  int cells = 0;
  for (int m_blocks = 1; m_blocks <= 4; ++m_blocks) {
    for (const auto& [n_blocks, k_blocks] : {std::pair{8, 8}, std::pair{16, 4}}) {
      const TileConfig config{m_blocks, n_blocks, k_blocks, group_blocks_for(spec.shape.group)};
      if (spec.shape.N % config.tile_n() != 0 || spec.shape.K % config.tile_k() != 0) continue;
      for (int sms : {1, 3, 7, 33, 132}) {
        const Schedule schedule = make_schedule(spec.shape, config, sms);
        ++cells;
        for (bool reversed : {false, true})
          EXPECT_EQ(differing(emulate(f, schedule, reversed, nullptr), f.ref.expected), 0)
              << name(config) << " sms " << sms << (reversed ? " reversed" : "") << ": a correct kernel is bitwise";
      }
    }
  }
  EXPECT_GT(cells, 0);

  const Schedule schedule = make_schedule(spec.shape, choose_config(spec.shape), 7);
  const Expectation e = make_expectation(f, schedule, "memory");
  ASSERT_TRUE(e.exact_tier()) << e.exact_tier_absent();
  for (Bug bug : kBugs) {
    if (!must_catch(spec.distribution, bug, per_column)) continue;
    const HalfMatrix got = emulate(f, schedule, false, &bug);
    const long long changed = differing(got, f.ref.expected);
    const Comparison c = compare(e, got);
    std::printf("%s: %-36s %6lld of %6lld elements changed; T0 %s, T1 %s\n", spec.id.c_str(), name(bug), changed,
                static_cast<long long>(got.size()), tc::name(c.tier("t0").status), tc::name(c.tier("t1").status));
    EXPECT_GT(changed, 0) << name(bug) << " must change an output";
    EXPECT_EQ(c.tier("t0").status, TierStatus::fail) << name(bug) << " must fail T0";
    EXPECT_FALSE(c.passed());
  }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, AdversarialFamily, ::testing::ValuesIn(catalogue_cases()),
                         [](const ::testing::TestParamInfo<CaseSpec>& p) { return p.param.id; });

// Halfway between its two fp16 neighbours: every y* of a ties case, grouped and per column.
TEST(AdversarialFamily, EveryOutputOfATiesCaseIsATie) {
  for (int group : {64, -1}) {
    const CaseSpec spec{"ties_test", Shape{16, 256, 256, group}, Contract::fp32, Distribution::ties, 7};
    const Fixture f = make_fixture(spec);
    for (Eigen::Index e = 0; e < f.ref.y_exact.size(); ++e) {
      const double y = f.ref.y_exact.data()[e];
      const double toward = half_to_double(round_directed(y, Bug::epilogue_toward_zero));
      const double away = half_to_double(step_away(round_directed(y, Bug::epilogue_toward_zero)));
      EXPECT_EQ(y - toward, away - y) << "group " << group << ", element " << e << ": y* = " << y;
    }
  }
}

}  // namespace
}  // namespace tc
