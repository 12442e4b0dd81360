// The host API rejects every invalid problem with a status and a message naming the value, before
// touching the GPU — so these run anywhere, with fake device pointers.
#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "tilecheck/core/error.h"

namespace tc {
namespace {

tc_problem valid_problem() {
  alignas(16) static char fake[64];
  tc_problem q{};
  q.abi_version = TC_PLUGIN_ABI_VERSION;
  q.M = 16, q.N = 256, q.K = 512, q.group = 128;
  q.contract = TC_CONTRACT_FP32;
  q.A = q.B = q.scales = fake;
  q.C = fake;
  q.workspace = fake;
  q.workspace_bytes = 1 << 30;
  q.sms = 4;
  q.config = {1, 16, 4, 8};
  return q;
}

struct Rejection {
  const char* name;
  void (*mutate)(tc_problem&);
  tc_status status;
  const char* message_part;
};

void PrintTo(const Rejection& r, std::ostream* out) { *out << r.name; }

class KernelApiRejects : public ::testing::TestWithParam<Rejection> {};

TEST_P(KernelApiRejects, WithAStatusAndAMessageNamingTheValue) {
  const KernelPlugin& kernel = test_support::kernel_under_test();
  tc_problem q = valid_problem();
  GetParam().mutate(q);
  const RunResult r = kernel.run(q);
  EXPECT_EQ(r.status, GetParam().status) << r.message;
  EXPECT_NE(r.message.find(GetParam().message_part), std::string::npos) << r.message;
}

const Rejection kRejections[] = {
    {"WrongAbi", [](tc_problem& q) { q.abi_version = 99; }, TC_ERR_INVALID_ARGUMENT, "abi_version=99"},
    {"ZeroM", [](tc_problem& q) { q.M = 0; }, TC_ERR_INVALID_ARGUMENT, "M=0"},
    {"NegativeN", [](tc_problem& q) { q.N = -64; }, TC_ERR_INVALID_ARGUMENT, "N=-64"},
    {"NNotMultipleOf64", [](tc_problem& q) { q.N = 96; }, TC_ERR_INVALID_ARGUMENT, "N=96"},
    {"KNotMultipleOf16", [](tc_problem& q) { q.K = 520; }, TC_ERR_INVALID_ARGUMENT, "K=520"},
    {"KNotMultipleOfGroup", [](tc_problem& q) { q.K = 576; }, TC_ERR_INVALID_ARGUMENT, "group size 128"},
    {"BadGroup", [](tc_problem& q) { q.group = 48; }, TC_ERR_INVALID_ARGUMENT, "group size 48"},
    {"BadContract", [](tc_problem& q) { q.contract = static_cast<tc_contract>(7); }, TC_ERR_INVALID_ARGUMENT, "contract=7"},
    {"NegativeSms", [](tc_problem& q) { q.sms = -1; }, TC_ERR_INVALID_ARGUMENT, "sms=-1"},
    {"NegativeMaxPar", [](tc_problem& q) { q.max_par = -2; }, TC_ERR_INVALID_ARGUMENT, "max_par=-2"},
    {"NullA", [](tc_problem& q) { q.A = nullptr; }, TC_ERR_INVALID_ARGUMENT, "A is NULL"},
    {"NullWorkspace", [](tc_problem& q) { q.workspace = nullptr; }, TC_ERR_INVALID_ARGUMENT, "workspace is NULL"},
    {"MisalignedC", [](tc_problem& q) { q.C = static_cast<char*>(q.C) + 2; }, TC_ERR_INVALID_ARGUMENT, "not 16-byte aligned"},
    {"MisalignedScales", [](tc_problem& q) { q.scales = static_cast<const char*>(q.scales) + 8; }, TC_ERR_INVALID_ARGUMENT, "scales at"},
    {"SmallWorkspace", [](tc_problem& q) { q.workspace_bytes = 16; }, TC_ERR_WORKSPACE, "workspace has 16 bytes"},
    {"TileWiderThanN", [](tc_problem& q) { q.N = 128; }, TC_ERR_INVALID_ARGUMENT, "tile width 256"},
    {"GroupMismatch", [](tc_problem& q) { q.group = 64; }, TC_ERR_INVALID_ARGUMENT, "group_blocks=8"},
    {"NoSuchMBlocks", [](tc_problem& q) { q.config.m_blocks = 5; }, TC_ERR_UNSUPPORTED, "m5n16k4g8"},
    {"NoSuchTile", [](tc_problem& q) { q.config.n_blocks = 4, q.config.k_blocks = 16; }, TC_ERR_UNSUPPORTED, "m1n4k16g8"},
    {"NoTileFitsAutomatically", [](tc_problem& q) { q.config = {}; q.N = 192; q.group = -1; }, TC_ERR_UNSUPPORTED, "N=192"},
};

INSTANTIATE_TEST_SUITE_P(Invalid, KernelApiRejects, ::testing::ValuesIn(kRejections),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

TEST(KernelApi, DescribesItselfAndSizesItsWorkspace) {
  const KernelPlugin& kernel = test_support::kernel_under_test();
  EXPECT_EQ(kernel.info().abi_version, TC_PLUGIN_ABI_VERSION);
  EXPECT_EQ(kernel.info().config_count, 32);
  EXPECT_TRUE(kernel.can_trace());
  tc_problem q = valid_problem();
  size_t fp32 = 0, marlin = 0;
  ASSERT_TRUE(kernel.workspace_size(q, fp32).ok());
  q.contract = TC_CONTRACT_MARLIN;
  ASSERT_TRUE(kernel.workspace_size(q, marlin).ok());
  EXPECT_EQ(marlin, 256u);                       // locks only: N/256 * 16 ints, rounded to 256 bytes
  EXPECT_EQ(fp32, 256u + 4u * 16 * 256 * 4);     // plus one fp32 tile per block
  size_t unused = 0;
  q.M = -1;
  EXPECT_EQ(kernel.workspace_size(q, unused).status, TC_ERR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace tc
