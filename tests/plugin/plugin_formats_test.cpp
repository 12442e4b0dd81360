// Plugin ABI 2 in the loader (plugin/src/plugin_loader.cpp, tilecheck/plugin/formats.h): a library
// built against the ABI 1 header still loads and is given ABI 1's format only, with abi_version 1
// and the fields it knows where it knows them; a library that lists formats is given exactly the
// problems of those formats, with every ABI 2 field as the caller set it; any other format is
// refused before a call, naming the library and the format; a malformed list is refused at load,
// naming the entry, the field and the value. The two test libraries record what they are given
// (abi_v1_plugin.cpp, abi_v2_plugin.cpp); the test reads it back through dlsym.
#include <dlfcn.h>

#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "abi_v1_record.h"
#include "load_error.h"
#include "tilecheck/core/error.h"
#include "tilecheck/plugin/plugin_loader.h"

namespace tc {
namespace {

// A symbol of a test library, through a handle of our own (the loader's dlopen of the same path
// shares the library, so its globals are the ones the loader's calls write).
template <typename T>
T& test_global(const char* library, const char* name) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw Error(cat("cannot open ", library, ": ", dlerror()));
  void* p = dlsym(handle, name);
  if (p == nullptr) throw Error(cat(library, " does not export ", name));
  return *static_cast<T*>(p);
}

constexpr tc_format kBf16Uint4{TC_DTYPE_BF16, TC_DTYPE_BF16, TC_DTYPE_BF16, TC_WEIGHT_UINT4, 0, 1};
constexpr tc_format kBf16Uint8{TC_DTYPE_BF16, TC_DTYPE_BF16, TC_DTYPE_BF16, TC_WEIGHT_UINT8B128, 0, 1};
constexpr tc_format kFp16Uint4b8ActKpart{TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, 1, 0};

// Distinct stand-ins for device pointers: only their identity matters.
int a_, b_, s_, c_, ws_, stream_, zp_, gidx_, perm_;

// A problem as tilecheck builds one (suite/problem.h): ABI 2, every field set.
tc_problem v2_problem(const tc_format& format) {
  tc_problem p{};
  p.abi_version = TC_PLUGIN_ABI_VERSION;
  p.M = 17, p.N = 256, p.K = 512, p.group = 128;
  p.contract = TC_CONTRACT_FP32;
  p.A = &a_, p.B = &b_, p.scales = &s_, p.C = &c_, p.workspace = &ws_, p.workspace_bytes = 4096;
  p.stream = &stream_;
  p.config = {2, 16, 4, 8};
  p.sms = 33, p.max_par = 4, p.flags = TC_FLAG_SKIP_WORKSPACE_CHECK;
  p.format = format;
  p.bits = weight_bits(format.weight_type);
  p.num_groups = 4;
  p.zero_points = format.weight_type == TC_WEIGHT_UINT4 ? &zp_ : nullptr;
  p.g_idx = format.act_order ? &gidx_ : nullptr;
  p.perm = format.act_order ? &perm_ : nullptr;
  return p;
}

using test_support::load_error;

TEST(PluginFormats, NamesSayDtypeWeightsAndActOrder) {
  EXPECT_EQ(format_name(abi_v1_format()), "fp16-uint4b8");
  EXPECT_EQ(format_name(kBf16Uint4), "bf16-uint4");
  EXPECT_EQ(format_name(kFp16Uint4b8ActKpart), "fp16-uint4b8-act-kpart");
  EXPECT_EQ(format_name({TC_DTYPE_FP16, TC_DTYPE_BF16, TC_DTYPE_FP16, TC_WEIGHT_UINT8B128, 1, 1}),
            "fp16/bf16/fp16-uint8b128-act");
  EXPECT_EQ(abi_v1_refusal(abi_v1_format()), "");
  EXPECT_EQ(abi_v1_refusal(kBf16Uint4),
            "format bf16-uint4: the kernel library's ABI v1 implements fp16/uint4b8 without act-order only");
}

TEST(PluginFormats, AnAbiV1LibraryLoadsAndImplementsAbiV1sFormatOnly) {
  const KernelPlugin k = KernelPlugin::load(TC_ABI_V1_PLUGIN);
  EXPECT_EQ(k.abi_version(), 1);
  EXPECT_FALSE(k.declares_formats());
  ASSERT_EQ(k.formats().size(), 1u);
  EXPECT_TRUE(is_abi_v1_format(k.formats()[0]));
  EXPECT_EQ(k.not_applicable(abi_v1_format()), "");
  EXPECT_EQ(k.not_applicable(kBf16Uint4),
            cat("kernel library ", TC_ABI_V1_PLUGIN, " (plugin ABI 1): ", abi_v1_refusal(kBf16Uint4)));
}

// The fields of ABI 1 arrive where the 1.1 header reads them, with abi_version 1.
TEST(PluginFormats, AnAbiV1LibraryIsGivenAbiV1ProblemsWithTheFieldsItKnows) {
  const KernelPlugin k = KernelPlugin::load(TC_ABI_V1_PLUGIN);
  const AbiV1Record& seen = test_global<AbiV1Record>(TC_ABI_V1_PLUGIN, "tc_test_v1_seen");
  const int before = seen.calls;
  const RunResult r = k.run(v2_problem(abi_v1_format()));
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(seen.calls, before + 1);
  EXPECT_EQ(seen.abi_version, 1);
  EXPECT_EQ(seen.M, 17);
  EXPECT_EQ(seen.N, 256);
  EXPECT_EQ(seen.K, 512);
  EXPECT_EQ(seen.group, 128);
  EXPECT_EQ(seen.contract, TC_CONTRACT_FP32);
  EXPECT_EQ(seen.A, &a_);
  EXPECT_EQ(seen.B, &b_);
  EXPECT_EQ(seen.scales, &s_);
  EXPECT_EQ(seen.C, &c_);
  EXPECT_EQ(seen.workspace, &ws_);
  EXPECT_EQ(seen.workspace_bytes, 4096u);
  EXPECT_EQ(seen.stream, &stream_);
  EXPECT_EQ(seen.m_blocks, 2);
  EXPECT_EQ(seen.n_blocks, 16);
  EXPECT_EQ(seen.k_blocks, 4);
  EXPECT_EQ(seen.group_blocks, 8);
  EXPECT_EQ(seen.sms, 33);
  EXPECT_EQ(seen.max_par, 4);
  EXPECT_EQ(seen.flags, TC_FLAG_SKIP_WORKSPACE_CHECK);
}

TEST(PluginFormats, AnAbiV1LibraryIsNeverCalledWithAnotherFormat) {
  const KernelPlugin k = KernelPlugin::load(TC_ABI_V1_PLUGIN);
  const AbiV1Record& seen = test_global<AbiV1Record>(TC_ABI_V1_PLUGIN, "tc_test_v1_seen");
  const int before = seen.calls;
  for (const tc_format& f : {kBf16Uint4, kBf16Uint8, kFp16Uint4b8ActKpart}) {
    const std::string reason = cat("kernel library ", TC_ABI_V1_PLUGIN, " (plugin ABI 1): ", abi_v1_refusal(f));
    std::size_t bytes = 0;
    RunResult r = k.workspace_size(v2_problem(f), bytes);
    EXPECT_EQ(r.status, TC_ERR_UNSUPPORTED) << format_name(f);
    EXPECT_EQ(r.message, reason);
    r = k.run(v2_problem(f));
    EXPECT_EQ(r.status, TC_ERR_UNSUPPORTED) << format_name(f);
    EXPECT_EQ(r.message, reason);
  }
  EXPECT_EQ(seen.calls, before) << "a problem of another format reached the library";
}

TEST(PluginFormats, AnAbiV2LibraryIsGivenEveryFieldOfAFormatItLists) {
  const KernelPlugin k = KernelPlugin::load(TC_ABI_V2_PLUGIN);
  EXPECT_EQ(k.abi_version(), 2);
  EXPECT_TRUE(k.declares_formats());
  EXPECT_EQ(format_names(k.formats()), "fp16-uint4b8, bf16-uint4, fp16-uint8b128-act, fp16-uint4b8-act-kpart");
  const tc_problem& seen = test_global<tc_problem>(TC_ABI_V2_PLUGIN, "tc_test_v2_seen");
  for (const tc_format& f : k.formats()) {
    const tc_problem sent = v2_problem(f);
    const RunResult r = k.run(sent);
    ASSERT_TRUE(r.ok()) << format_name(f) << ": " << r.message;
    EXPECT_EQ(seen.abi_version, 2);
    EXPECT_TRUE(same_format(seen.format, f)) << format_name(seen.format) << " for " << format_name(f);
    EXPECT_EQ(seen.bits, f.weight_type == TC_WEIGHT_UINT8B128 ? 8 : 4);
    EXPECT_EQ(seen.num_groups, 4);
    EXPECT_EQ(seen.zero_points, sent.zero_points);
    EXPECT_EQ(seen.g_idx, sent.g_idx);
    EXPECT_EQ(seen.perm, sent.perm);
    EXPECT_EQ(seen.A, &a_);
    EXPECT_EQ(seen.B, &b_);
    EXPECT_EQ(seen.scales, &s_);
    EXPECT_EQ(seen.flags, TC_FLAG_SKIP_WORKSPACE_CHECK);
  }
  EXPECT_EQ(seen.zero_points, nullptr) << "the last format listed has no zero points";
}

TEST(PluginFormats, AFormatAnAbiV2LibraryDoesNotListIsNotApplicable) {
  const KernelPlugin k = KernelPlugin::load(TC_ABI_V2_PLUGIN);
  int& calls = test_global<int>(TC_ABI_V2_PLUGIN, "tc_test_v2_calls");
  const int before = calls;
  const std::string reason = cat("kernel library ", TC_ABI_V2_PLUGIN, " does not list format bf16-uint8b128 (it lists ",
                                 "fp16-uint4b8, bf16-uint4, fp16-uint8b128-act, fp16-uint4b8-act-kpart)");
  EXPECT_EQ(k.not_applicable(kBf16Uint8), reason);
  std::size_t bytes = 0;
  RunResult r = k.workspace_size(v2_problem(kBf16Uint8), bytes);
  EXPECT_EQ(r.status, TC_ERR_UNSUPPORTED);
  EXPECT_EQ(r.message, reason);
  r = k.run(v2_problem(kBf16Uint8));
  EXPECT_EQ(r.status, TC_ERR_UNSUPPORTED);
  EXPECT_EQ(r.message, reason);
  EXPECT_EQ(calls, before);
}

// A problem built by hand as ABI 1 built it (abi_version 1, or 2 with the format left zero) is ABI
// 1's format: the library is given it with its ABI 2 fields filled in.
TEST(PluginFormats, AProblemBuiltByHandIsAbiV1sFormat) {
  const KernelPlugin k = KernelPlugin::load(TC_ABI_V2_PLUGIN);
  const tc_problem& seen = test_global<tc_problem>(TC_ABI_V2_PLUGIN, "tc_test_v2_seen");
  for (int version : {1, 2}) {
    tc_problem p{};
    p.abi_version = version;
    p.M = 1, p.N = 64, p.K = 256, p.group = 64;
    const RunResult r = k.run(p);
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(seen.abi_version, 2);
    EXPECT_TRUE(is_abi_v1_format(seen.format)) << format_name(seen.format);
    EXPECT_EQ(seen.bits, 4);
    EXPECT_EQ(seen.num_groups, 4);
  }
}

class MalformedFormats : public ::testing::Test {
 protected:
  void TearDown() override {
    test_global<int>(TC_ABI_V2_PLUGIN, "tc_test_formats_case") = 0;
    test_global<int>(TC_ABI_V2_PLUGIN, "tc_test_abi_version") = TC_PLUGIN_ABI_VERSION;
  }
};

TEST_F(MalformedFormats, AreRefusedAtLoadNamingTheLibraryTheEntryAndTheValue) {
  const std::pair<int, const char*> cases[] = {
      {1, "lists format 1 in tc_plugin_formats with weight_type=7 (expected TC_WEIGHT_UINT4B8=1, "
          "TC_WEIGHT_UINT4=2 or TC_WEIGHT_UINT8B128=3)"},
      {2, "lists count=0 formats in tc_plugin_formats (expected 1 or more"},
      {3, "lists count=4 formats in tc_plugin_formats but returns NULL"},
      {4, "lists format 2 in tc_plugin_formats with is_k_full=0 without act_order"},
      {5, "lists format 0 in tc_plugin_formats with a_dtype=0 (expected TC_DTYPE_FP16=1 or TC_DTYPE_BF16=2)"},
  };
  for (const auto& [which, words] : cases) {
    test_global<int>(TC_ABI_V2_PLUGIN, "tc_test_formats_case") = which;
    const std::string message = load_error(TC_ABI_V2_PLUGIN);
    EXPECT_NE(message.find(cat("kernel library ", TC_ABI_V2_PLUGIN, " ", words)), std::string::npos)
        << "case " << which << ": " << message;
  }
}

TEST_F(MalformedFormats, AVersionOutsideTheAbisOrFormatsUnderAbiV1AreRefused) {
  int& version = test_global<int>(TC_ABI_V2_PLUGIN, "tc_test_abi_version");
  version = 3;
  std::string message = load_error(TC_ABI_V2_PLUGIN);
  EXPECT_NE(message.find("implements plugin ABI 3; tilecheck loads ABI 1 to 2"), std::string::npos) << message;
  version = 1;
  message = load_error(TC_ABI_V2_PLUGIN);
  EXPECT_NE(message.find("says abi_version 1 but exports tc_plugin_formats (ABI 2)"), std::string::npos) << message;
}

}  // namespace
}  // namespace tc
