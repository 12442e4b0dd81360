// The comparator on synthetic outputs: the contract's own expected output and a correct kernel model
// pass every tier; each injected fault gets the right verdict counts and location.
#include "tilecheck/compare/compare.h"

#include <cstdio>

#include <omp.h>

#include <gtest/gtest.h>

#include "synthetic.h"
#include "tilecheck/compare/determinism.h"
#include "tilecheck/core/error.h"
#include "tilecheck/compare/poison.h"
#include "tilecheck/compare/report.h"
#include "tilecheck/fixtures/fixture.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

template <typename T>
Faults faults(T Faults::*field, T value) {
  Faults f;
  f.*field = value;
  return f;
}

class CleanOutputs : public ::testing::TestWithParam<Problem> {};

TEST_P(CleanOutputs, ExpectedOutputPassesEveryTier) {
  const Expectation e = synthetic_expectation(GetParam());
  const Comparison c = compare(e, e.ref.expected);
  EXPECT_TRUE(c.passed()) << report(e, c);
  EXPECT_EQ(c.counts.mismatched(), 0);
  EXPECT_EQ(c.counts.not_exact, 0);
  EXPECT_EQ(c.tier("t0").status, e.exact_tier() ? TierStatus::pass : TierStatus::not_applicable);
  EXPECT_EQ(c.tier("t1").status, TierStatus::pass);
  EXPECT_EQ(c.tier("t2").status, e.statistics_tier_absent().empty() ? TierStatus::pass : TierStatus::not_applicable)
      << c.tier("t2").detail;
  EXPECT_EQ(c.stats.bias, 0.0);
  EXPECT_EQ(c.stats.rms, 0.0);
  EXPECT_EQ(c.histogram[0], c.counts.elements - c.not_comparable);
  EXPECT_TRUE(c.hints.empty());
  EXPECT_TRUE(check_determinism(e.schedule, {e.ref.expected, e.ref.expected, e.ref.expected}).passed());
  EXPECT_EQ(report(e, c).rfind(cat("Mismatched 0 / ", e.M() * e.N(), " (0.000%) [bound=0 nonfinite=0 unwritten=0 guard=0]"), 0), 0u);
}

TEST_P(CleanOutputs, CorrectKernelModelPassesEveryTier) {
  const Expectation e = synthetic_expectation(GetParam());
  const Comparison c = compare(e, model_kernel(e));
  EXPECT_TRUE(c.passed()) << report(e, c);
  EXPECT_EQ(c.tier("t1").status, TierStatus::pass);
  EXPECT_NE(c.tier("t2").status, TierStatus::fail) << c.tier("t2").detail;
  if (e.exact_tier()) {
    EXPECT_EQ(c.tier("t0").status, TierStatus::pass) << report(e, c);
  }
  std::printf("%s: %s; not exact %lld\n", e.info.case_id.c_str(), c.tier("t2").detail.c_str(), c.counts.not_exact);
}

INSTANTIATE_TEST_SUITE_P(
    Synthetic, CleanOutputs,
    ::testing::Values(Problem{{16, 256, 1024, 128}, {1, 8, 8, 8}, 1, Contract::fp32},
                      Problem{{16, 256, 1024, 128}, {1, 8, 8, 8}, 7, Contract::marlin},
                      Problem{{17, 512, 512, 64}, {2, 16, 4, 4}, 5, Contract::fp32},
                      Problem{{33, 256, 768, -1}, {3, 16, 4, -1}, 6, Contract::marlin},
                      Problem{{40, 256, 768, -1}, {2, 16, 4, -1}, 3, Contract::fp32},
                      Problem{{8, 512, 4096, 32}, {1, 8, 8, 2}, 9, Contract::marlin},
                      Problem{{24, 256, 128, 64}, {2, 8, 8, 4}, 2, Contract::marlin, "exact"},
                      Problem{{20, 256, 128, -1}, {2, 16, 4, -1}, 4, Contract::marlin, "exact"}),
    [](const auto& test) { return synthetic::name(test.param); });

TEST(InjectedFaults, SingleBitFlipIsOneFailureAtItsPlace) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  got(21, 300) ^= 0x1000;  // exponent bit
  const Comparison c = compare(e, got);
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.counts.bound, 1);
  EXPECT_EQ(c.counts.mismatched(), 1);
  ASSERT_FALSE(c.worst.empty());
  EXPECT_EQ(c.worst.front(), (std::pair<int, int>{21, 300}));
  const size_t tile = e.grid.index(21, 300);
  EXPECT_EQ(c.tiles[tile].worst, Mark::fail);
  for (size_t t = 0; t < c.tiles.size(); ++t)
    if (t != tile) {
      EXPECT_LT(c.tiles[t].worst, Mark::fail) << t;
    }
}

