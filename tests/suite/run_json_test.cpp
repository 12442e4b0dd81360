// The results file of `tilecheck run --json` (tilecheck/suite/run_json.h) and the resume merge
// (tilecheck/suite/run_matrix.h): every field of an outcome comes back as written, a cell "not run"
// stays without a verdict, a file that is not such a file is refused naming it, and --resume keeps
// exactly the verdicts of the cells still in the matrix.
#include "tilecheck/suite/run_json.h"

#include <fstream>

#include <gtest/gtest.h>

#include "common/temp_dir.h"
#include "tilecheck/core/error.h"
#include "tilecheck/suite/run_matrix.h"

namespace tc {
namespace {

Cell cell(const char* id, int sms) { return {id, TileConfig{1, 8, 8, -1}, Contract::marlin, "upstream", sms}; }

CellOutcome failing() {
  CellOutcome o;
  o.cell = cell("normal_m16_n128_k128_gcol_marlin", 3);
  o.family = "M<=16";
  o.status = CellStatus::fail;
  o.worst_ulp = 7;
  o.worst_utilization = 2.5;
  o.message = "workspace: lock 0 (workspace byte 0) left at 1; Mismatched 2 / 2048";
  o.counts = {2048, 1, 0, 0, 1, 3};
  o.tiers = {{"t0", "n/a"}, {"t1", "fail"}, {"t2", "pass"}};
  o.hints = {"row_predication"};
  o.workspace = "workspace: lock 0 (workspace byte 0) left at 1";
  o.error_map = "maps/x.errmap.h5";
  o.error_map_bytes = 1234;
  o.numerics = "fp32 accumulator, fp16 partials, round-then-scale; schedule model";
  o.seconds = 0.25;
  return o;
}

TEST(RunJson, EveryFieldRoundTripsAndNotRunCellsStayWithoutAVerdict) {
  TempDir dir;
  RunFile run;
  run.header = {"tilecheck-marlin", "upstream", "/lib/libtc_kernel_upstream.so", "NVIDIA H200", "v1"};
  run.complete = false;
  run.outcomes = {failing(), not_run_outcome(cell("normal_m2_n128_k128_gcol_fp32", 1), "M<=16",
                                             "not run (interrupted)")};
  run.outcomes[1].cell.contract = Contract::fp32;
  write_run_json(dir.file("run.json"), run);
  const RunFile back = read_run_json(dir.file("run.json"));
  EXPECT_EQ(back.header.kernel, "tilecheck-marlin");
  EXPECT_EQ(back.header.library, "/lib/libtc_kernel_upstream.so");
  EXPECT_EQ(back.header.device, "NVIDIA H200");
  EXPECT_FALSE(back.complete);
  ASSERT_EQ(back.outcomes.size(), 2u);
  const CellOutcome& a = back.outcomes[0];
  const CellOutcome want = failing();
  EXPECT_EQ(a.cell.name(), want.cell.name());
  EXPECT_EQ(a.status, CellStatus::fail);
  EXPECT_EQ(a.family, want.family);
  EXPECT_EQ(a.worst_ulp, 7);
  EXPECT_DOUBLE_EQ(a.worst_utilization, 2.5);
  EXPECT_EQ(a.message, want.message);
  EXPECT_EQ(a.counts.elements, 2048);
  EXPECT_EQ(a.counts.bound, 1);
  EXPECT_EQ(a.counts.guard, 1);
  EXPECT_EQ(a.counts.not_exact, 3);
  EXPECT_EQ(a.tiers, want.tiers);
  EXPECT_EQ(a.hints, want.hints);
  EXPECT_EQ(a.workspace, want.workspace);
  EXPECT_EQ(a.error_map, want.error_map);
  EXPECT_EQ(a.error_map_bytes, 1234u);
  EXPECT_EQ(a.numerics, want.numerics);
  EXPECT_EQ(back.outcomes[1].status, CellStatus::not_run);
  EXPECT_EQ(back.outcomes[1].message, "not run (interrupted)");
  EXPECT_EQ(back.outcomes[1].cell.contract, Contract::fp32);
  std::ifstream in(dir.file("run.json"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"not run\": 1"), std::string::npos) << text;
  EXPECT_NE(text.find("\"tiers\": {"), std::string::npos) << "tiers are an object: " << text;
}

// Results files written before the tiers became an object held them as one line; --resume reads both.
TEST(RunJson, TiersOfAnOlderFileAreReadFromTheirLine) {
  TempDir dir;
  { std::ofstream(dir.file("old.json")) << "{\"cells\": [{\"cell\": \"c_m1n8k8g8_marlin_upstream_sms1\", \"case\": \"c\", "
                                          "\"config\": \"m1n8k8g8\", \"contract\": \"marlin\", \"variant\": \"upstream\", "
                                          "\"sms\": 1, \"status\": \"FAIL\", \"tiers\": \"t0=n/a t1=fail t2=pass\"}]}"; }
  const RunFile back = read_run_json(dir.file("old.json"));
  ASSERT_EQ(back.outcomes.size(), 1u);
  EXPECT_EQ(tier_line(back.outcomes[0].tiers), "t0=n/a t1=fail t2=pass");
  EXPECT_EQ(tier_status(back.outcomes[0].tiers, "t1"), "fail");
  EXPECT_THROW(parse_tier_line("t0"), Error);
}

TEST(RunJson, AFileThatIsNotARunsResultsIsRefusedNamingIt) {
  TempDir dir;
  const auto refused = [&](const std::string& text, const std::string& words) {
    { std::ofstream(dir.file("bad.json")) << text; }
    try {
      read_run_json(dir.file("bad.json"));
      ADD_FAILURE() << "read " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(dir.file("bad.json")), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused("{not json", "not valid JSON");
  refused("{\"pass\": 3}", "no \"cells\" array");
  refused("{\"cells\": [{\"cell\": \"x\", \"case\": \"c\", \"config\": \"m1n8k8g8\", \"contract\": \"marlin\", "
          "\"variant\": \"upstream\", \"sms\": 1, \"status\": \"pass\"}]}",
          "cell 0: cell 'x' does not match its fields");
  refused("{\"cells\": [{\"cell\": \"c_m1n8k8g8_marlin_upstream_sms1\", \"case\": \"c\", \"config\": \"m1n8k8g8\", "
          "\"contract\": \"marlin\", \"variant\": \"upstream\", \"sms\": 1, \"status\": \"maybe\"}]}",
          "cell status 'maybe'");
  try {
    read_run_json(dir.file("missing.json"));
    ADD_FAILURE() << "read a missing file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("missing.json: cannot read it"), std::string::npos) << e.what();
  }
}

// --resume: a verdict is kept for a cell of the matrix that has one; a "not run" cell, a cell the
// file lacks, run again; a cell of the file outside the matrix (another --filter) is ignored.
TEST(ResumeMerge, KeepsTheVerdictsOfTheMatrixCellsAndRunsTheRest) {
  const std::vector<Cell> cells = {cell("a", 1), cell("a", 3), cell("b", 1), cell("c", 1)};
  CellOutcome pass_a1 = not_run_outcome(cells[0], "", "");
  pass_a1.status = CellStatus::pass;
  CellOutcome hang_b1 = not_run_outcome(cells[2], "", "");
  hang_b1.status = CellStatus::hang;
  const CellOutcome not_run_a3 = not_run_outcome(cells[1], "", "not run (interrupted)");
  CellOutcome elsewhere = not_run_outcome(cell("z", 1), "", "");
  elsewhere.status = CellStatus::fail;
  const auto kept = verdicts_to_keep(cells, {pass_a1, not_run_a3, hang_b1, elsewhere});
  ASSERT_EQ(kept.size(), 4u);
  ASSERT_TRUE(kept[0].has_value());
  EXPECT_EQ(kept[0]->status, CellStatus::pass);
  EXPECT_FALSE(kept[1].has_value()) << "not run: runs again";
  ASSERT_TRUE(kept[2].has_value());
  EXPECT_EQ(kept[2]->status, CellStatus::hang) << "a verdict, even a HANG, is not run again";
  EXPECT_FALSE(kept[3].has_value()) << "not in the file: runs";
}

}  // namespace
}  // namespace tc
