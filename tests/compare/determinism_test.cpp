// T3, determinism (compare/src/determinism.cpp): repeated outputs bitwise equal, the differing
// elements attributed to tiles, the report, and the race hint's three explanations.
#include "tilecheck/compare/determinism.h"

#include <gtest/gtest.h>

#include "synthetic.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

TEST(Determinism, ReportsDifferingElementsAndTiles) {
  const Expectation e = synthetic_expectation(grid_problem());
  HalfMatrix other = e.ref.expected;
  other(17, 260) ^= 1;
  other(18, 261) ^= 1;
  const Determinism d = check_determinism(e.schedule, {e.ref.expected, e.ref.expected, other, e.ref.expected});
  EXPECT_FALSE(d.passed());
  EXPECT_EQ(d.differing, 2);
  EXPECT_EQ(d.differing_repeats, std::vector<int>{2});
  EXPECT_EQ(d.first, (std::pair<int, int>{17, 260}));
  EXPECT_EQ(d.first_values.size(), 2u);
  EXPECT_EQ(d.tile_differing[e.grid.index(17, 260)], 2);
  const std::string text = determinism_report(e.schedule, d);
  EXPECT_EQ(text.rfind(cat("Nondeterministic: 2 / ", e.M() * e.N()), 0), 0u) << text;
  EXPECT_NE(text.find("[race]"), std::string::npos) << text;
  EXPECT_THROW(check_determinism(e.schedule, {e.ref.expected}), Error);
}

TEST(Determinism, IdenticalRepeatsPassWithAOneLineReport) {
  const Expectation e = synthetic_expectation(grid_problem());
  const Determinism d = check_determinism(e.schedule, {e.ref.expected, e.ref.expected, e.ref.expected});
  EXPECT_TRUE(d.passed());
  EXPECT_TRUE(d.hints.empty());
  EXPECT_EQ(determinism_report(e.schedule, d),
            cat("Deterministic: 0 / 20480 elements (0.000%) differ across 3 repeats [m1n8k8g4 sms 7]\n"));
}

TEST(Determinism, RejectsRepeatsOfAnotherShape) {
  const Expectation e = synthetic_expectation(grid_problem());
  EXPECT_THROW(check_determinism(e.schedule, {e.ref.expected, HalfMatrix::Zero(e.M(), e.N() - 128)}), Error);
}

TEST(Determinism, TheRaceHintNamesWhereTheDifferencesAre) {
  // Differences inside single-slice tiles: with scale groups spanning several k-tiles, the grouped
  // scale prefetch; otherwise a race inside a block.
  for (const bool spanning : {true, false}) {
    const Problem p{{16, 256, 512, 128}, {1, 16, spanning ? 4 : 8, 8}, 1, Contract::fp32};
    const Expectation e = synthetic_expectation(p);
    HalfMatrix other = e.ref.expected;
    other(3, 7) ^= 1;
    const Determinism d = check_determinism(e.schedule, {e.ref.expected, other});
    ASSERT_EQ(d.hints.size(), 1u);
    const std::string& text = d.hints[0].text;
    EXPECT_EQ(text.rfind("different results on repeat (1 elements in 1 tiles) -> a race; ", 0), 0u) << text;
    EXPECT_EQ(text.find("grouped scales spanning 2 k-tiles") != std::string::npos, spanning) << text;
    EXPECT_EQ(text.find("inside a block: a shared-memory race") != std::string::npos, !spanning) << text;
  }
}

TEST(Determinism, RaceOnRepeat) {
  const Expectation e = synthetic_expectation(Problem{{64, 1024, 512, 64}, {1, 8, 8, 4}, 20, Contract::marlin});
  HalfMatrix other = e.ref.expected;
  for (const TileInfo& t : e.grid.tiles)
    if (t.slice_count() > 1) other(t.row0, t.col0) ^= 1;
  const Determinism d = check_determinism(e.schedule, {e.ref.expected, other});
  ASSERT_EQ(d.hints.size(), 1u);
  EXPECT_EQ(d.hints[0].kind, HintKind::race);
  EXPECT_NE(d.hints[0].text.find("only tiles reduced across thread blocks differ"), std::string::npos) << d.hints[0].text;
  HalfMatrix inside = e.ref.expected;
  inside(0, 0) ^= 1;
  inside(17, 900) ^= 1;
  const Determinism d2 = check_determinism(e.schedule, {e.ref.expected, inside, e.ref.expected});
  ASSERT_EQ(d2.hints.size(), 1u);
  EXPECT_EQ(d2.hints[0].kind, HintKind::race);
}

}  // namespace
}  // namespace tc
