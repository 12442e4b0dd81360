// The kernel's work split, recorded on the device, must be exactly reference/'s schedule model:
// per launch and thread block, the same (column, k-tile range, slice index, slice count) sequence.
#include <algorithm>

#include <gtest/gtest.h>

#include "common/gpu_test.h"
#include "tilecheck/reference/marlin_format.h"
#include "tilecheck/reference/rng.h"

namespace tc {
namespace {

TEST(KernelSchedule, EveryBlockProcessesTheSlicesTheModelPredicts) {
  TC_REQUIRE_GPU();
  const KernelPlugin& kernel = test_support::kernel_under_test();
  if (!kernel.can_trace())
    GTEST_SKIP() << kernel.path() << " does not export tc_kernel_run_traced: the schedule trace is for libraries that record it";
  const int multiprocessors = device_multiprocessors();
  const CounterRng rng(2026, "schedule-trace");
  const tc_plugin_info_t& info = kernel.info();
  int combinations = 0, multi_slice_columns = 0, continuing_last_blocks = 0;
  for (std::uint64_t i = 0; combinations < 240 && i < 24000; ++i) {  // bounded: a library may decline most
    const tc_tile_config& c = info.configs[rng.integer(6 * i, 0, info.config_count - 1)];
    const TileConfig config{c.m_blocks, c.n_blocks, c.k_blocks, c.group_blocks};
    const int group = config.group();
    const int M = static_cast<int>(rng.integer(6 * i + 1, 1, 300));
    const int N = config.tile_n() * static_cast<int>(rng.integer(6 * i + 2, 1, 8));
    const int K = std::max(config.tile_k(), group) * static_cast<int>(rng.integer(6 * i + 3, 1, 12));
    const int sms = static_cast<int>(rng.integer(6 * i + 4, 1, multiprocessors));
    const int max_par = static_cast<int>(rng.integer(6 * i + 5, 1, 16));
    const Shape shape{M, N, K, group};
    const Schedule s = make_schedule(shape, config, sms, max_par);

    const HalfMatrix A = HalfMatrix::Zero(M, K);
    const CodeMatrix codes = CodeMatrix::Constant(K, N, 8);
    const HalfMatrix scales = HalfMatrix::Constant(scale_rows(K, group), N, round_to_half(1.0));
    DeviceCase device(A, pack_weights(codes), permute_scales(scales, group), group,
                      i % 2 ? Contract::marlin : Contract::fp32);
    Workspace workspace;
    Launch launch;
    launch.config = config;
    launch.sms = sms;
    launch.max_par = max_par;
    int capacity = 1;
    for (const LaunchSchedule& l : s.launches)
      for (int b = 0; b < sms; ++b)
        capacity = std::max<int>(capacity, std::count_if(l.slices.begin(), l.slices.end(),
                                                         [b](const Slice& x) { return x.block == b; }));
    size_t need = 0;
    const RunResult sized = kernel.workspace_size(device.problem(launch, workspace), need);
    if (sized.status == TC_ERR_UNSUPPORTED) continue;  // a combination the library does not implement
    ASSERT_TRUE(sized.ok()) << status_name(sized.status) << ": " << sized.message;
    workspace.reserve(need);
    const std::size_t words = s.launches.size() * sms * (1 + 5 * capacity);
    DeviceBuffer trace_buffer(words * sizeof(int));
    trace_buffer.zero();
    const RunResult run = kernel.run_traced(device.problem(launch, workspace), static_cast<int*>(trace_buffer.get()), capacity);
    ASSERT_TRUE(run.ok()) << status_name(run.status) << ": " << run.message;
    std::vector<int> trace(words);
    trace_buffer.download(trace.data(), words * sizeof(int));
    const std::string where = name(config) + " M=" + std::to_string(M) + " N=" + std::to_string(N) +
                              " K=" + std::to_string(K) + " sms=" + std::to_string(sms) +
                              " max_par=" + std::to_string(max_par);
    for (size_t l = 0; l < s.launches.size(); ++l) {
      const LaunchSchedule& modelled = s.launches[l];
      for (int b = 0; b < sms; ++b) {
        const int* record = trace.data() + (l * sms + b) * (1 + 5 * capacity);
        std::vector<Slice> expected;
        for (const Slice& x : modelled.slices)
          if (x.block == b) expected.push_back(x);
        ASSERT_EQ(record[0], static_cast<int>(expected.size())) << where << " launch " << l << " block " << b;
        for (size_t n = 0; n < expected.size(); ++n) {
          const int* r = record + 1 + 5 * n;
          const Slice& x = expected[n];
          ASSERT_EQ(std::vector<int>(r, r + 5),
                    (std::vector<int>{x.column, x.k_tile_begin, x.k_tile_end, x.slice_index, x.slice_count}))
              << where << " launch " << l << " block " << b << " slice " << n
              << " (column, k_begin, k_end, index, count)";
          multi_slice_columns += x.slice_count > 1 && x.slice_index == 0;
          continuing_last_blocks += n > 0 && x.last();
        }
      }
    }
    ++combinations;
  }
  // The sample must exercise what makes the schedule hard, or it proves little.
  EXPECT_EQ(combinations, 240) << "the library implements too few of the sampled problems";
  EXPECT_GT(multi_slice_columns, 100);
  EXPECT_GT(continuing_last_blocks, 100);
}

}  // namespace
}  // namespace tc
