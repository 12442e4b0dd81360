// The host side of vLLM's Marlin for 16-bit activations (fp16, bf16) and integer weights (uint4b8,
// uint4 with zero points, uint8b128; act-order), reimplemented in our own words for the vllm-marlin
// adapter: which kernels vLLM instantiates, which one runs a launch, how M is cut into launches, how
// large the workspace is. Pure C++ (no CUDA, no vLLM header), so that the
// CPU tests (tests/plugins/vllm_marlin_plan_test.cpp) run in a build without vLLM's files.
//
// Sources read (docs/vllm-marlin.md cites them by line):
//   generate_kernels.py @ 085fc8b  the instantiations (THREAD_CONFIGS, THREAD_M_BLOCKS, the AWQ-INT4,
//                                   GPTQ-INT4 and GPTQ-INT8 rows of QUANT_CONFIGS)
//   marlin.cu @ 778460c            thread configs by priority, shared-memory estimate, configuration
//                                   choice, act-order (A permuted, is_k_full), the loop that cuts M
//                                   into launches, workspace sizes
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

// One Marlin<t, b, t, t, threads, m_blocks, n_blocks, k_blocks, m8, 4, group_blocks, false> kernel:
// activations, scales and output of one type t (vLLM builds no other 16-bit mix), codes of type b,
// stages 4, no float zero points. m8 is vLLM's m_block_size_8 (an 8-row tile, with m_blocks 1), used
// for a launch of at most 8 rows. group_blocks 0 is vLLM's act-order kernel, which reads each row's
// group from g_idx; vLLM runs it only on a shard of K (is_k_full false): on the whole K it runs the
// grouped kernel on A permuted (marlin.cu, marlin_mm).
struct Instance {
  int m_blocks = 0;  // thread_m_blocks, 1..4
  bool m8 = false;   // m_block_size_8
  int n_blocks = 0;  // thread_n_blocks: the tile is 16 * n_blocks columns wide
  int k_blocks = 0;  // thread_k_blocks: ... and 16 * k_blocks rows of K deep
  int threads = 0;   // 128 or 256
  int group_blocks = 0;            // -1 (per column), 0 (act-order: g_idx), 2, 4, 8 (groups of 32, 64, 128)
  int dtype = TC_DTYPE_FP16;       // t: vLLM's kFloat16 or kBFloat16
  int weight = TC_WEIGHT_UINT4B8;  // b: kU4B8, kU4 (zero points) or kU8B128
};
bool operator==(const Instance& a, const Instance& b);
// m1n8k8g8, m0.5n8k8gcol (0.5: the 8-row tile, as generate_kernels.py writes it) for fp16 / uint4b8;
// "<dtype>-<weights>-" before it for the other types (bf16-uint4-m1n8k8g8), and gact for group_blocks
// 0 (m1n4k8gact, bf16-uint8b128-m0.5n8k8gact). Threads follow from the rest (each (m, tile) pair has
// one count).
std::string name(const Instance& i);

// The kernels the adapter knows, the list CMake builds from (TC_VLLM_MARLIN_INSTANCES,
// TC_VLLM_MARLIN_FORMATS), all emitted by vLLM's generator for these types:
//   - fp16 / uint4b8 without act-order: 4 groups x 5 M tiles x 3 thread configurations = 60, in the
//     generator's order (ABI 1's format, always built);
//   - the other formats, a subset to keep the compile time modest (each kernel takes about 9 s of one
//     core): for bf16 / uint4b8, fp16 and bf16 / uint4, fp16 and bf16 / uint8b128, every group of
//     the generator's row (uint4: -1, 32, 64, 128; the others also act-order's group_blocks 0), with
//     the small-batch kernels (m0.5 and m1, three tiles each) and, for groups of 128 only, the
//     large-batch ones (m2, m3, m4, three tiles each); and fp16 / uint4b8's act-order kernels, small
//     batches: 6 + 39 + 33 + 33 + 39 + 39 = 189. A format's larger M on another group takes m1 tiles
//     (vLLM's automatic choice passes over kernels not built); a forced m2-m4 configuration is n/a.
const std::vector<Instance>& all_instances();
// How many of all_instances() are fp16 / uint4b8 without act-order (the first ones): 60.
constexpr int kFp16Uint4b8Instances = 60;

