// A fixture's operands as plugin ABI 2 lays them out (tilecheck/suite/kernel_operands.h), the ABI 2
// fields of the plugin problem, and which cells a library can run (format_not_applicable,
// SuiteRunner::execute): a format a library does not implement is n/a with one reason, before
// the device; a library that lists the format gets every buffer uploaded (on a GPU only).
#include "tilecheck/suite/kernel_operands.h"

#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "tilecheck/core/error.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/plugin/formats.h"
#include "tilecheck/reference/marlin_format.h"
#include "tilecheck/reference/marlin_format_8bit.h"
#include "tilecheck/reference/zero_points.h"
#include "tilecheck/suite/runner.h"

namespace tc {
namespace {

Fixture small_fixture(const std::string& format) {
  return make_fixture(CaseSpec("t", Shape{16, 128, 256, 64}, Contract::marlin, Distribution::normal, 29,
                               parse_format(format)));
}

class OperandsOfEachFormat : public ::testing::TestWithParam<const char*> {};

TEST_P(OperandsOfEachFormat, HoldTheFixturesValuesInTheAbisLayouts) {
  const Fixture f = small_fixture(GetParam());
  const KernelOperands o = kernel_operands(f);
  EXPECT_EQ(o.A, f.A) << "A stays in the original K order";
  EXPECT_EQ(o.scales, f.scales_marlin);
  const CodeMatrix codes = code_bits(f.spec.format.weights) == 8 ? unpack_weights_8bit(o.B) : unpack_weights(o.B);
  EXPECT_EQ(codes, kernel_order_codes(f)) << "B holds the codes in the kernel's row order";
  EXPECT_EQ(o.B.cols(), 2 * f.spec.shape.N * code_bits(f.spec.format.weights) / 4);
  if (has_zero_points(f.spec.format.weights)) {
    EXPECT_EQ(unpack_zero_points(o.zero_points), f.zero_points);
  } else {
    EXPECT_EQ(o.zero_points.size(), 0);
  }
  if (f.spec.format.act_order == ActOrder::none) {
    EXPECT_TRUE(o.g_idx.empty() && o.perm.empty());
    return;
  }
  ASSERT_EQ(o.perm, f.perm);
  ASSERT_EQ(o.g_idx.size(), f.g_idx.size());
  for (size_t i = 0; i < o.g_idx.size(); ++i) {
    EXPECT_EQ(o.g_idx[i], f.g_idx[static_cast<size_t>(f.perm[i])]) << "row " << i;
    if (i > 0) {
      EXPECT_LE(o.g_idx[i - 1], o.g_idx[i]) << "sorted at row " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, OperandsOfEachFormat,
                         ::testing::Values("fp16-uint4b8", "bf16-uint4b8", "fp16-uint4", "bf16-uint4", "fp16-uint8b128",
                                           "bf16-uint8b128", "fp16-uint4b8-actrandom", "fp16-uint4b8-actworst-kpart",
                                           "bf16-uint4-actrandom", "fp16-uint8b128-actworst-kpart"),
                         [](const ::testing::TestParamInfo<const char*>& p) {
                           std::string n = p.param;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

TEST(PluginFormat, ActOrdersPermutationIsNotPartOfTheFormat) {
  for (const char* text : {"fp16-uint4b8-actrandom", "fp16-uint4b8-actworst"})
    EXPECT_EQ(format_name(plugin_format(parse_format(text))), "fp16-uint4b8-act") << text;
  EXPECT_EQ(format_name(plugin_format(parse_format("bf16-uint8b128-actworst-kpart"))), "bf16-uint8b128-act-kpart");
  EXPECT_TRUE(is_abi_v1_format(plugin_format(FixtureFormat{})));
}

TEST(MakeProblem, AnAbiV2ProblemCarriesItsFormatAndItsBuffers) {
  int a = 0, b = 0, s = 0, c = 0, z = 0, g = 0, p = 0;
  DeviceOperands on{&a, &b, &s, &c, nullptr, 0};
  on.zero_points = &z, on.g_idx = &g, on.perm = &p;
  const tc_problem q =
      make_problem(Shape{16, 128, 512, 128}, Contract::fp32, Launch{}, on, parse_format("bf16-uint4-actrandom"));
  EXPECT_EQ(q.abi_version, TC_PLUGIN_ABI_VERSION);
  EXPECT_EQ(format_name(q.format), "bf16-uint4-act");
  EXPECT_EQ(q.bits, 4);
  EXPECT_EQ(q.num_groups, 4);
  EXPECT_EQ(q.zero_points, &z);
  EXPECT_EQ(q.g_idx, &g);
  EXPECT_EQ(q.perm, &p);
  const tc_problem eight = make_problem(Shape{16, 128, 512, kPerColumn}, Contract::fp32, Launch{}, {},
                                        parse_format("fp16-uint8b128"));
  EXPECT_EQ(eight.bits, 8);
  EXPECT_EQ(eight.num_groups, 1);
  EXPECT_EQ(eight.format.act_order, 0);
  EXPECT_EQ(eight.format.is_k_full, 1);
  const tc_problem v1 = make_problem(Shape{16, 128, 512, 64}, Contract::fp32, Launch{}, {});
  EXPECT_TRUE(is_abi_v1_format(v1.format));
  EXPECT_EQ(v1.zero_points, nullptr);
}

// The committed cases of each format other than ABI 1's (fixtures/catalogue.txt).
std::vector<CatalogueEntry> v2_committed_cases() {
  std::vector<CatalogueEntry> out;
  for (const CatalogueEntry& e : load_catalogue(default_golden_paths().catalogue()).entries)
    if (e.storage == Storage::committed && !is_v1_format(e.spec.format)) out.push_back(e);
  return out;
}

Cell cell_of(const CaseSpec& s) { return Cell{s.id, TileConfig{1, 8, 8, -1}, s.contract, "records", 1}; }

// ABI 1: every case of another format is n/a with abi_v1_not_applicable's sentence, the one the
// matrix's excluded_formats prints, and the library is never called.
TEST(SuiteRunnerFormats, AnAbiV1LibrarysCellsOfOtherFormatsAreNotApplicableWithTheOneReason) {
  const KernelPlugin k = KernelPlugin::load(TC_ABI_V1_PLUGIN);
  SuiteRunner runner(&k, default_golden_paths());
  const std::vector<CatalogueEntry> cases = v2_committed_cases();
  ASSERT_FALSE(cases.empty());
  for (const CatalogueEntry& e : cases) {
    EXPECT_EQ(format_not_applicable(k, e.spec.format), abi_v1_not_applicable(e.spec.format));
    const KernelRun r = runner.execute(cell_of(e.spec));
    EXPECT_EQ(r.status.status, TC_ERR_UNSUPPORTED) << e.spec.id;
    EXPECT_EQ(r.status.message, abi_v1_not_applicable(e.spec.format)) << e.spec.id;
  }
  EXPECT_EQ(format_not_applicable(k, FixtureFormat{}), "");
}

// ABI 2: the formats the library does not list are n/a naming it and the format.
TEST(SuiteRunnerFormats, AnAbiV2LibrarysUnlistedFormatsAreNotApplicableNamingTheFormat) {
  const KernelPlugin k = KernelPlugin::load(TC_ABI_V2_PLUGIN);
  SuiteRunner runner(&k, default_golden_paths());
  int listed = 0, unlisted = 0;
  for (const CatalogueEntry& e : v2_committed_cases()) {
    const std::string reason = format_not_applicable(k, e.spec.format);
    if (reason.empty()) {
      ++listed;
      continue;
    }
    ++unlisted;
    EXPECT_EQ(reason, k.not_applicable(plugin_format(e.spec.format)));
    EXPECT_NE(reason.find(cat("does not list format ", format_name(plugin_format(e.spec.format)))), std::string::npos)
        << reason;
    const KernelRun r = runner.execute(cell_of(e.spec));
    EXPECT_EQ(r.status.status, TC_ERR_UNSUPPORTED) << e.spec.id;
    EXPECT_EQ(r.status.message, reason);
  }
  EXPECT_GT(listed, 0) << "the test library lists bf16-uint4 and act-order formats the catalogue has";
  EXPECT_GT(unlisted, 0);
}

// On a GPU: a library that lists a case's format is given the case's buffers, uploaded as
// kernel_operands lays them out (read back here from the pointers it was given).
TEST(SuiteRunnerFormats, AnAbiV2LibraryIsGivenEveryBufferOfAFormatItLists) {
  const std::string no_gpu = gpu_unavailable_reason();
  if (!no_gpu.empty()) GTEST_SKIP() << no_gpu;
  const KernelPlugin k = KernelPlugin::load(TC_ABI_V2_PLUGIN);
  void* handle = dlopen(TC_ABI_V2_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(handle, nullptr) << dlerror();
  const auto* seen = static_cast<const tc_problem*>(dlsym(handle, "tc_test_v2_seen"));
  ASSERT_NE(seen, nullptr);
  SuiteRunner runner(&k, default_golden_paths());
  int ran = 0;
  for (const CatalogueEntry& e : v2_committed_cases()) {
    if (!format_not_applicable(k, e.spec.format).empty()) continue;
    const KernelRun r = runner.execute(cell_of(e.spec));
    ASSERT_TRUE(r.status.ok()) << e.spec.id << ": " << r.status.message;
    ++ran;
    const KernelOperands o = kernel_operands(runner.fixture(e.spec.id));
    EXPECT_TRUE(same_format(seen->format, plugin_format(e.spec.format))) << e.spec.id;
    EXPECT_EQ(seen->num_groups, static_cast<int>(o.scales.rows()));
    std::vector<int> words(static_cast<size_t>(o.B.size()));
    ASSERT_EQ(cudaMemcpy(words.data(), seen->B, words.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_TRUE(std::equal(words.begin(), words.end(), o.B.data())) << e.spec.id << ": B";
    EXPECT_EQ(seen->zero_points != nullptr, o.zero_points.size() > 0) << e.spec.id;
    if (o.zero_points.size() > 0) {
      words.resize(static_cast<size_t>(o.zero_points.size()));
      ASSERT_EQ(cudaMemcpy(words.data(), seen->zero_points, words.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_TRUE(std::equal(words.begin(), words.end(), o.zero_points.data())) << e.spec.id << ": zero points";
    }
    EXPECT_EQ(seen->g_idx != nullptr, !o.g_idx.empty()) << e.spec.id;
    if (!o.g_idx.empty()) {
      std::vector<int> g(o.g_idx.size()), p(o.perm.size());
      ASSERT_EQ(cudaMemcpy(g.data(), seen->g_idx, g.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(p.data(), seen->perm, p.size() * 4, cudaMemcpyDeviceToHost), cudaSuccess);
      EXPECT_EQ(g, o.g_idx) << e.spec.id;
      EXPECT_EQ(p, o.perm) << e.spec.id;
    }
  }
  EXPECT_GT(ran, 0);
}

}  // namespace
}  // namespace tc
