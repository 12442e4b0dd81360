// One verdict per cell whatever the workflow, and runs that always end, on the misbehaving kit (GPU):
//  - for each kit library, a victim cell and a bystander get from `tilecheck tiles` (live) and from
//    `tilecheck compare` (on the output tiles saved) the verdict and counts `tilecheck run` gave them;
//  - the dirty-lock library's committed matrix (every configuration, grid sizes 3 and 7) ends within
//    2 minutes, its victim cells FAIL naming the lock and every other cell passes (the workspace is
//    zeroed again after each);
//  - a run interrupted with SIGINT keeps a valid --json and prints its summary, and --resume
//    completes it to the counts of an uninterrupted run; a spent --time-budget lists what was not run.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/gpu_test.h"
#include "common/file_bytes.h"
#include "common/run_command.h"
#include "kit_test_support.h"
#include "misbehaving_plugin.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/schedule.h"

namespace tc {
namespace {

namespace fs = std::filesystem;
using tc_kit::Behaviour;
using test_support::CommandResult;
using test_support::run_command;

using tc_kit::library;

fs::path workflow_dir(const std::string& name) { return tc_kit::scratch("workflows_" + name); }

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in.good()) return {};
  return nlohmann::json::parse(in, nullptr, false);
}

std::string config_name(const tc_tile_config& c) { return name(TileConfig{c.m_blocks, c.n_blocks, c.k_blocks, c.group_blocks}); }

