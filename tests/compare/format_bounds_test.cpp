// The bounds of the served formats (docs/numerics.md, "Bounds for the served formats") judged end
// to end through the comparator on every committed schema v2 case: a CPU kernel that obeys the
// model (truncating fp32 additions in random orders, Marlin's striped schedule at several grid
// sizes or random splits of K, partials in fp32 or in the dtype, every epilogue, in the dtype)
// never fails T1; the classic bugs of each format (a zero point off by one, a bf16 scale
// converted through fp16, uint8's bias 8 instead of 128, g_idx read in the wrong order, A's columns
// scattered by perm instead of gathered) fail it.
#include <cctype>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "format_model.h"
#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/report.h"
#include "tilecheck/core/error.h"
#include "tilecheck/fixtures/golden.h"

namespace tc {
namespace {

using format_model::Fault;

std::vector<std::string> committed_format_cases() {
  std::vector<std::string> ids;
  for (const CatalogueEntry& e : load_catalogue(default_golden_paths().catalogue()).entries)
    if (e.storage == Storage::committed && !is_v1_format(e.spec.format)) ids.push_back(e.spec.id);
  return ids;
}

const Fixture& fixture(const std::string& id) {
  static std::map<std::string, Fixture> loaded;
  auto it = loaded.find(id);
  if (it == loaded.end()) it = loaded.emplace(id, load_case(default_golden_paths(), id)).first;
  return it->second;
}

// Every combination a kernel may declare (the contracts' two, the two mixed ones, and each partial
// precision scaled before the reduction, as vLLM's Marlin does for 8-bit codes).
std::vector<Numerics> declarable_numerics() {
  std::vector<Numerics> out;
  for (Partials p : {Partials::fp16, Partials::fp32})
    for (Epilogue e : {Epilogue::round_then_scale, Epilogue::scale_then_round, Epilogue::scale_before_reduce})
      out.push_back({Accumulator::fp32, p, e});
  return out;
}

// Marlin's choice for the shape and, where it divides, a shallower tile (more slices per column).
std::vector<TileConfig> configs(const Shape& shape) {
  std::vector<TileConfig> out{choose_config(shape)};
  TileConfig shallow{1, 8, 2, group_blocks_for(shape.group)};
  if (shape.group > 32) shallow.k_blocks = shape.group / 16;  // a tile holds whole groups
  try {
    validate_config(shallow, shape);
    if (shallow != out.front()) out.push_back(shallow);
  } catch (const Error&) {
  }
  return out;
}

Comparison judged(const Fixture& f, const KernelNumerics& kn, const TileConfig& config, int sms, Fault fault,
                  std::uint64_t seed, Expectation* expectation = nullptr) {
  Expectation e = make_expectation(f, f.spec.contract, kn, make_schedule(f.spec.shape, config, sms), f.spec.id);
  const HalfMatrix got = format_model::model_output(f, e, fault, kn.schedule == ScheduleKind::unknown, seed);
  Comparison c = compare(e, got);
  if (expectation) *expectation = std::move(e);
  return c;
}

class FormatBounds : public ::testing::TestWithParam<std::string> {};

TEST_P(FormatBounds, AModelKernelPassesUnderEveryScheduleAndDeclaredNumerics) {
  const Fixture& f = fixture(GetParam());
  long long elements = 0, unbounded = 0;
  for (const Numerics& n : declarable_numerics()) {
    for (const TileConfig& config : configs(f.spec.shape)) {
      for (int sms : {1, 3, 8}) {
        Expectation e;
        const Comparison c = judged(f, {n, ScheduleKind::model, 16}, config, sms, Fault::none, 7 + sms, &e);
        ASSERT_TRUE(c.passed()) << name(n) << ", " << name(config) << ", sms " << sms << "\n" << report(e, c);
        elements += c.counts.elements;
        for (int i = 0; i < e.M(); ++i)
          for (int j = 0; j < e.N(); ++j) unbounded += e.bounds.at(i, j).unbounded;
      }
    }
    for (std::uint64_t seed : {1, 2, 3}) {  // any split of K at 16-row steps, in any order
      Expectation e;
      const Comparison c = judged(f, {n, ScheduleKind::unknown, 16}, choose_config(f.spec.shape), 1, Fault::none,
                                  seed, &e);
      ASSERT_TRUE(c.passed()) << name(n) << ", unknown schedule, seed " << seed << "\n" << report(e, c);
      elements += c.counts.elements;
    }
  }
  // Only the extremes cases may reach an overflow that leaves elements unbounded; never all of them.
  if (f.spec.distribution != Distribution::extremes) {
    EXPECT_EQ(unbounded, 0);
  }
  EXPECT_LT(unbounded, elements / 2) << "bounds that admit everything check nothing";
}

TEST_P(FormatBounds, ReportsNameTheFormatAndItsDtype) {
  const Fixture& f = fixture(GetParam());
  Expectation e;
  const Comparison c = judged(f, contract_default(f.spec.contract), choose_config(f.spec.shape), 3, Fault::none, 1, &e);
  EXPECT_EQ(e.dtype, f.spec.format.dtype);
  EXPECT_NE(report(e, c).find("format " + name(f.spec.format)), std::string::npos) << report(e, c);
  EXPECT_EQ(c.tier("t0").status, TierStatus::not_applicable) << "the served formats' cases are not built exact";
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (char& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Committed, FormatBounds, ::testing::ValuesIn(committed_format_cases()), case_name);

// Each bug, on every committed case where it can exist: T1 must catch it on at least one, and the
// ones whose data cannot show it are named (a bf16 scale exact in fp16 converts unchanged).
TEST(FormatBounds, CatchTheClassicBugsOfEachFormat) {
  for (Fault fault : {Fault::zero_point_off_by_one, Fault::scale_through_fp16, Fault::uint8_bias_8,
                      Fault::g_idx_wrong_side, Fault::act_order_scatter}) {
    int cases = 0, caught = 0;
    std::string missed;
    for (const std::string& id : committed_format_cases()) {
      const Fixture& f = fixture(id);
      if (!format_model::applies(fault, f.spec.format)) continue;
      ++cases;
      const Comparison c = judged(f, contract_default(f.spec.contract), choose_config(f.spec.shape), 3, fault, 5);
      if (c.tier("t1").status == TierStatus::fail) {
        ++caught;
      } else {
        missed += " " + id;
        if (fault == Fault::scale_through_fp16) {  // a miss only where the conversion changes nothing
          for (Eigen::Index k = 0; k < f.weights.scales.size(); ++k) {
            const std::uint16_t s = f.weights.scales.data()[k];
            ASSERT_EQ(round_to_bf16(half_to_double(round_to_half(bf16_to_double(s)))), s) << id << " scale " << k;
          }
        }
      }
    }
    std::printf("%s: caught on %d of %d cases%s%s\n", std::string(format_model::name(fault)).c_str(), caught, cases,
                missed.empty() ? "" : "; not on", missed.c_str());
    EXPECT_GT(cases, 0) << format_model::name(fault) << ": no committed case has the format";
    EXPECT_GT(caught, 0) << format_model::name(fault) << " passes every case";
    // Everything but the scale conversion changes every weight it touches by a whole code step.
    if (fault != Fault::scale_through_fp16) {
      EXPECT_EQ(caught, cases) << format_model::name(fault) << " missed:" << missed;
    }
  }
}

}  // namespace
}  // namespace tc
