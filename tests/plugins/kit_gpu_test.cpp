// The misbehaving kit on the GPU: `tilecheck run` and `tilecheck bench` on each kit library report
// every victim cell exactly (FAULT with the CUDA error, HANG, n/a with the library's words, FAIL,
// FAULT with the signal and the library's frame, FAIL naming the dirty lock, the scratch read, the
// row past M), every other cell still gets its verdict (all of them pass, since the kit forwards
// them to our kernel), and every run ends within its budget.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/gpu_test.h"
#include "common/run_command.h"
#include "kit_test_support.h"
#include "misbehaving_plugin.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

namespace fs = std::filesystem;
using tc_kit::Behaviour;

// A slice of the matrix: the victim's configurations and two bystanders, grouped (m1n8k8g8) and
// per-column (m2n16k4gcol), which are no kit's victim, at grid sizes 3 and 7 (every small and medium
// case has both).
std::string run_filter(const tc_kit::Victim& v) {
  const tc_tile_config& c = v.config;
  const std::string victim = c.m_blocks == 0 ? cat("m[0-9]n[0-9]+k[0-9]+g", c.group_blocks)
                                             : name(TileConfig{c.m_blocks, c.n_blocks, c.k_blocks, c.group_blocks});
  return cat("_(", victim, "|m1n8k8g8|m2n16k4gcol)_.*_sms(3|7)$");
}
// Seconds a kit library's run of that slice may take: the watchdog adapts to the completed cells
// (WatchdogTimes::kFloor at least) and a configuration is given up after 2 hangs or 3 faults in a row.
constexpr double kRunBudget = 90;

using tc_kit::library;
using tc_kit::scratch;

class KitRun : public ::testing::TestWithParam<tc_kit::Victim> {};

