// Expectations (compare/src/expectation.cpp): golden fixtures made by tc::make_fixture give
// expectations whose own output passes every tier, for every distribution the catalogue has; shapes
// that disagree are refused.
#include "tilecheck/compare/expectation.h"

#include <gtest/gtest.h>

#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/report.h"
#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/reference/error.h"

namespace tc {
namespace {

// Every distribution of the catalogue, as tc::make_fixture generates it (specials with NaN and
// Inf, overflow, one-hot probes, exact), passes every tier with its own expected output.
TEST(FixtureExpectation, ExpectedOutputOfEveryDistributionPasses) {
  for (Distribution d : all_distributions()) {
    for (Contract contract : {Contract::marlin, Contract::fp32}) {
      for (int group : {64, -1}) {
        const CaseSpec spec{cat(name(d), "_test"), Shape{16, 256, 256, group}, contract, d, 5};
        const Fixture f = make_fixture(spec);
        const Expectation e = make_expectation(f, make_schedule(spec.shape, choose_config(spec.shape), 3), "memory");
        EXPECT_EQ(e.info.distribution, std::string(name(d)));
        EXPECT_EQ(e.exact_tier(), d == Distribution::exact);
        const Comparison c = compare(e, f.ref.expected);
        EXPECT_TRUE(c.passed()) << spec.id << " " << name(contract) << " group " << group << "\n" << report(e, c);
      }
    }
  }
}

TEST(FixtureExpectation, RejectsAScheduleOfAnotherShape) {
  const CaseSpec spec{"normal_test", Shape{16, 256, 256, 64}, Contract::fp32, Distribution::normal, 5};
  const Fixture f = make_fixture(spec);
  const Shape other{32, 256, 256, 64};
  EXPECT_THROW(make_expectation(f, make_schedule(other, choose_config(other), 3)), Error);
}

TEST(FixtureExpectation, CarriesTheCaseAndItsProvenance) {
  const CaseSpec spec{"normal_test", Shape{16, 256, 256, 64}, Contract::marlin, Distribution::normal, 5};
  const Fixture f = make_fixture(spec);
  const Expectation e = make_expectation(f, make_schedule(spec.shape, choose_config(spec.shape), 3), "here.h5");
  EXPECT_EQ(e.info.case_id, "normal_test");
  EXPECT_EQ(e.info.seed, 5u);
  EXPECT_EQ(e.info.provenance.rfind("here.h5; generator ", 0), 0u) << e.info.provenance;
  EXPECT_EQ(e.contract, Contract::marlin);
  EXPECT_EQ(e.grid.tiles.size(), static_cast<size_t>(e.grid.rows * e.grid.cols));
  EXPECT_EQ(e.bounds.E.rows(), 16);
  EXPECT_EQ(case_info(f, "").provenance.rfind("fixture; generator ", 0), 0u);
}

TEST(MakeExpectation, RejectsInputsThatDisagreeWithTheSchedule) {
  const CaseSpec spec{"normal_test", Shape{16, 256, 256, 64}, Contract::fp32, Distribution::normal, 5};
  const Fixture f = make_fixture(spec);
  const Schedule schedule = make_schedule(spec.shape, choose_config(spec.shape), 3);
  EXPECT_NO_THROW(make_expectation(f.A, f.weights, f.spec.contract, f.ref, schedule));
  EXPECT_THROW(make_expectation(HalfMatrix(f.A.leftCols(128)), f.weights, f.spec.contract, f.ref, schedule), Error);
  ReferenceOutput short_ref = f.ref;
  short_ref.S = F64Matrix::Zero(8, 256);
  EXPECT_THROW(make_expectation(f.A, f.weights, f.spec.contract, short_ref, schedule), Error);
  const Shape other{16, 256, 256, 128};
  EXPECT_THROW(make_expectation(f.A, f.weights, f.spec.contract, make_schedule(other, choose_config(other), 3)), Error);
}

}  // namespace
}  // namespace tc
