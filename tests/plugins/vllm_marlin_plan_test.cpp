// The vllm-marlin adapter's host logic on the CPU (plugins/vllm-marlin/vllm_marlin_plan.h): our
// reimplementation of vLLM's instantiation list (generate_kernels.py @ 085fc8b) and of its host code
// (marlin.cu @ 778460c: configuration choice, the cut of M into launches, workspace sizes), and the
// adapter's argument checks. No GPU and no vLLM file needed. Device limits are an H200's (132
// multiprocessors, 227 KiB of opt-in shared memory per block, compute capability 9.0) unless a test
// says otherwise.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vllm_marlin_plan.h"

namespace tc::vllm_marlin {
namespace {

constexpr DeviceLimits kH200{132, 232448, 90};

bool all_built(const Instance&) { return true; }

tc_problem problem(int M, int N, int K, int group, tc_tile_config config = {}, int sms = 0, int max_par = 0) {
  tc_problem p{};
  p.abi_version = TC_PLUGIN_ABI_VERSION;
  p.M = M, p.N = N, p.K = K, p.group = group;
  p.contract = TC_CONTRACT_MARLIN;
  p.config = config;
  p.sms = sms;
  p.max_par = max_par;
  return p;
}

// "m4n16k4gcol@0+192 m0.5n8k8gcol@192+8": each launch's kernel, first row and rows.
std::string launches(const Plan& plan) {
  std::ostringstream out;
  for (const Launch& l : plan.launches)
    out << (out.tellp() > 0 ? " " : "") << name(l.kernel) << "@" << l.row0 << "+" << l.rows;
  return out.str();
}

// The plan's launches, or the refusal, as one string a test compares.
std::string plan_of(const tc_problem& p, bool fp32_reduce = true, const DeviceLimits& d = kH200,
                    const BuiltPredicate& built = all_built) {
  const PlanResult r = plan_problem(p, fp32_reduce, d, built);
  if (r.status != TC_OK) return "refused(" + std::to_string(r.status) + "): " + r.message;
  return launches(r.plan);
}

Plan must_plan(const tc_problem& p, bool fp32_reduce = true, const DeviceLimits& d = kH200) {
  PlanResult r = plan_problem(p, fp32_reduce, d, all_built);
  EXPECT_EQ(r.status, TC_OK) << r.message;
  return r.plan;
}

::testing::AssertionResult RefusedWith(const tc_problem& p, tc_status status, const std::string& words,
                                       const DeviceLimits& d = kH200, const BuiltPredicate& built = all_built) {
  const PlanResult r = plan_problem(p, true, d, built);
  if (r.status != status)
    return ::testing::AssertionFailure() << "status " << r.status << " (expected " << status << "), message '"
                                         << r.message << "', plan '" << launches(r.plan) << "'";
  if (r.message.find(words) == std::string::npos)
    return ::testing::AssertionFailure() << "message '" << r.message << "' lacks '" << words << "'";
  return ::testing::AssertionSuccess();
}

TEST(VllmMarlinInstances, AreTheGeneratorsFp16Uint4b8KernelsWithoutActOrderThenTheFormatsSubset) {
  const std::vector<Instance>& all = all_instances();
  ASSERT_EQ(all.size(), 249u);  // 60 of fp16-uint4b8: 4 groups x (m0.5, m1, m2, m3, m4) x 3 thread configurations
  for (const Instance& i : all) {
    SCOPED_TRACE(name(i));
    const bool small = i.m_blocks == 1;
    if (i.threads == 256) {  // the generator keeps 256 threads for one tile per batch size
      const std::vector<int> tile = small ? std::vector<int>{8, 8} : std::vector<int>{16, 4};
      EXPECT_EQ(tile, (std::vector<int>{i.n_blocks, i.k_blocks}));
    } else {
      EXPECT_EQ(i.threads, 128);
      EXPECT_TRUE((i.n_blocks == 8 && i.k_blocks == 4) || (i.n_blocks == 4 && i.k_blocks == 8));
    }
    EXPECT_TRUE(!i.m8 || i.m_blocks == 1);
    // The formats' subset: large batches for groups of 128 only; no act-order kernel with zero points.
    if (i.m_blocks > 1 && (i.dtype != TC_DTYPE_FP16 || i.weight != TC_WEIGHT_UINT4B8)) {
      EXPECT_EQ(i.group_blocks, 8);
    }
    EXPECT_FALSE(i.weight == TC_WEIGHT_UINT4 && i.group_blocks == 0);
  }
  EXPECT_EQ(name(all.front()), "m0.5n8k8gcol");
  EXPECT_EQ(name(all[kFp16Uint4b8Instances - 1]), "m4n4k8g8");
  for (int k = 0; k < kFp16Uint4b8Instances; ++k) {
    EXPECT_EQ(all[static_cast<std::size_t>(k)].dtype, TC_DTYPE_FP16);
    EXPECT_EQ(all[static_cast<std::size_t>(k)].weight, TC_WEIGHT_UINT4B8);
    EXPECT_NE(all[static_cast<std::size_t>(k)].group_blocks, 0);
  }
  EXPECT_EQ(name(all[kFp16Uint4b8Instances]), "m0.5n8k8gact");
  EXPECT_EQ(name(all.back()), "bf16-uint8b128-m4n4k8g8");
  const auto count = [&](int dtype, int weight) {
    return std::count_if(all.begin(), all.end(),
                         [&](const Instance& i) { return i.dtype == dtype && i.weight == weight; });
  };
  EXPECT_EQ(count(TC_DTYPE_FP16, TC_WEIGHT_UINT4B8), 60 + 6);  // the act-order kernels, small batches
  EXPECT_EQ(count(TC_DTYPE_BF16, TC_WEIGHT_UINT4B8), 5 * 6 + 9);
  EXPECT_EQ(count(TC_DTYPE_FP16, TC_WEIGHT_UINT4), 4 * 6 + 9);
  EXPECT_EQ(count(TC_DTYPE_BF16, TC_WEIGHT_UINT8B128), 5 * 6 + 9);
}

TEST(VllmMarlinInstances, MatchTheListCMakeBuildsFrom) {
  std::vector<std::string> cmake;
  std::stringstream list(TC_VLLM_MARLIN_CMAKE_INSTANCES);
  for (std::string item; std::getline(list, item, ',');) cmake.push_back(item);
  std::vector<std::string> ours;
  for (const Instance& i : all_instances()) ours.push_back(name(i));
  EXPECT_EQ(cmake, ours);
}

TEST(VllmMarlinConfigs, AreTheInstancesWithoutTheEightRowTile) {
  const std::vector<tc_tile_config>& configs = library_configs();
  ASSERT_EQ(configs.size(), 48u);
  std::vector<std::string> names;
  for (const tc_tile_config& c : configs) names.push_back(name(c));
  for (const char* present : {"m1n8k8g8", "m1n8k4gcol", "m1n4k8g2", "m2n16k4g4", "m4n16k4gcol", "m3n4k8g8"})
    EXPECT_NE(std::find(names.begin(), names.end(), present), names.end()) << present;
  for (const char* absent : {"m1n16k4g8", "m2n8k8g8", "m0n8k8g8"})
    EXPECT_EQ(std::find(names.begin(), names.end(), absent), names.end()) << absent;
}

TEST(VllmMarlinSharedMemory, IsMarlinCuEstimate) {
  // 128x128, one m-block, group 128: B 32768 (over the 4352-byte reduction), A 16384, scales 1024.
  EXPECT_EQ(kernel_cache_size(128, 128, 1, 128), 50176);
  // 256x64, four m-blocks, group 32: reduction 33792 (over B 32768 + bias 512), A 32768, 2 groups of scales 4096.
  EXPECT_EQ(kernel_cache_size(64, 256, 4, 32), 70656);
  EXPECT_EQ(kernel_cache_size(64, 256, 4, -1), kernel_cache_size(64, 256, 4, 128));  // one row of scales either way
  // 8-bit codes: B twice as large, 65536 over the reduction's 4352.
  EXPECT_EQ(kernel_cache_size(128, 128, 1, 128, TC_WEIGHT_UINT8B128), 65536 + 16384 + 1024);
  // uint4's zero points: a quarter of the scales' 1024 bytes.
  EXPECT_EQ(kernel_cache_size(128, 128, 1, 128, TC_WEIGHT_UINT4), 50176 + 256);
  // The act-order kernel (group_size 0): 32 groups of 128 columns of scales cached (at least 32, and
  // 4 groups of 32 rows x 4 stages x 2), and 4 stages of 128 g_idx ints.
  EXPECT_EQ(kernel_cache_size(128, 128, 1, 0), 32768 + 16384 + 32 * 128 * 2 + 4 * 128 / 4);
}

tc_problem with_format(tc_problem p, tc_format f) {
  p.format = f;
  p.bits = f.weight_type == TC_WEIGHT_UINT8B128 ? 8 : 4;
  p.num_groups = p.group == -1 ? 1 : p.K / p.group;
  return p;
}
constexpr tc_format kBf16{TC_DTYPE_BF16, TC_DTYPE_BF16, TC_DTYPE_BF16, TC_WEIGHT_UINT4B8, 0, 1};
constexpr tc_format kFp16Uint4{TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, TC_WEIGHT_UINT4, 0, 1};
constexpr tc_format kBf16Uint8{TC_DTYPE_BF16, TC_DTYPE_BF16, TC_DTYPE_BF16, TC_WEIGHT_UINT8B128, 0, 1};
constexpr tc_format kActFull{TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, 1, 1};
constexpr tc_format kActShard{TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, 1, 0};

TEST(VllmMarlinFormats, AreTheSixteenVllmImplements) {
  const std::vector<tc_format>& all = vllm_formats();
  EXPECT_EQ(all.size(), 16u);  // 2 dtypes x (uint4b8, uint8b128: 3 each; uint4: 2, no act-order on a shard)
  for (const tc_format& f : all) EXPECT_EQ(format_refusal(f), "") << f.a_dtype << " " << f.weight_type;
}

TEST(VllmMarlinFormats, RefusesOthersNamingTheFields) {
  const tc_format mixed{TC_DTYPE_FP16, TC_DTYPE_BF16, TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, 0, 1};
  EXPECT_NE(format_refusal(mixed).find("a_dtype=1 scale_dtype=2 c_dtype=1"), std::string::npos)
      << format_refusal(mixed);
  EXPECT_TRUE(
      RefusedWith(with_format(problem(16, 4096, 4096, 128), mixed), TC_ERR_UNSUPPORTED, "scales and C of A's type"));
  const tc_format awq_shard{TC_DTYPE_BF16, TC_DTYPE_BF16, TC_DTYPE_BF16, TC_WEIGHT_UINT4, 1, 0};
  EXPECT_TRUE(
      RefusedWith(with_format(problem(16, 4096, 4096, 128), awq_shard), TC_ERR_UNSUPPORTED,
                  "weight_type=2 act_order=1 is_k_full=0: vLLM's Marlin has no act-order kernel with zero points"));
  const tc_format fp8{TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, 9, 0, 1};
  EXPECT_TRUE(RefusedWith(with_format(problem(16, 4096, 4096, 128), fp8), TC_ERR_UNSUPPORTED, "weight_type=9"));
  EXPECT_TRUE(RefusedWith(with_format(problem(16, 4096, 4096, -1), kActFull), TC_ERR_INVALID_ARGUMENT,
                          "act-order needs groups"));
  tc_problem wrong_bits = with_format(problem(16, 4096, 4096, 128), kBf16Uint8);
  wrong_bits.bits = 4;
  EXPECT_TRUE(RefusedWith(wrong_bits, TC_ERR_INVALID_ARGUMENT, "bits=4"));
}

TEST(VllmMarlinFormats, ListedAreThoseWithABuiltKernel) {
  const auto fp16_uint4b8_only = [](const Instance& i) {
    return i.dtype == TC_DTYPE_FP16 && i.weight == TC_WEIGHT_UINT4B8 && i.group_blocks != 0;
  };
  const std::vector<tc_format> listed = formats_with_kernels(fp16_uint4b8_only);
  ASSERT_EQ(listed.size(), 2u);  // act-order on the whole K runs the grouped kernels
  EXPECT_EQ(listed[0].act_order, 0);
  EXPECT_EQ(listed[1].act_order, 1);
  EXPECT_EQ(listed[1].is_k_full, 1);
  EXPECT_EQ(formats_with_kernels(all_built).size(), 16u);
}

TEST(VllmMarlinFormats, PickTheKernelsOfTheirTypes) {
  EXPECT_EQ(plan_of(with_format(problem(16, 8192, 4096, 128), kBf16)), "bf16-uint4b8-m1n8k8g8@0+16");
  EXPECT_EQ(plan_of(with_format(problem(5, 8192, 4096, -1), kFp16Uint4)), "fp16-uint4-m0.5n8k8gcol@0+5");
  EXPECT_EQ(plan_of(with_format(problem(200, 8192, 4096, 128), kBf16Uint8)),
            "bf16-uint8b128-m4n16k4g8@0+192 bf16-uint8b128-m0.5n8k8g8@192+8");
  // Larger batches on groups other than 128: m1 kernels, batched (vLLM passes over kernels not built).
  EXPECT_EQ(plan_of(with_format(problem(256, 8192, 4096, 64), kBf16)), "bf16-uint4b8-m1n8k8g4@0+256");
  EXPECT_TRUE(RefusedWith(with_format(problem(256, 8192, 4096, 64, {2, 16, 4, 4}), kBf16), TC_ERR_UNSUPPORTED,
                          "the adapter builds no bf16-uint4b8 kernel of 2 m-blocks"));
  EXPECT_TRUE(RefusedWith(with_format(problem(16, 8192, 4096, 128), kBf16), TC_ERR_UNSUPPORTED,
                          "TC_VLLM_MARLIN_FORMATS", kH200, [](const Instance& i) { return i.dtype == TC_DTYPE_FP16; }));
}

TEST(VllmMarlinActOrder, RunsTheGroupedKernelOnTheWholeKAndTheActOrderKernelOnAShard) {
  EXPECT_EQ(plan_of(with_format(problem(16, 8192, 4096, 128), kActFull)), "m1n8k8g8@0+16");
  EXPECT_EQ(plan_of(with_format(problem(16, 8192, 4096, 128), kActShard)), "m1n8k8gact@0+16");
  // A forced configuration names the problem's group; on a shard it runs the act-order kernel.
  EXPECT_EQ(plan_of(with_format(problem(8, 8192, 4096, 32, {1, 4, 8, 2}), kActShard)), "m0.5n4k8gact@0+8");
}

TEST(VllmMarlinActOrder, PermutesAIntoTheScratchAfterTheFp32Tiles) {
  const Plan fp32 = must_plan(with_format(problem(16, 4096, 4096, 128, {}, 7), kActFull), true);
  EXPECT_EQ(fp32.scratch_offset, 256u);
  EXPECT_EQ(fp32.permuted_a_offset, 256u + 7u * 16 * 256 * 4);
  EXPECT_EQ(fp32.permuted_a_bytes, 16u * 4096 * 2);
  EXPECT_EQ(fp32.workspace_bytes, fp32.permuted_a_offset + fp32.permuted_a_bytes);
  EXPECT_EQ(fp32.scratch_offset + fp32.scratch_bytes, fp32.workspace_bytes);
  const Plan fp16 = must_plan(with_format(problem(3, 4096, 4096, 128, {}, 7), kActShard), false);
  EXPECT_EQ(fp16.permuted_a_offset, 256u);
  EXPECT_EQ(fp16.scratch_bytes, 3u * 4096 * 2);
  EXPECT_EQ(must_plan(with_format(problem(3, 4096, 4096, 128, {}, 7), kBf16), false).permuted_a_bytes, 0u);
}

TEST(VllmMarlinChoice, OneRowTakesTheFirstSmallBatchTileOrNarrowTilesWhenTheGridIsLarge) {
  // 8192 columns: 64 tiles of 128, x4 = 256 > 132 blocks, so 128x128 with 256 threads.
  EXPECT_EQ(plan_of(problem(1, 8192, 4096, 128)), "m0.5n8k8g8@0+1");
  // 4096 columns: 32 x 4 = 128 <= 132 blocks, so vLLM switches to 64x128 tiles of 128 threads.
  EXPECT_EQ(plan_of(problem(1, 4096, 4096, 128)), "m0.5n4k8g8@0+1");
  // ... unless the grid is small.
  EXPECT_EQ(plan_of(problem(1, 4096, 4096, 128, {}, 7)), "m0.5n8k8g8@0+1");
  EXPECT_EQ(plan_of(problem(16, 8192, 4096, -1)), "m1n8k8gcol@0+16");
}

TEST(VllmMarlinChoice, SkipsTilesThatDoNotDivideK) {
  EXPECT_EQ(plan_of(problem(1, 8192, 192, -1)), "m0.5n8k4gcol@0+1");  // K=192: no 128-deep tile
}

TEST(VllmMarlinChoice, CutsMIntoBatchedFullTilesAndATail) {
  // 200 rows: three 64-row tiles in one launch, then an 8-row tail.
  EXPECT_EQ(plan_of(problem(200, 8192, 4096, -1)), "m4n16k4gcol@0+192 m0.5n8k8gcol@192+8");
  const Plan plan = must_plan(problem(200, 8192, 4096, -1));
  EXPECT_EQ(plan.min_k_slice, 64);  // the 256x64 tile
  EXPECT_EQ(plan.max_par, 16);      // N > 4096
}

TEST(VllmMarlinChoice, BatchesUpToMaxParTilesPerLaunch) {
  EXPECT_EQ(must_plan(problem(4096, 4096, 4096, 128)).launches.size(), 1u);   // N <= 4096: 128 tiles at once
  EXPECT_EQ(must_plan(problem(4096, 8192, 4096, 128)).launches.size(), 4u);   // N > 4096: 16 tiles at once
  const Plan five = must_plan(problem(4096, 4096, 4096, 128, {}, 0, 5));       // the problem's max_par
  EXPECT_EQ(five.max_par, 5);
  ASSERT_EQ(five.launches.size(), 13u);  // twelve launches of 5 x 64 rows, then 256 rows
  EXPECT_EQ(five.launches[11].rows, 320);
  EXPECT_EQ(five.launches[12].row0, 3840);
  EXPECT_EQ(five.launches[12].rows, 256);
}

TEST(VllmMarlinChoice, TakesFewerMBlocksWhenNothingFitsSharedMemory) {
  // 40000 bytes: no tile fits four or three m-blocks; 128x64 with two (33792 bytes) does.
  const DeviceLimits small{132, 40000, 90};
  EXPECT_EQ(plan_of(problem(64, 4096, 4096, 128), true, small), "m2n8k4g8@0+64");
  EXPECT_TRUE(RefusedWith(problem(64, 4096, 4096, 128), TC_ERR_UNSUPPORTED, "no configuration", {132, 10000, 90}));
}

TEST(VllmMarlinChoice, PassesOverKernelsNotBuilt) {
  const auto without_128x128 = [](const Instance& i) { return !(i.n_blocks == 8 && i.k_blocks == 8); };
  EXPECT_EQ(plan_of(problem(16, 8192, 4096, 128), true, kH200, without_128x128), "m1n8k4g8@0+16");
  EXPECT_TRUE(RefusedWith(problem(16, 8192, 4096, 128, {1, 8, 8, 8}), TC_ERR_UNSUPPORTED, "not built", kH200,
                          without_128x128));
}

TEST(VllmMarlinForced, RunsTheTileOnEveryLaunchWithMBlocksAsTheLargest) {
  EXPECT_EQ(plan_of(problem(5, 4096, 4096, 128, {1, 8, 8, 8})), "m0.5n8k8g8@0+5");
  EXPECT_EQ(plan_of(problem(40, 4096, 4096, 128, {2, 8, 4, 8})), "m2n8k4g8@0+32 m0.5n8k4g8@32+8");
  EXPECT_EQ(plan_of(problem(100, 4096, 4096, -1, {3, 4, 8, -1})), "m3n4k8gcol@0+96 m0.5n4k8gcol@96+4");
  EXPECT_EQ(plan_of(problem(17, 4096, 4096, 32, {4, 16, 4, 2})), "m2n16k4g2@0+17");
  // The thread count is the instance's: 128 for the 128x64 tile (vLLM's forced path would ask for 256).
  EXPECT_EQ(must_plan(problem(40, 4096, 4096, 128, {2, 8, 4, 8})).launches[0].kernel.threads, 128);
  EXPECT_EQ(must_plan(problem(40, 4096, 4096, 128, {2, 8, 4, 8})).min_k_slice, 64);
}

TEST(VllmMarlinForced, RefusesWhatVllmDoesNotBuild) {
  // The 256x64 tile has no 8-row kernel: a tail of 8 rows cannot run on it.
  EXPECT_TRUE(RefusedWith(problem(40, 4096, 4096, 128, {2, 16, 4, 8}), TC_ERR_UNSUPPORTED, "builds no 8-row kernel with a 256x64 tile"));
  EXPECT_TRUE(RefusedWith(problem(64, 4096, 4096, 128, {1, 16, 4, 8}), TC_ERR_UNSUPPORTED, "m1n16k4g8"));
  EXPECT_TRUE(RefusedWith(problem(64, 4096, 4096, 128, {2, 8, 8, 8}), TC_ERR_UNSUPPORTED, "m_blocks 1 only"));
  EXPECT_TRUE(RefusedWith(problem(64, 4096, 4096, 128, {1, 16, 8, 8}), TC_ERR_UNSUPPORTED, "no 256x128 tile"));
}

TEST(VllmMarlinForced, GivesOneReasonPerKindOfMissingKernel) {
  // A run lists each n/a reason once: the message names the missing kernel, not M, the group or the config.
  const auto message = [](const tc_problem& p) { return plan_problem(p, true, kH200, all_built).message; };
  EXPECT_EQ(message(problem(16, 4096, 4096, 128, {2, 16, 4, 8})), message(problem(80, 4096, 4096, -1, {4, 16, 4, -1})));
  EXPECT_EQ(message(problem(1, 4096, 4096, 32, {3, 16, 4, 2})), message(problem(40, 4096, 4096, 128, {2, 16, 4, 8})));
  EXPECT_NE(message(problem(16, 4096, 4096, 128, {2, 16, 4, 8})), message(problem(1, 4096, 4096, 128, {2, 16, 4, 8})));
}

TEST(VllmMarlinForced, RefusesAConfigThatDoesNotFitTheProblem) {
  EXPECT_TRUE(RefusedWith(problem(1, 4096, 4096, 128, {1, 8, 8, 4}), TC_ERR_INVALID_ARGUMENT, "group_blocks 4"));
  EXPECT_TRUE(RefusedWith(problem(1, 4096, 192, -1, {1, 8, 8, -1}), TC_ERR_INVALID_ARGUMENT, "does not fit"));
  EXPECT_TRUE(RefusedWith(problem(1, 4096, 4096, 128, {5, 8, 8, 8}), TC_ERR_INVALID_ARGUMENT, "m_blocks 5"));
  EXPECT_TRUE(RefusedWith(problem(1, 4096, 4096, 128, {0, 8, 8, 8}), TC_ERR_INVALID_ARGUMENT, "m_blocks 0"));
}

TEST(VllmMarlinWorkspace, IsOneLockPerBlockThenTheFp32TilesAsMarlinCuSizesThem) {
  const Plan fp16 = must_plan(problem(1, 4096, 4096, 128), false);
  EXPECT_EQ(fp16.lock_bytes, 132u * 4);
  EXPECT_EQ(fp16.scratch_bytes, 0u);
  EXPECT_EQ(fp16.workspace_bytes, 132u * 4);

  const Plan one_row = must_plan(problem(1, 4096, 4096, 128), true);  // tiles of 16 rows x 256 columns
  EXPECT_EQ(one_row.lock_bytes, 528u);
  EXPECT_EQ(one_row.scratch_offset, 768u);
  EXPECT_EQ(one_row.scratch_bytes, 132u * 16 * 256 * 4);
  EXPECT_EQ(one_row.workspace_bytes, 768u + 132u * 16 * 256 * 4);

  const Plan many_rows = must_plan(problem(200, 4096, 4096, 128, {}, 7), true);  // 64-row tiles, 7 blocks
  EXPECT_EQ(many_rows.lock_bytes, 28u);
  EXPECT_EQ(many_rows.scratch_offset, 256u);
  EXPECT_EQ(many_rows.scratch_bytes, 7u * 64 * 256 * 4);
  EXPECT_EQ(many_rows.sms, 7);
  EXPECT_EQ(many_rows.num_groups, 32);
}

struct BadProblem {
  const char* name;
  tc_problem problem;
  tc_status status;
  const char* words;
  DeviceLimits device = kH200;
};

class VllmMarlinChecks : public ::testing::TestWithParam<BadProblem> {};

TEST_P(VllmMarlinChecks, RefuseNamingTheValue) {
  const BadProblem& b = GetParam();
  EXPECT_TRUE(RefusedWith(b.problem, b.status, b.words, b.device));
}

tc_problem with(tc_problem p, void (*edit)(tc_problem&)) {
  edit(p);
  return p;
}

INSTANTIATE_TEST_SUITE_P(
    Problems, VllmMarlinChecks,
    ::testing::Values(
        BadProblem{"AbiVersion", with(problem(1, 4096, 4096, 128), [](tc_problem& p) { p.abi_version = 9; }),
                   TC_ERR_INVALID_ARGUMENT, "abi_version 9"},
        BadProblem{"ZeroM", problem(0, 4096, 4096, 128), TC_ERR_INVALID_ARGUMENT, "M=0"},
        BadProblem{"NarrowN", problem(1, 4000, 4096, 128), TC_ERR_INVALID_ARGUMENT, "N=4000"},
        BadProblem{"RaggedK", problem(1, 4096, 4104, -1), TC_ERR_INVALID_ARGUMENT, "K=4104"},
        BadProblem{"Group48", problem(1, 4096, 4096, 48), TC_ERR_INVALID_ARGUMENT, "group 48"},
        BadProblem{"KNotInGroups", problem(1, 4096, 4160, 128), TC_ERR_INVALID_ARGUMENT, "group 128"},
        BadProblem{"Contract", with(problem(1, 4096, 4096, 128),
                                    [](tc_problem& p) { p.contract = static_cast<tc_contract>(7); }),
                   TC_ERR_INVALID_ARGUMENT, "contract 7"},
        BadProblem{"NegativeMaxPar", problem(1, 4096, 4096, 128, {}, 0, -2), TC_ERR_INVALID_ARGUMENT, "max_par=-2"},
        BadProblem{"NegativeSms", problem(1, 4096, 4096, 128, {}, -1), TC_ERR_INVALID_ARGUMENT, "sms=-1"},
        BadProblem{"SmsAboveDevice", problem(1, 4096, 4096, 128, {}, 133), TC_ERR_INVALID_ARGUMENT, "sms=133"},
        BadProblem{"Turing", problem(1, 4096, 4096, 128), TC_ERR_UNSUPPORTED, "compute capability 7.5",
                   DeviceLimits{40, 65536, 75}}),
    [](const ::testing::TestParamInfo<BadProblem>& param) { return std::string(param.param.name); });

// 8-bit codes per column scale each block's fp32 sums before the reduction (scale_float); declared
// as scale-then-round they were judged as if scaled once, and a scaled partial's overflow failed.
TEST(VllmMarlinNumerics, EightBitCodesScaleBeforeTheReductionFourBitCodesRoundThenScale) {
  const Plan four = must_plan(with_format(problem(8, 256, 128, -1), kBf16));
  const tc_numerics n4 = declared_numerics(four);
  EXPECT_EQ(n4.accumulator, TC_ACCUMULATOR_FP32);
  EXPECT_EQ(n4.partials, TC_PARTIALS_FP32);
  EXPECT_EQ(n4.epilogue, TC_EPILOGUE_ROUND_THEN_SCALE);
  EXPECT_EQ(n4.schedule, TC_SCHEDULE_UNKNOWN);
  EXPECT_EQ(n4.min_k_slice, four.min_k_slice);
  const tc_numerics n8 = declared_numerics(must_plan(with_format(problem(8, 256, 128, -1), kBf16Uint8), false));
  EXPECT_EQ(n8.epilogue, TC_EPILOGUE_SCALE_BEFORE_REDUCE);
  EXPECT_EQ(n8.partials, TC_PARTIALS_FP16) << "the fp16-reduce variant keeps partials in C's type";
}

TEST(VllmMarlinContracts, AreBothAccepted) {
  tc_problem fp32 = problem(17, 4096, 4096, 64);
  fp32.contract = TC_CONTRACT_FP32;
  EXPECT_EQ(plan_of(fp32), plan_of(problem(17, 4096, 4096, 64)));
}

}  // namespace
}  // namespace tc::vllm_marlin
