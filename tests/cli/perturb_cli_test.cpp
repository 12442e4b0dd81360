// `tilecheck perturb` through the binary, where no GPU is needed: its help, the options it refuses
// (exit 2, one line naming the value and what was expected) before any work starts, and what it
// says on a machine without a GPU. Its GPU run: tests/suite/perturb_tier_gpu_test.cpp (label perturb).
#include <string>

#include <gtest/gtest.h>

#include "common/run_command.h"
#include "common/temp_dir.h"
#include "tilecheck/suite/device_case.h"

namespace tc {
namespace {

class PerturbCli : public ::testing::Test {
 protected:
  test_support::CommandResult tilecheck(const std::string& args) const {
    return test_support::run_command(std::string(TC_TILECHECK) + " perturb " + args, dir_.path());
  }
  TempDir dir_;
};

TEST_F(PerturbCli, HelpNamesEveryOptionAndTheExitStatuses) {
  const auto r = tilecheck("--help");
  EXPECT_EQ(r.code, 0) << r.err;
  for (const char* option : {"--kernel", "--matrix", "--filter", "--contract", "--rounds", "--seed", "--noise-limit-ms",
                             "--time-budget", "--device", "--cell-timeout", "--json", "--errmaps", "--schedule"})
    EXPECT_NE(r.out.find(option), std::string::npos) << option << "\n" << r.out;
  EXPECT_NE(r.out.find("Exit status: 0 every round of every cell ran and passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tc_kernel_set_delay_seed"), std::string::npos) << r.out;
}

TEST_F(PerturbCli, RefusesBadOptionsNamingTheValue) {
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"--rounds 0", "--rounds: Value 0 not in range 1 to 100000"},
      {"--rounds many", "--rounds"},
      {"--noise-limit-ms 0", "--noise-limit-ms: '0' is not a number of milliseconds in (0, 1000]"},
      {"--noise-limit-ms nan", "--noise-limit-ms: 'nan' is not a number of milliseconds in (0, 1000]"},
      {"--noise-limit-ms 1001", "--noise-limit-ms: '1001' is not a number of milliseconds in (0, 1000]"},
      {"--seed -3", "--seed"},
      {"--time-budget -1", "--time-budget: '-1' is not a number of seconds"},
      {"--matrix big", "--matrix: big not in {reduced,committed,all}"},
      {"--contract fp8", "--contract: fp8 not in {marlin,fp32,all}"},
      {"--device -1", "--device"},
      {"--schedule exact", "--schedule"},
      {"--filter '('", "--filter '(' is not a valid regular expression"},
      {"--kernel /no/such/libkernel.so", "/no/such/libkernel.so"},
      {"--json /no/such/dir/perturb.json", "/no/such/dir"},
  };
  for (const auto& c : cases) {
    const auto r = tilecheck(c.args);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": expected '" << c.message << "' in\n" << r.err;
  }
}

TEST_F(PerturbCli, SaysItNeedsAGpuWhereThereIsNone) {
  const std::string why = gpu_unavailable_reason();
  if (why.empty()) GTEST_SKIP() << "this machine has a GPU: the perturb label runs the tier";
  const auto r = tilecheck("--rounds 2 --json " + dir_.file("perturb.json"));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("tilecheck: error: tilecheck perturb runs kernels on a GPU, and there is none here: " + why),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty()) << "nothing started: " << r.out;
}

}  // namespace
}  // namespace tc
