// Judging suite cells without a GPU (tilecheck/suite/runner.h): a committed golden case and a
// synthetic output — the reference's own (a correct kernel's), or one with a tile zeroed — go
// through judge_cell exactly as a kernel's output does in `tilecheck run`.
#include "tilecheck/suite/runner.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "common/temp_dir.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

const std::string kClean;  // a workspace the check found clean

constexpr const char* kCase = "normal_m17_n128_k128_g128_marlin";  // M = 17: two 16-row tiles

Fixture committed_case() { return load_case(default_golden_paths(), kCase); }

Cell cell_of(const Fixture& f, int sms = 3) {
  return Cell{f.spec.id, choose_config(f.spec.shape), f.spec.contract, "upstream", sms};
}

TEST(JudgeCell, TheReferencesOwnOutputPasses) {
  const Fixture f = committed_case();
  TempDir maps;
  const CellOutcome o = judge_cell(f, cell_of(f), contract_default(f.spec.contract), {f.ref.expected, GuardBand{}, kClean}, maps.path().string());
  EXPECT_EQ(o.status, CellStatus::pass) << o.message;
  EXPECT_EQ(o.cell.name(), cell_of(f).name());
  EXPECT_EQ(o.family, case_family(f.spec));
  EXPECT_EQ(o.worst_ulp, 0);
  EXPECT_EQ(o.counts.mismatched(), 0);
  EXPECT_EQ(o.message.rfind("Mismatched 0 / 2176", 0), 0u) << o.message;
  EXPECT_EQ(tier_line(o.tiers).rfind("t0=n/a t1=pass", 0), 0u) << tier_line(o.tiers);
  EXPECT_TRUE(o.error_map.empty());
  EXPECT_TRUE(std::filesystem::is_empty(maps.path())) << "a passing cell writes no error map";
}

TEST(JudgeCell, AZeroedTileFailsAndWritesItsErrorMap) {
  const Fixture f = committed_case();
  HalfMatrix C = f.ref.expected;
  C.block(0, 0, 16, 128).setZero();
  TempDir maps;
  const Cell cell = cell_of(f);
  const CellOutcome o = judge_cell(f, cell, contract_default(cell.contract), {C, GuardBand{}, kClean}, maps.file("errmaps"));
  EXPECT_EQ(o.status, CellStatus::fail);
  EXPECT_GT(o.counts.bound, 0);
  EXPECT_GT(o.worst_ulp, 0);
  EXPECT_EQ(o.message.rfind("Mismatched ", 0), 0u) << o.message;
  EXPECT_EQ(tier_status(o.tiers, "t1"), "fail") << tier_line(o.tiers);
  EXPECT_EQ(o.error_map, maps.file("errmaps") + "/" + cell.name() + ".errmap.h5");
  EXPECT_TRUE(std::filesystem::exists(o.error_map));

  const CellOutcome quiet = judge_cell(f, cell, contract_default(cell.contract), {C, GuardBand{}, kClean}, "");
  EXPECT_EQ(quiet.status, CellStatus::fail);
  EXPECT_TRUE(quiet.error_map.empty()) << "no directory, no error map";
}

TEST(JudgeCell, AWrittenGuardCellFails) {
  const Fixture f = committed_case();
  GuardBand guard;
  guard.cells = 2 * 64 * 128;
  guard.written.push_back({17, 3, 0x3C00});  // the row below C
  const CellOutcome o = judge_cell(f, cell_of(f), contract_default(f.spec.contract), {f.ref.expected, guard, kClean}, "");
  EXPECT_EQ(o.status, CellStatus::fail);
  EXPECT_EQ(o.counts.guard, 1);
}

TEST(JudgeCell, ACellAskingForAnotherContractIsAnErrorInItsFamily) {
  const Fixture f = committed_case();  // a marlin case
  Cell cell = cell_of(f);
  cell.contract = Contract::fp32;
  const CellOutcome o = judge_cell(f, cell, contract_default(cell.contract), {f.ref.expected, GuardBand{}, kClean}, "");
  EXPECT_EQ(o.status, CellStatus::error);
  EXPECT_EQ(o.family, case_family(f.spec)) << "the summary table shows it in the case's column";
  EXPECT_NE(o.message.find("asks for contract fp32 but case " + std::string(kCase) + " was generated for marlin"),
            std::string::npos)
      << o.message;
}

TEST(JudgeCell, AnErrorMapThatCannotBeWrittenLeavesTheVerdict) {
  const Fixture f = committed_case();
  HalfMatrix C = f.ref.expected;
  C.setZero();
  TempDir maps;
  { std::ofstream(maps.file("a_file")) << "x"; }
  const CellOutcome o = judge_cell(f, cell_of(f), contract_default(f.spec.contract), {C, GuardBand{}, kClean}, maps.file("a_file") + "/errmaps");
  EXPECT_EQ(o.status, CellStatus::fail);
  EXPECT_TRUE(o.error_map.empty());
  EXPECT_NE(o.message.find("error map not written"), std::string::npos) << o.message;
}

