// The summary of a suite run (tilecheck/suite/summary.h) from hand-made outcomes: the counts and
// the pass/fail decision `tilecheck run` exits with, the table (a row per configuration family, a
// column per case family), the list of non-passing cells, and the --json file.
#include "tilecheck/suite/summary.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/temp_dir.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

CellOutcome outcome(const std::string& case_id, TileConfig config, const std::string& family, CellStatus status,
                    int worst_ulp = 0, double utilization = 0, const std::string& message = "") {
  CellOutcome o;
  o.cell = Cell{case_id, config, Contract::marlin, "upstream", 3};
  o.family = family;
  o.status = status;
  o.worst_ulp = worst_ulp;
  o.worst_utilization = utilization;
  o.message = message;
  return o;
}

const TileConfig k128g128{1, 8, 8, 8}, k256gcol{2, 16, 4, -1};

// Two passing cells and one of each other status.
Summary mixed() {
  Summary s;
  s.add(outcome("a", k128g128, "M<=16", CellStatus::pass, 2, 0.5));
  s.add(outcome("b", k128g128, "M<=16", CellStatus::pass, 5, 0.25));
  CellOutcome failed = outcome("c", k128g128, "M 17-64", CellStatus::fail, 900, 3.0, "Mismatched 4 / 64");
  failed.error_map = "maps/c.errmap.h5";
  failed.counts.bound = 4;
  s.add(failed);
  s.add(outcome("d", k256gcol, "special", CellStatus::fault, 0, 0, "FAULT: cudaErrorIllegalAddress"));
  s.add(outcome("e", k256gcol, "exact", CellStatus::error, 0, 0, "golden file unreadable"));
  return s;
}

TEST(Summary, CountsEachStatusAndPassesOnlyWhenEveryCellPassed) {
  const Summary s = mixed();
  EXPECT_EQ(s.outcomes().size(), 5u);
  EXPECT_EQ(s.count(CellStatus::pass), 2);
  EXPECT_EQ(s.count(CellStatus::fail), 1);
  EXPECT_EQ(s.count(CellStatus::fault), 1);
  EXPECT_EQ(s.count(CellStatus::error), 1);
  EXPECT_FALSE(s.passed());

  Summary clean;
  clean.add(outcome("a", k128g128, "M<=16", CellStatus::pass));
  clean.add(outcome("b", k256gcol, "exact", CellStatus::pass));
  EXPECT_TRUE(clean.passed());
  Summary one_error;
  one_error.add(outcome("e", k256gcol, "exact", CellStatus::error));
  EXPECT_FALSE(one_error.passed());
}

TEST(Summary, TheTableHasARowPerConfigurationFamilyAndTheWorstOfEachCell) {
  std::ostringstream out;
  mixed().print(out);
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("config \\ case", 0), 0u) << text;
  for (const std::string& family : case_families()) EXPECT_NE(text.find(family), std::string::npos) << family;
  std::istringstream lines(text);
  std::string header, row1, row2;
  std::getline(lines, header);
  std::getline(lines, row1);
  std::getline(lines, row2);
  EXPECT_EQ(row1.rfind("128x128 g128", 0), 0u) << text;
  EXPECT_NE(row1.find("pass 5/0.50"), std::string::npos) << "worst ULP and worst utilisation over the cell\n" << text;
  EXPECT_NE(row1.find("FAIL 1/1"), std::string::npos) << text;
  EXPECT_EQ(row2.rfind("256x64 gcol", 0), 0u) << text;
  EXPECT_NE(row2.find("FAULT 1"), std::string::npos) << text;
  EXPECT_NE(row2.find("ERROR 1"), std::string::npos) << text;
  EXPECT_NE(text.find("5 cells: 2 pass, 1 fail, 1 fault, 0 hang, 0 n/a, 1 error\n"), std::string::npos) << text;
}

