// The host side of vLLM's Marlin for fp16 activations and uint4b8 weights, reimplemented in our own
// words for the vllm-marlin adapter: which kernels vLLM instantiates, which one runs a launch, how
// M is cut into launches, how large the workspace is. Pure C++ (no CUDA, no vLLM header), so that the
// CPU tests (tests/plugins/vllm_marlin_plan_test.cpp) run in a build without vLLM's files.
//
// Sources read (docs/vllm-marlin.md cites them by line):
//   generate_kernels.py @ 085fc8b  the instantiations (THREAD_CONFIGS, THREAD_M_BLOCKS, GPTQ-INT4 row)
//   marlin.cu @ 778460c            thread configs by priority, shared-memory estimate, configuration
//                                   choice, the loop that cuts M into launches, workspace sizes
//
// Vocabulary: a tc_tile_config {m_blocks, n_blocks, k_blocks, group_blocks} maps to vLLM's
// thread_m_blocks (the largest, like vLLM's max_thread_m_blocks), thread_n_blocks and
// thread_k_blocks; an Instance is one template instantiation vLLM builds.
#ifndef TILECHECK_PLUGINS_VLLM_MARLIN_PLAN_H
#define TILECHECK_PLUGINS_VLLM_MARLIN_PLAN_H

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "tilecheck/plugin/plugin.h"

namespace tc::vllm_marlin {

// One Marlin<fp16, uint4b8, fp16, fp16, threads, m_blocks, n_blocks, k_blocks, m8, 4, group_blocks,
// false> kernel: stages 4, no float zero points. m8 is vLLM's m_block_size_8 (an 8-row tile, with
// m_blocks 1), used for a launch of at most 8 rows.
struct Instance {
  int m_blocks = 0;  // thread_m_blocks, 1..4
  bool m8 = false;   // m_block_size_8
  int n_blocks = 0;  // thread_n_blocks: the tile is 16 * n_blocks columns wide
  int k_blocks = 0;  // thread_k_blocks: ... and 16 * k_blocks rows of K deep
  int threads = 0;   // 128 or 256
  int group_blocks = 0;  // -1 (per column), 2, 4, 8 (groups of 32, 64, 128)
};
bool operator==(const Instance& a, const Instance& b);
// m1n8k8g8, m0.5n8k8gcol (0.5: the 8-row tile, as generate_kernels.py writes it); threads follow from
// the rest (each (m, tile) pair has one thread count).
std::string name(const Instance& i);

// Every kernel vLLM's generator emits for fp16 activations and uint4b8 weights without act-order
// (group_blocks 0 is act-order, which the adapter does not drive): 4 groups x 5 M tiles x 3 thread
// configurations = 60, in the generator's order.
const std::vector<Instance>& all_instances();

// The configurations the library offers tilecheck (tc_plugin_info): the instances' (m_blocks, tile,
// group) without the 8-row tile, which a launch of <= 8 rows picks by itself, as in vLLM: 48.
const std::vector<tc_tile_config>& library_configs();
std::string name(const tc_tile_config& c);  // m1n8k8g8, m4n16k4gcol

// What tc_plugin_run needs of the device (marlin.cu reads the same attributes).
struct DeviceLimits {
  int multiprocessors = 0;  // cudaDevAttrMultiProcessorCount
  int max_shared_mem = 0;   // cudaDevAttrMaxSharedMemoryPerBlockOptin, bytes
  int compute_capability = 0;  // 10 * major + minor
};

// One kernel launch: `rows` rows of A and C from `row0` (vLLM's prob_m_split); a launch of more rows
// than the tile batches rows / (16 * m_blocks) tiles of M in one grid (vLLM's `parallel`).
struct Launch {
  Instance kernel;
  int row0 = 0;
  int rows = 0;
};

// Everything a run of one problem does, decided before anything is launched.
struct Plan {
  std::vector<Launch> launches;
  int sms = 0;      // grid size of every launch (blocks)
  int max_par = 0;  // most 16 * m_blocks-row tiles batched per launch
  bool fp32_reduce = false;
  int num_groups = 0;  // rows of scales: K / group, or 1 per column
  // Workspace: locks (int per block, zero before and after every launch) then, with the fp32
  // reduction, scratch (fp32 partial tiles, written before read).
  std::size_t lock_bytes = 0;
  std::size_t scratch_offset = 0;
  std::size_t scratch_bytes = 0;
  std::size_t workspace_bytes = 0;
  int min_k_slice = 0;  // the shallowest tile of K among the launches, rows
};

// tc_status and a one-line reason; status TC_OK carries a plan.
struct PlanResult {
  tc_status status = TC_OK;
  std::string message;
  Plan plan;
};

// Is this instance compiled into the library (TC_VLLM_MARLIN_INSTANCES)? vLLM's own host code treats a
// kernel it did not build as missing when it chooses a configuration, and so does plan_problem.
using BuiltPredicate = std::function<bool(const Instance&)>;

// Validates the problem and plans it as vLLM's host code would run it (marlin.cu, marlin_mm):
//   - max_par: the problem's, or vLLM's own (16, or 128 when N <= 4096) when it is 0;
//   - sms: the problem's grid size, or every multiprocessor when it is 0;
//   - M is cut into tiles of 16 * m_blocks rows, batched max_par at a time, then one tail launch of
//     the rows left, with as few m_blocks as they need (8 rows or fewer: the 8-row tile);
//   - config all zero: vLLM's choice for each launch (thread configurations by priority, the first
//     that fits shared memory and has a kernel; 128x64 tiles when there are too few tiles for the
//     grid; fewer m_blocks when nothing fits); otherwise the forced tile for every launch, with
//     m_blocks as the largest, and the thread count vLLM instantiates for that tile.
// Never launches anything; the same answer for tc_plugin_workspace_size, _run and _numerics.
PlanResult plan_problem(const tc_problem& problem, bool fp32_reduce, const DeviceLimits& device,
                        const BuiltPredicate& built);

// marlin.cu's shared-memory estimate of one kernel (get_kernel_cache_size), bytes, for our case:
// 4-bit weights, fp16 activations, no zero points, no act-order, 4 stages.
int kernel_cache_size(int thread_k, int thread_n, int thread_m_blocks, int group_size);

}  // namespace tc::vllm_marlin

#endif  // TILECHECK_PLUGINS_VLLM_MARLIN_PLAN_H