// The configurations the library offers tilecheck (tc_plugin_info): the instances' (m_blocks, tile,
// group) without the 8-row tile, which a launch of <= 8 rows picks by itself, as in vLLM: 48.
const std::vector<tc_tile_config>& library_configs();
std::string name(const tc_tile_config& c);  // m1n8k8g8, m4n16k4gcol
// Names in messages and instance names: group_blocks as "col", "act" or its number (written into
// `buffer`); a dtype as fp16 / bf16; a weight type as uint4b8 / uint4 / uint8b128.
const char* group_name(int group_blocks, char* buffer, std::size_t capacity);
const char* dtype_name(int dtype);
const char* weight_name(int weight);
// Whether vLLM's generator builds this tile (n_blocks x k_blocks of 16) at all.
bool is_vllm_tile(int n_blocks, int k_blocks);

// The formats of plugin ABI 2 vLLM's Marlin implements (marlin.cu, marlin_gemm): A, scales and C all
// fp16 or all bf16; uint4b8, uint4 with zero points (AWQ) or uint8b128 codes; act-order on the whole
// K (is_k_full: the grouped kernel on A permuted) for each, and on a shard of K (the act-order kernel,
// g_idx read per row) for uint4b8 and uint8b128 only: the kernel template refuses zero points with
// act-order (static_assert), and its generator builds no such kernel. 16 formats.
const std::vector<tc_format>& vllm_formats();
// Why vLLM's Marlin does not implement format `f`, naming its fields ("" if it does): "format
// a_dtype=1 scale_dtype=2 c_dtype=1 ...: vLLM's Marlin takes scales and C of A's type".
std::string format_refusal(const tc_format& f);
// The kernel group_blocks a problem of this format and group runs: 0 for act-order on a shard of K,
// else -1 (group -1) or group / 16 (act-order on the whole K included).
int kernel_group_blocks(const tc_format& f, int group);
// The formats of vllm_formats() for which `built` holds for at least one kernel that runs them: what
// the library lists (tc_plugin_formats), so that it lists exactly what it can run.
std::vector<tc_format> formats_with_kernels(const std::function<bool(const Instance&)>& built);

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
  tc_format format{};  // the problem's, ABI 1's when it left it all zero
  int num_groups = 0;  // rows of scales: K / group, or 1 per column
  // Workspace: locks (int per block, zero before and after every launch) then scratch: with the fp32
  // reduction its partial tiles, with act-order A permuted (vLLM's a_tmp, (M, K) of A's type); each
  // written before it is read.
  std::size_t lock_bytes = 0;
  std::size_t scratch_offset = 0;
  std::size_t scratch_bytes = 0;
  std::size_t permuted_a_offset = 0;  // act-order only
  std::size_t permuted_a_bytes = 0;
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
//   - the format: one of vllm_formats() (all zero: ABI 1's), else TC_ERR_UNSUPPORTED naming it;
//     act-order needs grouped scales; on the whole K the kernels are the grouped ones (A is
//     permuted first), on a shard of K the act-order ones;
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

// The arithmetic of a planned problem's kernels (tc_plugin_numerics; marlin_template.h): fp32
// accumulators from sm_80 on; partial sums between blocks in fp32 (fp32_reduce, global_reduce_fp32)
// or in C, of C's type (global_reduce_fp16); per-column scales: 4-bit codes round the output to C's
// type and then multiply (write_result): round-then-scale; 8-bit codes multiply each block's fp32
// sums before the reduction between blocks (scale_float) and round the total once:
// scale-before-reduce; schedule unknown, with the plan's shallowest tile as min_k_slice.
tc_numerics declared_numerics(const Plan& plan);

// marlin.cu's shared-memory estimate of one kernel (get_kernel_cache_size), bytes, for 16-bit
// activations, integer codes of `weight` (zero points for uint4) and 4 stages. group_size is
// vLLM's: -1 per column, 0 for the act-order kernel (a shard of K: scales cached in chunks, g_idx in
// shared memory), else the group.
int kernel_cache_size(int thread_k, int thread_n, int thread_m_blocks, int group_size, int weight = TC_WEIGHT_UINT4B8);

}  // namespace tc::vllm_marlin

#endif  // TILECHECK_PLUGINS_VLLM_MARLIN_PLAN_H