// What a cell is judged under: the library's declaration, else the contract's numerics with the
// bounds for any split of K (sound for a schedule nobody described); --schedule replaces only the
// schedule kind.
// A cell of a schema v2 case is judged by the chain `tilecheck compare` uses on its fixture
// (make_expectation: the format's reference and bounds, in the case's dtype): the reference's own
// output passes, judged in bf16 with the same admissible ranges, and one value moved by two binades
// fails.
TEST(JudgeCell, ACellOfABf16CaseIsJudgedInItsDtypeAsCompareJudgesIt) {
  const Fixture f = load_case(default_golden_paths(), "normal_m16_n128_k256_g64_marlin_bf16-uint4b8");
  const Cell cell = cell_of(f);
  const KernelNumerics numerics = judged_numerics(std::nullopt, cell.contract);
  const Judgement j = judge(f, cell, numerics, {f.ref.expected, GuardBand{}, kClean});
  EXPECT_EQ(j.outcome.status, CellStatus::pass) << j.outcome.message;
  EXPECT_EQ(j.expectation.dtype, Dtype::bf16);
  EXPECT_EQ(j.expectation.format_name(), "bf16-uint4b8");
  const Expectation compared =
      make_expectation(f, cell.contract, numerics, make_schedule(f.spec.shape, cell.config, cell.sms), f.spec.id);
  EXPECT_EQ(j.expectation.bounds.key_lo, compared.bounds.key_lo);
  EXPECT_EQ(j.expectation.bounds.key_hi, compared.bounds.key_hi);
  HalfMatrix C = f.ref.expected;
  C(0, 0) = static_cast<half_bits>(C(0, 0) + 0x0100);  // bf16: the exponent field + 2
  const CellOutcome o = judge_cell(f, cell, numerics, {C, GuardBand{}, kClean}, "");
  EXPECT_EQ(o.status, CellStatus::fail);
  EXPECT_EQ(o.counts.mismatched(), 1);
}

TEST(JudgedNumerics, TheDeclarationElseTheContractOnAnyScheduleWithTheScheduleOverridden) {
  const KernelNumerics vllm{{Accumulator::fp32, Partials::fp32, Epilogue::round_then_scale}, ScheduleKind::model, 64};
  EXPECT_EQ(judged_numerics(vllm, Contract::marlin), vllm);
  KernelNumerics undeclared = contract_default(Contract::marlin);
  undeclared.schedule = ScheduleKind::unknown;
  EXPECT_EQ(judged_numerics(std::nullopt, Contract::marlin), undeclared) << "no model of a schedule not claimed";
  EXPECT_EQ(judged_numerics(std::nullopt, Contract::marlin, ScheduleKind::model), contract_default(Contract::marlin))
      << "--schedule model, asked for";
  KernelNumerics unknown = vllm;
  unknown.schedule = ScheduleKind::unknown;
  EXPECT_EQ(judged_numerics(vllm, Contract::marlin, ScheduleKind::unknown), unknown) << "the declared k-slice stays";
  KernelNumerics fp32 = contract_default(Contract::fp32);
  fp32.schedule = ScheduleKind::unknown;
  EXPECT_EQ(judged_numerics(std::nullopt, Contract::fp32, ScheduleKind::unknown), fp32);
  EXPECT_EQ(judged_numerics(unknown, Contract::fp32, ScheduleKind::model).schedule, ScheduleKind::model);
}

// A vLLM-like kernel (fp32 partials, per-column scales applied after rounding) on an fp32 case: its
// correct output, the reference under the round-then-scale epilogue, passes when judged by its
// declaration, which the outcome names; judged by the contract it does not.
TEST(JudgeCell, ADeclaredEpilogueSetsTheExpectedOutput) {
  const Fixture f = load_case(default_golden_paths(), "normal_m16_n256_k256_gcol_fp32");
  const HalfMatrix rounded_first = reference_gemm(f.A, f.weights, Contract::marlin, GemmPath::exact).expected;
  ASSERT_NE(rounded_first, f.ref.expected);
  const KernelNumerics vllm{{Accumulator::fp32, Partials::fp32, Epilogue::round_then_scale}, ScheduleKind::model, 64};
  const Cell cell = cell_of(f, 3);
  const CellOutcome declared = judge_cell(f, cell, vllm, {rounded_first, GuardBand{}, kClean}, "");
  EXPECT_EQ(declared.status, CellStatus::pass) << declared.message << " " << tier_line(declared.tiers);
  EXPECT_EQ(declared.worst_ulp, 0);
  EXPECT_EQ(declared.numerics, "fp32 accumulator, fp32 partials, round-then-scale; schedule model");
  const CellOutcome by_contract = judge_cell(f, cell, contract_default(cell.contract), {rounded_first, GuardBand{}, kClean}, "");
  EXPECT_GT(by_contract.worst_ulp, 0);
  EXPECT_EQ(by_contract.numerics, "fp32 accumulator, fp32 partials, scale-then-round; schedule model");
}