TEST(InjectedFaults, ZeroedTileFailsThatTileOnly) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  const TileInfo& t = e.grid.tiles[e.grid.cols + 2];  // tile (1, 2)
  got.block(t.row0, t.col0, t.rows, t.cols).setZero();
  const Comparison c = compare(e, got);
  EXPECT_GT(c.counts.bound, t.rows * t.cols * 9 / 10);
  EXPECT_EQ(c.counts.bound, c.counts.mismatched());
  for (size_t i = 0; i < c.tiles.size(); ++i)
    EXPECT_EQ(c.tiles[i].worst == Mark::fail, int(i) == e.grid.cols + 2) << i;
}

TEST(InjectedFaults, NanAndInfAreNonFinite) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  got(3, 4) = kHalfCanonicalNan;
  got(30, 200) = kHalfNegInf;
  const Comparison c = compare(e, got);
  EXPECT_EQ(c.counts.nonfinite, 2);
  EXPECT_EQ(c.counts.mismatched(), 2);
  EXPECT_EQ(c.not_comparable, 2);
  EXPECT_EQ(c.tiles[e.grid.index(3, 4)].worst, Mark::nonfinite);
  EXPECT_EQ(c.tiles[e.grid.index(30, 200)].worst, Mark::nonfinite);
  EXPECT_EQ(c.worst.front(), (std::pair<int, int>{3, 4})) << "non-finite ranks above in-bound, ties row-major";
}

TEST(InjectedFaults, PoisonedTileIsUnwritten) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix got = e.ref.expected;
  const TileInfo& t = e.grid.tiles[3];  // tile (0, 3)
  got.block(t.row0, t.col0, t.rows, t.cols).setConstant(kPoison);
  const Comparison c = compare(e, got);
  EXPECT_EQ(c.counts.unwritten, t.rows * t.cols);
  EXPECT_EQ(c.counts.mismatched(), c.counts.unwritten);
  EXPECT_EQ(c.tiles[3].worst, Mark::unwritten);
  EXPECT_EQ(c.tiles[3].verdicts[int(Verdict::unwritten)], t.rows * t.cols);
}

TEST(InjectedFaults, GuardWriteIsCountedAndMapped) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix buffer = HalfMatrix::Constant(e.M() + 2, e.N() + 2, kPoison);
  buffer.block(1, 1, e.M(), e.N()) = e.ref.expected;
  buffer(e.M() + 1, 1 + 130) = 0x3C00;  // the row below the output, column 130
  const Comparison c = compare(e, interior(buffer, 1, 1, 1, 1), guard_band(buffer, 1, 1, 1, 1));
  EXPECT_FALSE(c.passed());
  EXPECT_EQ(c.counts.guard, 1);
  EXPECT_EQ(c.counts.mismatched(), 1);
  EXPECT_EQ(c.guard.cells, 2 * (e.M() + 2) + 2 * e.N());
  EXPECT_EQ(c.tiles[e.grid.index(e.M() - 1, 130)].worst, Mark::guard);
  EXPECT_NE(report(e, c).find("guard=1]"), std::string::npos);
}

TEST(InjectedFaults, DroppedChunkFailsOnlyWhereTheBlockWorked) {
  const Expectation e = synthetic_expectation(grid_problem());
  const int block = 3;
  const Comparison c = compare(e, model_kernel(e, faults(&Faults::drop_first_step_of, block)));
  EXPECT_GT(c.counts.bound, 0);
  for (size_t t = 0; t < c.tiles.size(); ++t)
    if (!e.grid.tiles[t].involves(block)) {
      EXPECT_LT(c.tiles[t].worst, Mark::fail) << "tile " << t;
    }
}

TEST(InjectedFaults, Fp16AccumulationFailsTheBound) {
  // At moderate depth the bound (gamma_K * S) is tight enough for T1 (docs/numerics.md: at K=4096 only
  // T2's RMS notices, and with many slices nothing does).
  const Expectation e = synthetic_expectation(Problem{{16, 512, 512, 128}, {1, 8, 8, 8}, 1, Contract::fp32});
  const Comparison c = compare(e, model_kernel(e, faults(&Faults::fp16_accumulation, true)));
  EXPECT_GT(c.counts.bound, c.counts.elements / 10) << report(e, c);
}

