// The fp16_reduction hint (compare/src/hints_reduction.cpp): the cross-block reduction replayed in
// fp16 explains the two reduction-precision bugs bit for bit and names which (on the kernel model,
// and on the slices family, where these bugs show), and stays silent for other bugs.
#include "tilecheck/compare/hints.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "hint_checks.h"
#include "synthetic.h"
#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/fp16.h"
#include "tilecheck/reference/numerics.h"
#include "tilecheck/reference/schedule.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

constexpr const char* kPartials = "the partial sums stored in fp16";
constexpr const char* kAdds = "rounded to fp16 before it adds the partial it reads";

Comparison judged(Contract contract, int group, const Faults& f) {
  const Expectation e = synthetic_expectation(grid_problem(contract, group));
  return compare(e, model_kernel(e, f));
}

void expect_named(const Comparison& c, const char* words, const std::string& where) {
  const Hint* h = find(c.hints, HintKind::fp16_reduction);
  ASSERT_NE(h, nullptr) << where << ": " << kinds(c.hints);
  EXPECT_NE(h->text.find(words), std::string::npos) << where << ": " << h->text;
  EXPECT_NE(h->text.find("tile(s) that several blocks sum (e.g. tile ("), std::string::npos) << h->text;
}

// Under the fp32 contract both bugs fail the bound on the model's grid problem.
TEST(Fp16Reduction, NamesEachBugOnTheKernelModel) {
  Faults partials;
  partials.fp16_reduction = 1;
  expect_named(judged(Contract::fp32, -1, partials), kPartials, "fp16 partials, per column");
  Faults adds;
  adds.fp16_reduction = 2;
  for (int group : {64, -1})
    expect_named(judged(Contract::fp32, group, adds), kAdds, "fp16 adds, group " + std::to_string(group));
}

// A kernel whose blocks each round their own sum to fp16 before adding the partial they read (marlin
// contract: fp16 partials), on the schedule model's slices; slice sums exact in double.
HalfMatrix fp16_adds(const Fixture& f, const Schedule& schedule) {
  const Shape& shape = f.spec.shape;
  const bool per_column = is_per_column(shape.group);
  const int kb = schedule.config.k_blocks;
  HalfMatrix got(shape.M, shape.N);
  for (int i = 0; i < shape.M; ++i)
    for (int j = 0; j < shape.N; ++j) {
      double partial = 0;
      const std::vector<Slice> slices = slices_of(schedule, locate(schedule, i, j));
      for (std::size_t p = 0; p < slices.size(); ++p) {
        double own = 0;
        for (int k = 16 * kb * slices[p].k_tile_begin; k < 16 * kb * slices[p].k_tile_end; ++k)
          own += half_to_double(f.A(i, k)) *
                 half_to_double(dequantized_weight(f.weights.codes(k, j),
                                                   f.weights.scales(per_column ? 0 : k / shape.group, j), shape.group));
        const double acc = p == 0 ? own : half_to_double(round_to_half(own)) + partial;
        partial = p + 1 < slices.size() ? half_to_double(round_to_half(acc)) : acc;
      }
      const half_bits s = f.weights.scales(0, j);
      got(i, j) = epilogue(partial, partial * half_to_double(s), s, shape.group, Contract::marlin);
    }
  return got;
}

// The slices family (docs/numerics.md) keeps the stored partials exact, so a kernel that adds in fp16
// fails T0 there: upstream's u12 on the H200. Emulated with exact slice sums.
TEST(Fp16Reduction, NamesFp16AddsOnTheSlicesFamily) {
  int cases = 0;
  for (const CatalogueEntry& entry : load_catalogue(default_golden_paths().catalogue()).entries) {
    const CaseSpec& spec = entry.spec;
    if (spec.distribution != Distribution::slices || spec.contract != Contract::marlin ||
        entry.storage != Storage::committed)
      continue;
    const Fixture f = make_fixture(spec);
    int judged_cells = 0;
    for (int m_blocks = 1; m_blocks <= 4 && judged_cells < 3; ++m_blocks)
      for (const auto& [n_blocks, k_blocks] : {std::pair{8, 8}, std::pair{16, 4}})
        for (int sms : {3, 7, 132}) {
          const TileConfig config{m_blocks, n_blocks, k_blocks, group_blocks_for(spec.shape.group)};
          if (judged_cells >= 3 || spec.shape.N % config.tile_n() != 0 || spec.shape.K % config.tile_k() != 0)
            continue;
          const Schedule schedule = make_schedule(spec.shape, config, sms);
          const HalfMatrix got = fp16_adds(f, schedule);
          if (got == f.ref.expected) continue;  // no element whose block sum rounds (e.g. one slice a tile)
          const Comparison c = compare(make_expectation(f, schedule, "memory"), got);
          const std::string where = spec.id + " " + name(config) + " sms " + std::to_string(sms);
          ASSERT_EQ(c.tier("t0").status, TierStatus::fail) << where;
          expect_named(c, kAdds, where);
          ++judged_cells;
        }
    EXPECT_GE(judged_cells, 1) << spec.id << ": the family separates the fp16-add reduction";
    ++cases;
  }
  EXPECT_GE(cases, 2) << "the committed slices cases of the marlin contract";
}

TEST(Fp16Reduction, IsSilentForOtherBugs) {
  for (Contract contract : {Contract::marlin, Contract::fp32})
    for (int group : {64, -1}) {
      const std::string where = std::string(name(contract)) + " group " + std::to_string(group);
      Faults accumulation;
      accumulation.fp16_accumulation = true;
      EXPECT_NO_HINT(judged(contract, group, accumulation), HintKind::fp16_reduction) << where;
      Faults drop;
      drop.drop_first_step_of = 3;
      EXPECT_NO_HINT(judged(contract, group, drop), HintKind::fp16_reduction) << where;
      Faults rz;
      rz.epilogue_toward_zero = true;
      EXPECT_NO_HINT(judged(contract, group, rz), HintKind::fp16_reduction) << where;
    }
}

}  // namespace
}  // namespace tc
