// The perturbation tier end to end (label perturb): `tilecheck perturb` on one kernel library over
// the reduced matrix within a time budget, and what it must find there. ctest registers one process
// per library (tests/suite/CMakeLists.txt), with
//   TC_KERNEL            the library
//   TC_PERTURB_EXPECT    clean: every round of every cell passes (n/a aside);
//                        caught: some round fails, by its numbers (FAIL, not FAULT/HANG/ERROR)
//   TC_PERTURB_CAUGHT_IN with caught: space-separated regexes, each matching a cell that failed so
//   TC_PERTURB_ARGS      more options (--rounds, --filter, --time-budget, ...)
// Skipped, saying why, without a GPU.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/run_command.h"
#include "common/temp_dir.h"
#include "tilecheck/suite/device_case.h"

namespace tc {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::vector<std::string> split(const std::string& text, char by) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, by);)
    if (!part.empty()) parts.push_back(part);
  return parts;
}

TEST(PerturbTier, FindsWhatItShouldInTheReducedMatrix) {
  const std::string why = gpu_unavailable_reason();
  if (!why.empty()) GTEST_SKIP() << "no GPU: " << why;
  const std::string kernel = env("TC_KERNEL"), expect = env("TC_PERTURB_EXPECT");
  ASSERT_FALSE(kernel.empty()) << "TC_KERNEL names the library under test";
  ASSERT_TRUE(expect == "clean" || expect == "caught") << "TC_PERTURB_EXPECT='" << expect << "' (clean or caught)";
  TempDir dir;
  const std::string json = dir.file("perturb.json");
  const std::string command = std::string(TC_TILECHECK) + " perturb --kernel " + kernel + " --json " + json +
                              " --errmaps " + dir.file("errmaps") + " " + env("TC_PERTURB_ARGS");
  const test_support::CommandResult r = test_support::run_command(command, dir.path());
  std::cout << command << "\n" << r.out;
  ASSERT_TRUE(r.code == 0 || r.code == 1) << "exit " << r.code << "\n" << r.err;
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in);
  if (expect == "clean") {
    EXPECT_EQ(r.code, 0) << "a clean library fails no round";
    EXPECT_EQ(doc.at("counts").at("rounds_failed"), 0);
    return;
  }
  EXPECT_EQ(r.code, 1);
  std::vector<std::string> caught;  // cells with a round that failed by its numbers
  for (const nlohmann::json& c : doc.at("cells"))
    if (c.at("failed_by").contains("FAIL")) caught.push_back(c.at("cell").get<std::string>());
  EXPECT_FALSE(caught.empty()) << "no round failed by its numbers";
  for (const std::string& pattern : split(env("TC_PERTURB_CAUGHT_IN"), ' ')) {
    const std::regex re(pattern);
    const auto failed_here = [&](const std::string& c) { return std::regex_search(c, re); };
    EXPECT_TRUE(std::any_of(caught.begin(), caught.end(), failed_here))
        << "no cell matching '" << pattern << "' failed by its numbers";
  }
}

}  // namespace
}  // namespace tc