TEST_P(KitRun, ReportsTheVictimExactlyAndJudgesEveryOtherCell) {
  TC_REQUIRE_GPU();
  const tc_kit::Victim& v = GetParam();
  const fs::path dir = scratch(std::string(v.variant));
  const auto start = std::chrono::steady_clock::now();
  const test_support::CommandResult r = test_support::run_command(
      cat(TC_TILECHECK, " run --kernel ", library(v), " --committed --filter '", run_filter(v), "' --cell-timeout 10 --json ",
          (dir / "cells.json").string(), " --errmaps ", (dir / "maps").string()),
      dir);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LE(seconds, kRunBudget) << v.variant << ": the run took " << seconds << " s\n" << r.err;
  std::printf("%s: tilecheck run took %.1f s\n", v.variant, seconds);
  EXPECT_EQ(r.code, v.behaviour == Behaviour::unsupported ? 0 : 1) << r.out << r.err;
  std::ifstream in(dir / "cells.json");
  ASSERT_TRUE(in.good()) << "no --json file\n" << r.out << r.err;
  const nlohmann::json doc = nlohmann::json::parse(in);
  int victims = 0, first_faults = 0;
  std::map<std::string, int> statuses;
  for (const nlohmann::json& cell : doc["cells"]) {
    const TileConfig c = parse_config(cell["config"].get<std::string>());
    const tc_tile_config abi{c.m_blocks, c.n_blocks, c.k_blocks, c.group_blocks};
    const int contract = cell["contract"] == "marlin" ? TC_CONTRACT_MARLIN : TC_CONTRACT_FP32;
    const std::string status = cell["status"], message = cell["message"], name = cell["cell"];
    ++statuses[status];
    if (!tc_kit::matches(v, abi, contract)) {
      EXPECT_EQ(status, "pass") << name << ": " << message;
      continue;
    }
    ++victims;
    const bool not_run = message.rfind("not run: configuration ", 0) == 0;
    switch (v.behaviour) {
      case Behaviour::trap:
        if (tc_kit::declines(v, abi, contract)) {  // n/a, also once the configuration is not launched
          --victims;
          EXPECT_EQ(status, "n/a") << name << ": " << message;
          EXPECT_EQ(message, tc_kit::kTrapDeclines) << name;
          break;
        }
        EXPECT_EQ(status, "FAULT") << name;
        if (!not_run) {
          EXPECT_NE(message.find("cudaError"), std::string::npos) << name << ": " << message;
        }
        first_faults += !not_run;
        break;
      case Behaviour::hang:
        EXPECT_EQ(status, "HANG") << name << ": " << message;
        if (not_run) {
          EXPECT_EQ(message, "not run: configuration m2n16k4g8 hung 2 times") << name;
        } else {
          EXPECT_NE(message.find("(watchdog: "), std::string::npos) << name << ": " << message;
        }
        first_faults += !not_run;
        break;
      case Behaviour::unsupported:
        EXPECT_EQ(status, "n/a") << name;
        EXPECT_EQ(message, "the misbehaving kit implements no group-32 fp32 cell") << name;
        break;
      case Behaviour::wrong_tile:
        EXPECT_EQ(status, "FAIL") << name << ": " << message;
        EXPECT_LE(cell["bound"].get<long long>() + cell["nonfinite"].get<long long>(), 16 * 64)
            << name << ": only tile (0, 0)'s first 16 x 64 elements were spoiled";
        break;
      case Behaviour::crash:
        EXPECT_EQ(status, "FAULT") << name;
        if (!not_run) {
          EXPECT_NE(message.find("signal 11"), std::string::npos) << name << ": " << message;
          EXPECT_NE(message.find("libtc_kit_crash.so"), std::string::npos) << name << ": " << message;
        }
        first_faults += !not_run;
        break;
      case Behaviour::dirty_lock:  // the output is right; the lock it left fails the cell, and only it
        EXPECT_EQ(status, "FAIL") << name << ": " << message;
        EXPECT_EQ(message.rfind(tc_kit::kDirtyLockFinding, 0), 0u) << name << ": " << message;
        EXPECT_EQ(cell["bound"].get<long long>() + cell["nonfinite"].get<long long>(), 0) << name;
        break;
      case Behaviour::scratch_reader:  // the poisoned scratch (a NaN) reaches C[0]
        if (name.rfind("specials_", 0) == 0 && status == "pass") break;  // C[0] is a NaN there anyway
        EXPECT_EQ(status, "FAIL") << name << ": " << message;
        EXPECT_EQ(cell["nonfinite"].get<long long>(), 1) << name << ": " << message;
        EXPECT_EQ(cell["bound"].get<long long>(), 0) << name << ": " << message;
        break;
      case Behaviour::row_past_m:
        EXPECT_EQ(status, "FAIL") << name << ": " << message;
        EXPECT_EQ(cell["guard"].get<long long>(), 8) << name << ": " << message;
        EXPECT_NE(cell["hints"].dump().find("row_predication"), std::string::npos) << name << ": " << cell["hints"];
        break;
    }
  }
  EXPECT_GT(victims, 0) << "the filter reaches no victim cell";
  if (v.behaviour == Behaviour::trap || v.behaviour == Behaviour::crash) {
    EXPECT_EQ(first_faults, std::min(victims, 3)) << "after three faults in a row the configuration is not run";
  }
  if (v.behaviour == Behaviour::hang) {
    EXPECT_EQ(first_faults, std::min(victims, 2)) << "after two hangs the configuration is not run";
  }
  EXPECT_GT(statuses["pass"], 0) << r.out;
}

class KitBench : public ::testing::TestWithParam<tc_kit::Victim> {};