// The fp32 contract's exact cases hold partial sums fp16 cannot: declared fp16 partials turn T0 off
// there (T1 still judges), and an fp16 accumulator cannot be judged at all (an ERROR outcome).
TEST(JudgeCell, DeclaredNumericsDecideWhetherTheExactTierApplies) {
  const Fixture f = load_case(default_golden_paths(), "exact_m16_n256_k256_gcol_fp32");
  const Cell cell = cell_of(f, 3);
  EXPECT_EQ(judge_cell(f, cell, contract_default(cell.contract), {f.ref.expected, GuardBand{}, kClean}, "").tiers.front().second, "pass");
  const KernelNumerics fp16_partials{{Accumulator::fp32, Partials::fp16, Epilogue::scale_then_round},
                                     ScheduleKind::model, 16};
  const CellOutcome o = judge_cell(f, cell, fp16_partials, {f.ref.expected, GuardBand{}, kClean}, "");
  EXPECT_EQ(o.status, CellStatus::pass) << o.message;
  EXPECT_EQ(tier_line(o.tiers).rfind("t0=n/a t1=pass", 0), 0u) << tier_line(o.tiers);
  const KernelNumerics fp16_acc{{Accumulator::fp16, Partials::fp32, Epilogue::scale_then_round}, ScheduleKind::model, 16};
  const CellOutcome refused = judge_cell(f, cell, fp16_acc, {f.ref.expected, GuardBand{}, kClean}, "");
  EXPECT_EQ(refused.status, CellStatus::error) << "judged an fp16 accumulator";
  EXPECT_NE(refused.message.find("accumulator fp16 is not supported"), std::string::npos) << refused.message;
}

// Every element inside its bound but one not bitwise the expected one on an exact case: the cell
// fails on T0 alone, and its message says so (the header's mismatch count is 0).
TEST(JudgeCell, AFailingTierWithNoMismatchedElementIsNamedInTheMessage) {
  const Fixture f = load_case(default_golden_paths(), "exact_m16_n256_k256_g128_marlin");
  const Cell cell = cell_of(f, 3);
  HalfMatrix C = f.ref.expected;
  int changed = 0;
  const Expectation e = cell_expectation(f, cell, contract_default(cell.contract));
  for (Eigen::Index i = 0; i < C.size() && changed == 0; ++i) {
    const half_bits next = half_from_key(half_key(C.data()[i]) + 1);
    if (admits(e.bounds.at(static_cast<int>(i / C.cols()), static_cast<int>(i % C.cols())), next)) {
      C.data()[i] = next;
      ++changed;
    }
  }
  ASSERT_EQ(changed, 1) << "no element has room for one ULP";
  const CellOutcome o = judge_cell(f, cell, contract_default(cell.contract), {C, GuardBand{}, kClean}, "");
  EXPECT_EQ(o.status, CellStatus::fail);
  EXPECT_EQ(o.counts.mismatched(), 0);
  EXPECT_NE(o.message.find("; T0 exact FAIL: 1 element(s) not bitwise equal"), std::string::npos) << o.message;
}

TEST(UnjudgedOutcome, AFaultIsFaultAHangIsHangUnsupportedIsNotApplicableAndTheRestIsError) {
  const Cell cell{kCase, TileConfig{1, 8, 8, 8}, Contract::marlin, "upstream", 1};
  KernelRun fault;
  fault.fault = true;
  fault.status = {TC_ERR_CUDA, "FAULT: cudaErrorIllegalAddress: an illegal memory access was encountered"};
  EXPECT_FALSE(judgeable(fault));
  const CellOutcome f = unjudged_outcome(cell, fault);
  EXPECT_EQ(f.status, CellStatus::fault);
  EXPECT_EQ(f.message, fault.status.message);
  EXPECT_EQ(f.cell.name(), cell.name());

  KernelRun hang;
  hang.fault = hang.hang = true;
  hang.status = {TC_ERR_CUDA, "HANG: no result within 30 s of the launch; the worker was killed"};
  const CellOutcome h = unjudged_outcome(cell, hang);
  EXPECT_EQ(h.status, CellStatus::hang);
  EXPECT_EQ(h.message, hang.status.message);

  KernelRun unsupported;
  unsupported.status = {TC_ERR_UNSUPPORTED, "no configuration runs N=96"};
  EXPECT_FALSE(judgeable(unsupported));
  const CellOutcome n = unjudged_outcome(cell, unsupported);
  EXPECT_EQ(n.status, CellStatus::not_applicable);
  EXPECT_EQ(n.message, "no configuration runs N=96");  // the library's own words

  KernelRun refused;
  refused.status = {TC_ERR_INVALID_ARGUMENT, "sms=0 is not allowed"};
  EXPECT_FALSE(judgeable(refused));
  const CellOutcome e = unjudged_outcome(cell, refused);
  EXPECT_EQ(e.status, CellStatus::error);
  EXPECT_EQ(e.message, std::string(status_name(TC_ERR_INVALID_ARGUMENT)) + ": sms=0 is not allowed");

  EXPECT_TRUE(judgeable(KernelRun{}));
}