TEST(InjectedFaults, TruncatingEpilogueFailsTheExactAndStatisticsTiers) {
  // Deep K: the bound is tens of ULPs wide, so truncation passes T1 and only the statistics see it.
  const Expectation e = synthetic_expectation(Problem{{16, 1024, 4096, 128}, {1, 8, 8, 8}, 1, Contract::fp32});
  const Comparison c = compare(e, model_kernel(e, faults(&Faults::epilogue_toward_zero, true)));
  EXPECT_EQ(c.tier("t2").status, TierStatus::fail) << c.tier("t2").detail;
  EXPECT_LT(c.stats.bias_toward_zero, -0.4);
  EXPECT_NEAR(c.stats.bias, 0.0, 0.1) << "symmetric data: no up/down bias";
  const Expectation x = synthetic_expectation(Problem{{24, 256, 128, 64}, {2, 8, 8, 4}, 2, Contract::marlin, "exact"});
  HalfMatrix got = x.ref.expected;
  got(5, 6) = half_from_key(half_key(got(5, 6)) + 1);
  const Comparison cx = compare(x, got);
  EXPECT_EQ(cx.tier("t0").status, TierStatus::fail);
  EXPECT_EQ(cx.counts.not_exact, 1);
}

// y* NaN where a stored fp16 partial may overflow (specials, per-column marlin, several slices): NaN
// in every summation order, so a number there is a mismatch (docs/compare.md); it used to pass as
// "unbounded".
TEST(SpecialValues, NanExpectedWhereAPartialMayOverflowAcceptsOnlyNan) {
  const Fixture f = make_fixture(CaseSpec{"specials_k1024", Shape{16, 256, 1024, kPerColumn}, Contract::marlin,
                                          Distribution::specials, 5});
  const Expectation e = make_expectation(f, make_schedule(f.spec.shape, choose_config(f.spec.shape), 8));
  HalfMatrix got = f.ref.expected;
  long long changed = 0;
  for (int i = 0; i < e.M(); ++i)
    for (int j = 0; j < e.N(); ++j) {
      const Admissible adm = e.bounds.at(i, j);
      if (!(adm.nan_expected && adm.unbounded)) continue;
      got(i, j) = round_to_half(1.0);
      ++changed;
    }
  ASSERT_GT(changed, 0) << "the case must have NaN elements whose partial sums may overflow";
  EXPECT_TRUE(compare(e, f.ref.expected).passed());
  const Comparison c = compare(e, got);
  EXPECT_EQ(c.counts.bound, changed) << report(e, c);
  EXPECT_FALSE(c.passed());
}

TEST(Histogram, BinsMatchTheirLabels) {
  const std::pair<int, int> cases[] = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 3}, {5, 4}, {8, 4},
                                       {9, 5}, {16, 5}, {17, 6}, {64, 6}, {65, 7}, {31744, 7}};
  for (auto [ulp, bin] : cases) EXPECT_EQ(histogram_bin(ulp), bin) << ulp;
  EXPECT_STREQ(histogram_label(3), "3-4");
  EXPECT_STREQ(histogram_label(7), ">64");
}

TEST(Compare, ResultsDoNotDependOnTheThreadCount) {
  const Expectation e = synthetic_expectation(Problem{{40, 512, 512, 64}, {1, 8, 8, 4}, 7, Contract::marlin});
  HalfMatrix got = model_kernel(e);
  for (int j = 0; j < 512; j += 3) got(7, j) = half_from_key(half_key(got(7, j)) + j % 7);
  const int threads = omp_get_max_threads();
  std::vector<Comparison> runs;
  for (int n : {1, 2, 3}) {
    omp_set_num_threads(n);
    runs.push_back(compare(e, got));
  }
  omp_set_num_threads(threads);
  for (const Comparison& c : runs) {
    EXPECT_EQ(c.verdict, runs[0].verdict);
    EXPECT_EQ(c.ulp, runs[0].ulp);
    EXPECT_EQ(c.counts.mismatched(), runs[0].counts.mismatched());
    EXPECT_EQ(c.histogram, runs[0].histogram);
    EXPECT_EQ(c.worst, runs[0].worst);
    EXPECT_EQ(c.stats.rms, runs[0].stats.rms) << "bitwise: T2 sums are kept in row order";
    EXPECT_EQ(c.stats.bias, runs[0].stats.bias);
    for (size_t t = 0; t < c.tiles.size(); ++t) {
      EXPECT_EQ(c.tiles[t].verdicts, runs[0].tiles[t].verdicts);
      EXPECT_EQ(c.tiles[t].max_utilization, runs[0].tiles[t].max_utilization);
    }
  }
}

TEST(Compare, RejectsAnOutputOfTheWrongShape) {
  const Expectation e = synthetic_expectation(grid_problem());
  EXPECT_THROW(compare(e, HalfMatrix::Zero(e.M(), e.N() - 64)), Error);
}

}  // namespace
}  // namespace tc