TEST_P(KitBench, TheVictimIsARowOfItsOwnAndTheOthersAreTimed) {
  TC_REQUIRE_GPU();
  const tc_kit::Victim& v = GetParam();
  if (v.behaviour >= Behaviour::wrong_tile && v.behaviour != Behaviour::crash)
    GTEST_SKIP() << "bench does not judge outputs or workspaces";
  const fs::path dir = scratch(std::string("bench_") + v.variant);
  const TileConfig victim = v.config.m_blocks == 0 ? TileConfig{1, 8, 8, v.config.group_blocks}
                                                   : TileConfig{v.config.m_blocks, v.config.n_blocks,
                                                                v.config.k_blocks, v.config.group_blocks};
  const std::string contract = v.contract == TC_CONTRACT_FP32 ? "fp32" : "marlin";
  const test_support::CommandResult r = test_support::run_command(
      // The hang's child waits out --config-timeout; the bystander's child took 3 s among 16 test processes.
      cat(TC_TILECHECK, " bench --kernel ", library(v), " --config ", name(victim), " --config m1n8k8g8 -K 1024 -N 1024 ",
          "--repeats 3 --rotate-mb 16 --no-cublas --config-timeout ", v.behaviour == Behaviour::hang ? 12 : 20,
          " --contract ", contract),
      dir);
  const std::string want = v.behaviour == Behaviour::hang ? "HANG: " : v.behaviour == Behaviour::unsupported ? "n/a: " : "FAULT: ";
  EXPECT_NE(r.out.find(name(victim) + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(want), std::string::npos) << r.out << r.err;
  if (v.behaviour == Behaviour::crash) {
    EXPECT_NE(r.out.find("signal 11"), std::string::npos) << r.out;
  }
  EXPECT_NE(r.out.find("m1n8k8g8     " + std::string(v.variant)), std::string::npos) << "the bystander is timed\n" << r.out;
  EXPECT_EQ(r.code, v.behaviour == Behaviour::unsupported ? 0 : 1) << r.out << r.err;
}

// Two libraries timed together on a configuration that one of them declines or faults on: the
// other still gets its row (a fault ends the shared process, so each library is then timed alone)
// and the spoiler is named in a row of its own.
TEST(KitBenchTogether, TheOtherLibraryIsTimedAndTheSpoilerNamed) {
  TC_REQUIRE_GPU();
  const fs::path dir = scratch("bench_together");
  const std::string ours = (fs::path(TC_KIT_DIR) / "libtc_kernel_upstream.so").string();
  const auto timed = [](const std::string& out, const std::string& config) {  // a row of ours with a time
    const std::regex row(config + R"( +upstream +16 +1024 +1024 .* \d+\.\d+ +\d+%)");
    return std::regex_search(out, row);
  };
  struct Case {
    Behaviour behaviour;
    const char* config;
    const char* contract;
    const char* want;  // the spoiler's row
    int code;
  };
  for (const Case& c : {Case{Behaviour::unsupported, "m1n8k8g2", "fp32", "m1n8k8g2     kit-unsupported n/a: ", 0},
                        Case{Behaviour::trap, "m1n8k8g4", "marlin", "m1n8k8g4     kit-trap   FAULT: ", 1}}) {
    const tc_kit::Victim& v = tc_kit::kVictims[static_cast<int>(c.behaviour) - 1];
    const test_support::CommandResult r = test_support::run_command(
        cat(TC_TILECHECK, " bench --kernel ", ours, " --kernel ", library(v), " --config ", c.config,
            " -K 1024 -N 1024 --repeats 3 --rotate-mb 16 --no-cublas --config-timeout 20 --contract ", c.contract),
        dir);
    EXPECT_TRUE(timed(r.out, c.config)) << "ours is timed\n" << r.out << r.err;
    EXPECT_NE(r.out.find(c.want), std::string::npos) << r.out << r.err;
    EXPECT_EQ(r.code, c.code) << r.out << r.err;
    if (c.behaviour == Behaviour::trap) {
      EXPECT_NE(r.out.find("each library alone (not interleaved)"), std::string::npos) << r.out;
    }
  }
}

// `tilecheck tiles` runs one cell live: the victim's fault, crash or hang is that cell's verdict.
TEST(KitTiles, AVictimCellIsItsFaultOrHangAndABystanderIsJudged) {
  TC_REQUIRE_GPU();
  const fs::path dir = scratch("tiles");
  struct Case {
    Behaviour behaviour;
    const char* fixture;
    const char* config;
    const char* want;
  };
  for (const Case& c : {Case{Behaviour::trap, "normal_m16_n256_k256_g64_marlin", "m1n8k8g4", "FAULT m1n8k8g4: FAULT: cudaError"},
                        Case{Behaviour::crash, "constant_m16_n256_k128_gcol_marlin", "m4n16k4gcol",
                             "FAULT m4n16k4gcol: FAULT: the worker died of signal 11"},
                        Case{Behaviour::hang, "constant_m16_n256_k128_g128_marlin", "m2n16k4g8", "HANG m2n16k4g8: HANG: "}}) {
    const tc_kit::Victim& v = tc_kit::kVictims[static_cast<int>(c.behaviour) - 1];
    const test_support::CommandResult victim = test_support::run_command(
        cat(TC_TILECHECK, " tiles --kernel ", library(v), " --case ", c.fixture, " --config ", c.config,
            " --sms 3 --cell-timeout ", c.behaviour == Behaviour::hang ? 2 : 5),  // a trap's error can be 2 s late
        dir);
    EXPECT_EQ(victim.code, 1) << victim.out << victim.err;
    EXPECT_NE(victim.out.find(c.want), std::string::npos) << victim.out << victim.err;
  }
  const test_support::CommandResult bystander = test_support::run_command(
      cat(TC_TILECHECK, " tiles --kernel ", library(tc_kit::kVictims[0]),
          " --case constant_m16_n256_k128_g128_marlin --config m1n8k8g8 --sms 3"),
      dir);
  EXPECT_EQ(bystander.code, 0) << bystander.out << bystander.err;
  EXPECT_NE(bystander.out.find("tile ("), std::string::npos) << bystander.out;
}

// The kit registered as external kernels (-DTC_EXTERNAL_KERNELS, scripts/gpu-suite.sh --kit-ctest):
// ctest's process for each victim configuration fails and every bystander's passes.
TEST(KitCtest, EachVictimProcessFailsAndEveryOtherPasses) {
  TC_REQUIRE_GPU();
#ifndef TC_KIT_REGISTERED
  GTEST_SKIP() << "the kit is not registered in this build's ctest: configure with "
                  "-DTC_EXTERNAL_KERNELS=<the eight libtc_kit_*.so> (scripts/gpu-suite.sh --kit-ctest)";
#else
  const fs::path dir = scratch("ctest");
  const std::string configs = "(m1n8k8g4|m2n16k4g8|m1n8k8g2|m1n8k8gcol|m4n16k4gcol|m1n8k8g8|m1n16k4g8|m2n8k8gcol|"
                              "m1n16k4gcol)";
  const test_support::CommandResult r = test_support::run_command(
      cat(TC_CTEST, " --test-dir ", TC_BUILD_DIR, " -j 8 -R '^suite_gpu[.]tc_kit_[a-z_]+[.]", configs, "$'"), dir);
  int seen = 0;
  for (const tc_kit::Victim& v : tc_kit::kVictims) {
    std::string kit = v.variant + 4;
    for (char& ch : kit) ch = ch == '-' ? '_' : ch;
    for (const char* config : {"m1n8k8g4", "m2n16k4g8", "m1n8k8g2", "m1n8k8gcol", "m4n16k4gcol", "m1n8k8g8",
                               "m1n16k4g8", "m2n8k8gcol", "m1n16k4gcol"}) {
      const TileConfig c = parse_config(config);
      const bool victim = v.behaviour != Behaviour::unsupported &&
                          tc_kit::matches(v, {c.m_blocks, c.n_blocks, c.k_blocks, c.group_blocks}, v.contract);
      const std::regex line("suite_gpu[.]tc_kit_" + kit + "[.]" + config + " [.]+[*]* *" + (victim ? "Failed" : "Passed"));
      EXPECT_TRUE(std::regex_search(r.out, line)) << kit << " " << config << (victim ? " must fail" : " must pass")
                                                   << "\n" << r.out;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 72);
#endif
}

INSTANTIATE_TEST_SUITE_P(Kit, KitRun, ::testing::ValuesIn(tc_kit::kVictims), tc_kit::victim_name);
INSTANTIATE_TEST_SUITE_P(Kit, KitBench, ::testing::ValuesIn(tc_kit::kVictims), tc_kit::victim_name);

}  // namespace
}  // namespace tc
