// The perturbation tier's tally and report (tilecheck/suite/perturb_run.h, perturb_report.h) without
// a GPU: how each round's outcome counts, each cell's verdict, the text and the JSON file.
#include "tilecheck/suite/perturb_report.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/temp_dir.h"

namespace tc {
namespace {

Cell delay_cell(const std::string& case_id, int sms) {
  return {case_id, TileConfig{1, 16, 4, -1}, Contract::marlin, "mut06_delay", sms};
}

CellOutcome outcome(CellStatus status, const std::string& message) {
  CellOutcome o;
  o.status = status;
  o.message = message;
  if (status == CellStatus::fail || status == CellStatus::pass) o.tiers = {{"t0", "n/a"}, {"t1", "fail"}, {"t2", "pass"}};
  return o;
}

// A cell of `rounds` planned rounds fed `outcomes` in order, as run_perturbation does.
CellRounds tally(const Cell& c, int rounds, const std::vector<CellOutcome>& outcomes) {
  CellRounds t;
  t.cell = c;
  t.family = "M<=16";
  t.rounds_planned = rounds;
  const auto plan = plan_rounds(1, c.name(), rounds, 10);
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    if (!record_round(t, plan[i], outcomes[i])) break;
  return t;
}

const std::string kFail = "Mismatched 120 / 8192 (1.5%) [bound=120 nonfinite=0 unwritten=0 guard=0]\nmore";

TEST(RecordRound, CountsRunsAndFailuresAndKeepsTheFirstFailure) {
  const CellRounds t = tally(delay_cell("normal_m16_n512_k128_gcol", 1), 4,
                             {outcome(CellStatus::pass, "pass"), outcome(CellStatus::fail, kFail),
                              outcome(CellStatus::hang, "HANG: no result within 2.0 s"),
                              outcome(CellStatus::fail, "later")});
  EXPECT_EQ(t.rounds_run, 4);
  EXPECT_EQ(t.rounds_failed, 3);
  EXPECT_EQ(t.failed_by.at(CellStatus::fail), 2);
  EXPECT_EQ(t.failed_by.at(CellStatus::hang), 1);
  ASSERT_TRUE(t.first_failure.has_value());
  EXPECT_EQ(t.first_failure->round.index, 1) << "the first failing round, not a later one";
  EXPECT_EQ(t.first_failure->status, CellStatus::fail);
  EXPECT_EQ(t.first_failure->message, kFail);
  EXPECT_EQ(tier_line(t.first_failure->tiers), "t0=n/a t1=fail t2=pass");
  EXPECT_EQ(cell_verdict(t), "failed");
}

TEST(RecordRound, FaultAndErrorAreFailuresToo) {
  const CellRounds t = tally(delay_cell("c", 1), 2, {outcome(CellStatus::fault, "FAULT: cudaErrorIllegalAddress: ..."),
                                               outcome(CellStatus::error, "TC_ERR_CUDA: perturbation noise: ...")});
  EXPECT_EQ(t.rounds_failed, 2);
  EXPECT_EQ(cell_verdict(t), "failed");
  PerturbRun run;
  run.cells = {t};
  std::ostringstream out;
  print_perturbation(out, run, {});
  EXPECT_NE(out.str().find("\n    FAULT: cudaErrorIllegalAddress: ...\n"), std::string::npos)
      << "a message that names its verdict is printed once:\n" << out.str();
}

TEST(RecordRound, StopsAtNotApplicableWithoutCountingARound) {
  const CellRounds t = tally(delay_cell("c", 1), 4, {outcome(CellStatus::not_applicable, "no kernel for m1n16k4gcol"),
                                               outcome(CellStatus::pass, "pass")});
  EXPECT_EQ(t.rounds_run, 0);
  EXPECT_EQ(t.not_applicable, "no kernel for m1n16k4gcol");
  EXPECT_EQ(cell_verdict(t), "n/a");
}

// KernelWorkers answers a configuration it gave up with FAULT or HANG "not run: ...": nothing launched.
TEST(RecordRound, AGivenUpConfigurationOrAnInterruptionRunsNoRound) {
  const CellRounds given_up = tally(delay_cell("c", 1), 4, {outcome(CellStatus::pass, "pass"),
      outcome(CellStatus::hang, "not run: configuration m1n16k4gcol hung 2 times")});
  EXPECT_EQ(given_up.rounds_run, 1);
  EXPECT_EQ(given_up.rounds_failed, 0);
  EXPECT_EQ(given_up.stopped, "not run: configuration m1n16k4gcol hung 2 times");
  EXPECT_EQ(cell_verdict(given_up), "incomplete");

  const CellRounds interrupted = tally(delay_cell("c", 1), 4, {outcome(CellStatus::not_run, "not run (interrupted)")});
  EXPECT_EQ(interrupted.rounds_run, 0);
  EXPECT_EQ(cell_verdict(interrupted), "not run");
}

TEST(CellVerdict, PassedOnlyWhenEveryPlannedRoundRanAndPassed) {
  const Cell c = delay_cell("c", 3);
  EXPECT_EQ(cell_verdict(tally(c, 2, {outcome(CellStatus::pass, ""), outcome(CellStatus::pass, "")})), "passed");
  EXPECT_EQ(cell_verdict(tally(c, 3, {outcome(CellStatus::pass, ""), outcome(CellStatus::pass, "")})), "incomplete");
  EXPECT_EQ(cell_verdict(tally(c, 3, {})), "not run");
}

PerturbRun example_run() {
  PerturbRun run;
  run.cells.push_back(tally(delay_cell("normal_m16_n512_k128_gcol", 1), 3,
                            {outcome(CellStatus::pass, ""), outcome(CellStatus::fail, kFail),
                             outcome(CellStatus::fail, "again")}));
  run.cells.push_back(tally(delay_cell("normal_m17_n256_k128_gcol", 3), 3,
                            {outcome(CellStatus::pass, ""), outcome(CellStatus::pass, ""),
                             outcome(CellStatus::pass, "")}));
  run.cells.push_back(tally(delay_cell("normal_m16_n256_k512_g128", 1), 3,
                            {outcome(CellStatus::not_applicable, "marlin_cuda returned 1")}));
  CellRounds late = tally(delay_cell("normal_m65_n128_k768_gcol", 1), 3, {outcome(CellStatus::pass, "")});
  late.stopped = "not run: the time budget (60 s) was spent";
  run.cells.push_back(late);
  run.out_of_time = true;
  run.seconds = 12.34;
  return run;
}

PerturbHeader example_header() {
  PerturbHeader h;
  h.run = {"tilecheck-marlin", "mut06_delay", "/lib/libtc_kernel_mut06_delay.so", "NVIDIA H200, 132 SMs", "0.1.0"};
  h.seed = 9;
  h.rounds = 3;
  h.noise_limit_ms = 10;
  h.time_budget = 60;
  h.not_in_matrix = {"3 cases: kernel library x does not list format bf16-uint4 (it lists fp16-uint4b8)"};
  return h;
}

TEST(PerturbReport, CountsCellsByVerdictAndPassesOnlyACompleteCleanRun) {
  const PerturbRun run = example_run();
  const PerturbCounts n = count(run);
  EXPECT_EQ(n.cells, 4);
  EXPECT_EQ(n.failed, 1);
  EXPECT_EQ(n.passed, 1);
  EXPECT_EQ(n.not_applicable, 1);
  EXPECT_EQ(n.incomplete, 1);
  EXPECT_EQ(n.rounds_planned, 12);
  EXPECT_EQ(n.rounds_run, 7);
  EXPECT_EQ(n.rounds_failed, 2);
  EXPECT_FALSE(perturbation_passed(run));
  PerturbRun clean;
  clean.cells = {run.cells[1], run.cells[2]};
  EXPECT_TRUE(perturbation_passed(clean)) << "n/a cells fail nothing";
  clean.cells.push_back(run.cells[3]);
  EXPECT_FALSE(perturbation_passed(clean)) << "a cell whose rounds did not all run is not a pass";
}

TEST(PerturbReport, PrintsTheFailingCellsTheirFirstRoundAndASummary) {
  std::ostringstream out;
  print_perturbation(out, example_run(), example_header());
  const std::string text = out.str();
  const PerturbRound first = plan_rounds(1, delay_cell("normal_m16_n512_k128_gcol", 1).name(), 3, 10)[1];
  EXPECT_NE(text.find("cells with failing rounds: 1 of 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  normal_m16_n512_k128_gcol_m1n16k4gcol_marlin_mut06_delay_sms1: 2 of 3 rounds failed (FAIL 2)\n"
                      "    first: " + describe(first) + "\n"
                      "    FAIL: Mismatched 120 / 8192 (1.5%) [bound=120 nonfinite=0 unwritten=0 guard=0]\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("more"), std::string::npos) << "the message's first line only";
  EXPECT_NE(text.find("stopped early: 1 cell: not run: the time budget (60 s) was spent\n"), std::string::npos) << text;
  EXPECT_NE(text.find("n/a: 1 cell: marlin_cuda returned 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("perturb: 4 cells, 7 of 12 rounds run in 12.3 s (seed 9, 3 rounds a cell): 1 cell failed in 2 "
                      "rounds, 1 passed, 1 n/a, 1 incomplete, 0 not run\n"),
            std::string::npos)
      << text;
}

TEST(PerturbReport, WritesEveryCellAsJson) {
  TempDir dir;
  const std::string path = dir.file("perturb.json");
  write_perturb_json(path, example_run(), example_header());
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("tilecheck_perturb_json"), 1);
  EXPECT_EQ(doc.at("variant"), "mut06_delay");
  EXPECT_EQ(doc.at("seed"), 9);
  EXPECT_EQ(doc.at("passed"), false);
  EXPECT_EQ(doc.at("out_of_time"), true);
  EXPECT_EQ(doc.at("counts").at("rounds_failed"), 2);
  EXPECT_EQ(doc.at("not_in_matrix"), nlohmann::json::array({example_header().not_in_matrix[0]}))
      << "the cases left out for their format, once per format";
  ASSERT_EQ(doc.at("cells").size(), 4u);
  const nlohmann::json& failed = doc.at("cells")[0];
  EXPECT_EQ(failed.at("cell"), "normal_m16_n512_k128_gcol_m1n16k4gcol_marlin_mut06_delay_sms1");
  EXPECT_EQ(failed.at("verdict"), "failed");
  EXPECT_EQ(failed.at("rounds_run"), 3);
  EXPECT_EQ(failed.at("rounds_failed"), 2);
  EXPECT_EQ(failed.at("failed_by").at("FAIL"), 2);
  const nlohmann::json& first = failed.at("first_failure");
  EXPECT_EQ(first.at("status"), "FAIL");
  EXPECT_EQ(first.at("message"), kFail) << "the whole message";
  EXPECT_EQ(first.at("round").at("index"), 1);
  EXPECT_EQ(first.at("round").at("order"), "kernel first");
  EXPECT_EQ(first.at("round").at("kernel_priority"), "high");
  EXPECT_TRUE(doc.at("cells")[1].at("first_failure").is_null());
  EXPECT_EQ(doc.at("cells")[2].at("verdict"), "n/a");
  EXPECT_EQ(doc.at("cells")[3].at("verdict"), "incomplete");
  EXPECT_EQ(doc.at("cells")[3].at("stopped"), "not run: the time budget (60 s) was spent");
}

}  // namespace
}  // namespace tc