// The cell's output as tiles and compare print it: the header line the run's JSON keeps in its message
// (between the workspace finding and the failing tiers, which they print on lines of their own).
std::string header_of(const std::string& message) {
  const std::size_t at = message.find("Mismatched ");
  if (at == std::string::npos) return message;
  const std::size_t end = message.find("; ", at);
  return message.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

class KitWorkflows : public ::testing::TestWithParam<tc_kit::Victim> {};

TEST_P(KitWorkflows, TilesAndCompareGiveTheVerdictRunGave) {
  TC_REQUIRE_GPU();
  const tc_kit::Victim& v = GetParam();
  const fs::path dir = workflow_dir(v.variant);
  const std::string victim = v.config.m_blocks == 0 ? "m1n8k8g2" : config_name(v.config);
  const CommandResult run = run_command(
      // One victim launch is enough here (KitRun checks the fault and hang limits): fewer workers restarted.
      cat(TC_TILECHECK, " run --kernel ", library(v), " --committed --filter '_(", victim, "|m1n8k8g8)_.*_sms3$' ",
          "--cell-timeout 10 --fault-limit 1 --hang-limit 1 --errmaps '' --json ", (dir / "run.json").string()),
      dir);
  const nlohmann::json doc = read_json(dir / "run.json");
  ASSERT_TRUE(doc.contains("cells")) << run.out << run.err;
  // The first victim cell that was launched (not a "not run" after its configuration was given up),
  // and the first bystander.
  const nlohmann::json* picked[2] = {nullptr, nullptr};
  for (const nlohmann::json& cell : doc["cells"]) {
    const bool is_victim = cell["config"] == victim;
    const std::string message = cell["message"];
    if (message.rfind("not run", 0) == 0) continue;
    if (picked[is_victim ? 0 : 1] == nullptr) picked[is_victim ? 0 : 1] = &cell;
  }
  ASSERT_NE(picked[0], nullptr) << "no victim cell in\n" << run.out;
  ASSERT_NE(picked[1], nullptr) << "no bystander in\n" << run.out;
  for (const nlohmann::json* cell : picked) {
    const std::string status = (*cell)["status"], message = (*cell)["message"], name = (*cell)["cell"];
    const std::string args = cat(" --kernel ", library(v), " --case ", (*cell)["case"].get<std::string>(), " --config ",
                                 (*cell)["config"].get<std::string>(), " --sms ", (*cell)["sms"].get<int>());
    const fs::path saved = dir / (name + ".h5");
    // A trapped kernel's error has reached its process more than 2 s late among 16 test processes; a hang
    // is a hang at any watchdog.
    const int watchdog = status == "HANG" ? 2 : 5;
    const CommandResult tiles = run_command(
        cat(TC_TILECHECK, " tiles", args, " --cell-timeout ", watchdog, " --save-output ", saved.string()), dir);
    if (status == "n/a") {  // tiles: a cell the library declines is bad input, in the library's words
      EXPECT_EQ(tiles.code, 2) << name << "\n" << tiles.out << tiles.err;
      EXPECT_NE(tiles.err.find(message), std::string::npos) << name << "\n" << tiles.err;
      continue;
    }
    if (status == "FAULT" || status == "HANG") {  // nothing to judge: the same ending, named the same way
      EXPECT_EQ(tiles.code, 1) << name << "\n" << tiles.out << tiles.err;
      EXPECT_NE(tiles.out.find(status + " " + (*cell)["config"].get<std::string>() + ": "), std::string::npos)
          << name << " was " << status << " in run:\n" << tiles.out << tiles.err;
      continue;
    }
    const int want = status == "pass" ? 0 : 1;
    EXPECT_EQ(tiles.code, want) << name << " was " << status << " in run: " << message << "\n" << tiles.out << tiles.err;
    EXPECT_NE(tiles.out.find(header_of(message)), std::string::npos) << name << ": " << message << "\n" << tiles.out;
    const std::string workspace = (*cell)["workspace"];
    if (!workspace.empty()) {
      EXPECT_NE(tiles.out.find("FAIL " + workspace), std::string::npos) << tiles.out;
    }
    const CommandResult compare = run_command(
        cat(TC_TILECHECK, " compare --fixture ", (*cell)["case"].get<std::string>(), " --output ", saved.string()), dir);
    EXPECT_EQ(compare.code, want) << name << " was " << status << " in run: " << message << "\n"
                                  << compare.out << compare.err;
    EXPECT_NE(compare.out.find(header_of(message)), std::string::npos) << name << ": " << message << "\n"
                                                                       << compare.out;
  }
}

INSTANTIATE_TEST_SUITE_P(Kit, KitWorkflows, ::testing::ValuesIn(tc_kit::kVictims), tc_kit::victim_name);

const tc_kit::Victim& kit(Behaviour b) { return tc_kit::kVictims[static_cast<int>(b) - 1]; }

// Every configuration's committed cells at two of the grid sizes (small and medium cases have both):
// the whole-matrix workflows at a quarter of the cells.
constexpr const char* kTwoGrids = "--filter '_sms(3|7)$'";

// A lock left dirty fails its own cell and no other: tilecheck zeroes the workspace again after it.
TEST(KitWholeMatrix, TheDirtyLockFailsOnlyItsOwnCellsAndTheRunEndsInTwoMinutes) {
  TC_REQUIRE_GPU();
  const tc_kit::Victim& v = kit(Behaviour::dirty_lock);
  const fs::path dir = workflow_dir("dirty_lock_matrix");
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = run_command(cat(TC_TILECHECK, " run --kernel ", library(v), " --committed ", kTwoGrids,
                                          " --errmaps '' --json ", (dir / "run.json").string()),
                                      dir);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("dirty-lock kit, committed matrix at two grid sizes: %.1f s\n", seconds);
  EXPECT_LE(seconds, 120) << r.err;
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  const nlohmann::json doc = read_json(dir / "run.json");
  ASSERT_TRUE(doc.contains("cells")) << r.out;
  int victims = 0;
  for (const nlohmann::json& cell : doc["cells"]) {
    const std::string message = cell["message"], name = cell["cell"];
    if (cell["config"] == config_name(v.config)) {
      ++victims;
      EXPECT_EQ(cell["status"], "FAIL") << name << ": " << message;
      EXPECT_EQ(message.rfind(tc_kit::kDirtyLockFinding, 0), 0u) << name << ": " << message;
    } else {
      EXPECT_TRUE(cell["status"] == "pass" || cell["status"] == "n/a") << name << ": " << cell["status"] << " "
                                                                       << message;
    }
  }
  EXPECT_GT(victims, 10);
  EXPECT_EQ(doc["fail"], victims);
  EXPECT_TRUE(doc["complete"].get<bool>());
}

std::map<std::string, int> counts(const nlohmann::json& doc) {
  std::map<std::string, int> out;
  for (const char* key : {"pass", "fail", "fault", "hang", "n/a", "error", "not run"}) out[key] = doc.value(key, -1);
  return out;
}

// SIGINT, as Ctrl-C sends it (to the run's process group), once a verdict's progress line is out:
// the run stops, prints its summary and leaves a valid JSON whose cells without a verdict are "not
// run"; --resume runs those and the merged counts are an uninterrupted run's. A signal at a fixed time
// raced the run's start when the GPU label's other processes crowded it.
TEST(KitInterruption, AnInterruptedRunKeepsItsResultsAndResumeCompletesIt) {
  TC_REQUIRE_GPU();
  const std::string kernel = library(kit(Behaviour::wrong_tile));  // some cells fail, most pass
  const fs::path dir = workflow_dir("interrupt");
  const std::string common = cat(" run --kernel ", kernel, " --committed ", kTwoGrids, " --errmaps '' --threads 4");
  const CommandResult whole = run_command(cat(TC_TILECHECK, common, " --json ", (dir / "whole.json").string()), dir);
  const nlohmann::json reference = read_json(dir / "whole.json");
  ASSERT_TRUE(reference.contains("cells")) << whole.out << whole.err;

  // `set -m`: the run is a job of its own (a shell script's background job would ignore SIGINT). Its
  // progress comes through a FIFO that the script reads line by line, so the signal follows the first
  // verdict's line within a read, however fast the rest of the run (alone on an H200: a second).
  const std::string part = (dir / "part.json").string();
  const fs::path progress = dir / "progress.txt", fifo = dir / "progress.fifo";
  {
    std::ofstream script(dir / "interrupt.sh");
    script << "set -m\n"
           << "rm -f " << fifo.string() << " && mkfifo " << fifo.string() << " || exit 99\n"
           << TC_TILECHECK << common << " --json " << part << " 2> " << fifo.string() << " &\n"
           << "pid=$!\n"
           << "exec 3< " << fifo.string() << "\n"
           << "while IFS= read -r line <&3; do\n"
           << "  printf '%s\\n' \"$line\" >> " << progress.string() << "\n"
           << "  case $line in '  ['[1-9]*) kill -INT -- -$pid; break ;; esac\n"
           << "done\n"
           << "cat <&3 >> " << progress.string() << "\n"
           << "wait $pid\n";
  }
  // tilecheck keeps a signal ignored that its caller ignores (nohup, a shell's background job), and
  // ignoring is inherited: run from such a caller (a device script's probe) the test saw no interruption.
  // The script starts with SIGINT's default action.
  struct sigaction default_action {}, before {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ASSERT_EQ(sigaction(SIGINT, &default_action, &before), 0);
  const CommandResult stopped = run_command(cat("bash ", (dir / "interrupt.sh").string()), dir);
  sigaction(SIGINT, &before, nullptr);
  const std::string progress_text = file_bytes(progress.string());
  EXPECT_EQ(stopped.code, 128 + 2) << "ended by the signal, after its summary\n"
                                   << stopped.out << stopped.err << progress_text;
  EXPECT_NE(stopped.out.find("tilecheck run: interrupted (signal 2)"), std::string::npos) << stopped.out;
  EXPECT_NE(stopped.out.find(" cells: "), std::string::npos) << "the summary of what ran\n" << stopped.out;
  const nlohmann::json interrupted = read_json(part);
  ASSERT_TRUE(interrupted.contains("cells")) << "no valid JSON after the interruption";
  EXPECT_FALSE(interrupted["complete"].get<bool>());
  EXPECT_GT(interrupted["not run"].get<int>(), 0) << "the run finished before the signal: nothing to resume\n"
                                                 << progress_text;
  EXPECT_GT(interrupted["pass"].get<int>() + interrupted["fail"].get<int>(), 0) << "no verdict before the signal";
  EXPECT_EQ(interrupted["cells"].size(), reference["cells"].size());
  for (const nlohmann::json& cell : interrupted["cells"]) {
    if (cell["status"] != "not run") continue;
    EXPECT_EQ(cell["message"], "not run (interrupted)") << cell["cell"];
  }

  const CommandResult resumed = run_command(cat(TC_TILECHECK, common, " --resume ", part), dir);
  EXPECT_EQ(resumed.code, whole.code) << resumed.out << resumed.err;
  EXPECT_NE(resumed.out.find("resuming " + part), std::string::npos) << resumed.out;
  const nlohmann::json merged = read_json(part);
  ASSERT_TRUE(merged.contains("cells"));
  EXPECT_TRUE(merged["complete"].get<bool>());
  EXPECT_EQ(counts(merged), counts(reference));
}

TEST(KitTimeBudget, ASpentBudgetListsTheCellsNotRun) {
  TC_REQUIRE_GPU();
  const fs::path dir = workflow_dir("budget");
  const CommandResult r = run_command(cat(TC_TILECHECK, " run --kernel ", library(kit(Behaviour::wrong_tile)),
                                          " --committed --errmaps '' --threads 2 --time-budget 2 --json ",
                                          (dir / "run.json").string()),
                                      dir);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("the time budget (2 s) was spent"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not run "), std::string::npos) << r.out;
  const nlohmann::json doc = read_json(dir / "run.json");
  ASSERT_TRUE(doc.contains("cells"));
  EXPECT_FALSE(doc["complete"].get<bool>());
  EXPECT_GT(doc["not run"].get<int>(), 0);
}

}  // namespace
}  // namespace tc