TEST(Summary, ListsEveryNonPassingCellWithItsMessageAndErrorMap) {
  std::ostringstream out;
  const Summary s = mixed();
  s.print(out);
  const std::string text = out.str();
  EXPECT_NE(text.find("  FAIL " + s.outcomes()[2].cell.name() + ": Mismatched 4 / 64 [maps/c.errmap.h5]\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  FAULT " + s.outcomes()[3].cell.name() + ": FAULT: cudaErrorIllegalAddress\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  ERROR " + s.outcomes()[4].cell.name() + ": golden file unreadable\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("\n  pass "), std::string::npos) << "passing cells are not listed\n" << text;

  std::ostringstream short_list;
  s.print(short_list, 1);
  EXPECT_NE(short_list.str().find("  ... and 2 more (see --json)"), std::string::npos) << short_list.str();
  EXPECT_EQ(short_list.str().find("\n  FAULT "), std::string::npos) << short_list.str();
}

TEST(Summary, TheJsonHasEveryCellAndTheCounts) {
  TempDir dir;
  const Summary s = mixed();
  s.write_json(dir.file("cells.json"));
  std::ifstream in(dir.file("cells.json"));
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["pass"], 2);
  EXPECT_EQ(doc["fail"], 1);
  EXPECT_EQ(doc["fault"], 1);
  EXPECT_EQ(doc["error"], 1);
  ASSERT_EQ(doc["cells"].size(), 5u);
  const nlohmann::json& c = doc["cells"][2];
  EXPECT_EQ(c["cell"], s.outcomes()[2].cell.name());
  EXPECT_EQ(c["case"], "c");
  EXPECT_EQ(c["config"], "m1n8k8g8");
  EXPECT_EQ(c["contract"], "marlin");
  EXPECT_EQ(c["variant"], "upstream");
  EXPECT_FALSE(c.contains("order")) << "the key is \"variant\" since the rename";
  EXPECT_EQ(c["sms"], 3);
  EXPECT_EQ(c["family"], "M 17-64");
  EXPECT_EQ(c["status"], "FAIL");
  EXPECT_EQ(c["worst_ulp"], 900);
  EXPECT_EQ(c["worst_utilization"], 3.0);
  EXPECT_EQ(c["message"], "Mismatched 4 / 64");
  EXPECT_EQ(c["bound"], 4);
  EXPECT_EQ(c["error_map"], "maps/c.errmap.h5");
  EXPECT_EQ(doc["cells"][3]["status"], "FAULT");
}

TEST(Summary, AJsonFileThatCannotBeWrittenIsAnError) {
  TempDir dir;
  EXPECT_THROW(mixed().write_json(dir.file("no/such/dir/cells.json")), Error);
}

TEST(Summary, NotApplicableCellsFailNothingAndTheirReasonsAreCounted) {
  Summary s;
  s.add(outcome("a", k128g128, "M<=16", CellStatus::pass, 1, 0.1));
  s.add(outcome("b", k256gcol, "exact", CellStatus::not_applicable, 0, 0, "group 32 is not implemented"));
  s.add(outcome("c", k256gcol, "exact", CellStatus::not_applicable, 0, 0, "group 32 is not implemented"));
  s.add(outcome("d", k256gcol, "special", CellStatus::not_applicable, 0, 0, "only the marlin contract"));
  EXPECT_TRUE(s.passed()) << "n/a is not a failure";
  std::ostringstream out;
  s.print(out);
  const std::string text = out.str();
  EXPECT_NE(text.find("4 cells: 1 pass, 0 fail, 0 fault, 0 hang, 3 n/a, 0 error\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  n/a 2 cells: group 32 is not implemented\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  n/a 1 cells: only the marlin contract\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("n/a " + s.outcomes()[1].cell.name()), std::string::npos) << "n/a cells are not listed one by one";
  EXPECT_NE(text.find("256x64 gcol"), std::string::npos);
}

TEST(Summary, AHangFailsTheRunAndShowsInItsTableCell) {
  Summary s;
  s.add(outcome("a", k128g128, "M<=16", CellStatus::pass, 1, 0.1));
  s.add(outcome("b", k256gcol, "exact", CellStatus::hang, 0, 0, "HANG: no result within 30 s"));
  EXPECT_FALSE(s.passed());
  std::ostringstream out;
  s.print(out);
  const std::string text = out.str();
  EXPECT_NE(text.find("HANG 1"), std::string::npos) << text;
  EXPECT_NE(text.find("  HANG " + s.outcomes()[1].cell.name() + ": HANG: no result within 30 s\n"), std::string::npos)
      << text;
}

}  // namespace
}  // namespace tc