TEST(CellStatusNames, AreThoseTheTablePrints) {
  EXPECT_STREQ(name(CellStatus::pass), "pass");
  EXPECT_STREQ(name(CellStatus::fail), "FAIL");
  EXPECT_STREQ(name(CellStatus::fault), "FAULT");
  EXPECT_STREQ(name(CellStatus::hang), "HANG");
  EXPECT_STREQ(name(CellStatus::not_applicable), "n/a");
  EXPECT_STREQ(name(CellStatus::error), "ERROR");
}

TEST(SuiteRunner, WithoutAKernelItLoadsFixturesAndBuildsExpectationsButRunsNothing) {
  SuiteRunner runner(nullptr, default_golden_paths());
  const Fixture& f = runner.fixture(kCase);
  EXPECT_EQ(&runner.fixture(kCase), &f) << "consecutive cells of a case share one load";
  const std::shared_ptr<const Fixture> kept = runner.shared_fixture(kCase);
  runner.fixture("normal_m2_n128_k128_gcol_fp32");
  EXPECT_EQ(kept->spec.id, kCase) << "a shared fixture outlives the switch to the next case";

  const Cell cell = cell_of(*kept, 5);
  KernelNumerics unknown = contract_default(cell.contract);
  unknown.schedule = ScheduleKind::unknown;
  EXPECT_EQ(runner.expectation(cell, unknown).max_slices, max_slices_for(kept->spec.shape.K));
  const Expectation e = runner.expectation(cell, contract_default(cell.contract));
  EXPECT_EQ(e.info.case_id, kCase);
  EXPECT_EQ(e.contract, Contract::marlin);
  EXPECT_EQ(e.schedule.launches.front().config, cell.config);
  EXPECT_EQ(e.ref.expected, kept->ref.expected);
  try {
    runner.execute(cell);
    ADD_FAILURE() << "executed a cell without a kernel library";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("no kernel library to run cell " + cell.name()), std::string::npos)
        << err.what();
  }
}

// make_expectation(fixture, contract, ...) (tilecheck/compare/expectation.h), which the runner,
// `tilecheck compare` and `tilecheck tiles` share: the case's stored reference under its own
// contract, the reference recomputed under the other.
TEST(ExpectationUnderAContract, ReusesTheStoredReferenceOrRecomputesIt) {
  // Per-column scales: the contracts round the epilogue differently (RN16(RN16(acc) * s) for
  // marlin, RN16(acc * s) for fp32), so the two references differ.
  const Fixture f = load_case(default_golden_paths(), "normal_m16_n512_k128_gcol_marlin");
  const Schedule schedule = make_schedule(f.spec.shape, choose_config(f.spec.shape), 3);
  const Expectation own = make_expectation(f, Contract::marlin, schedule, "here");
  EXPECT_EQ(own.contract, Contract::marlin);
  EXPECT_EQ(own.ref.expected, f.ref.expected);
  EXPECT_EQ(own.ref.y_exact, f.ref.y_exact);
  EXPECT_NE(own.info.provenance.find("here"), std::string::npos) << own.info.provenance;

  const Expectation other = make_expectation(f, Contract::fp32, schedule, "here");
  const Shape& s = f.spec.shape;
  const ReferenceOutput fp32 = reference_gemm(f.A, f.weights, Contract::fp32, default_path(s.M, s.N, s.K));
  EXPECT_EQ(other.contract, Contract::fp32);
  EXPECT_EQ(other.ref.expected, fp32.expected);
  EXPECT_FALSE(other.ref.expected == f.ref.expected) << "the stored marlin reference was reused for fp32";
  EXPECT_EQ(other.info.case_id, f.spec.id);
}

}  // namespace
}  // namespace tc
