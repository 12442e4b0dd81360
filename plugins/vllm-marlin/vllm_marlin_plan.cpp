// vLLM's Marlin host logic for fp16 x uint4b8, reimplemented (vllm_marlin_plan.h says what and from
// where). Messages are formatted with snprintf: a plugin must not carry std::to_string's digit table,
// a process-wide unique symbol (docs/plugin.md).
#include "vllm_marlin_plan.h"

#include <algorithm>
#include <cstdio>

#include "tilecheck/core/format.h"

namespace tc::vllm_marlin {
namespace {

constexpr int kStages = 4;          // marlin.cu: 4 from sm_80 on (2 on sm_75, not built here)
constexpr int kMaxThreadN = 256;    // marlin.cuh max_thread_n: the widest tile, sizes the fp32 scratch
constexpr int kMinThreadNK = 64;    // marlin.cuh min_thread_n / min_thread_k
constexpr int kAlign = 256;         // the scratch starts on a 256-byte boundary after the locks
constexpr int kSharedMemSlack = 512;  // marlin.cu keeps 512 bytes spare when it chooses a configuration

int div_ceil(int a, int b) { return (a + b - 1) / b; }
std::size_t round_up(std::size_t a, std::size_t b) { return (a + b - 1) / b * b; }


PlanResult fail(tc_status status, std::string message) {
  PlanResult r;
  r.status = status;
  r.message = std::move(message);
  return r;
}

// marlin.cu's thread_config_t: a tile of thread_k x thread_n and a thread count; -1 when none.
struct ThreadConfig {
  int thread_k = -1, thread_n = -1, threads = -1;
};
bool found(const ThreadConfig& t) { return t.thread_k != -1; }

// marlin.cu's two priority lists: one 16-row block of M, and more.
constexpr ThreadConfig kSmallBatch[] = {{128, 128, 256}, {64, 128, 128}, {128, 64, 128}};
constexpr ThreadConfig kLargeBatch[] = {{64, 256, 256}, {64, 128, 128}, {128, 64, 128}};
// generate_kernels.py's THREAD_CONFIGS, in its order; 256 threads only for 128x128 tiles with at most
// one m_block and for 256x64 tiles with more.
constexpr ThreadConfig kGenerated[] = {{128, 128, 256}, {64, 256, 256}, {64, 128, 128}, {128, 64, 128}};

const char* group_name(int group_blocks, char* buffer, std::size_t capacity) {
  if (group_blocks < 0) return "col";
  std::snprintf(buffer, capacity, "%d", group_blocks);
  return buffer;
}

// The instance with these template values, if vLLM builds one (its thread count is then known).
const Instance* find_instance(int m_blocks, bool m8, int n_blocks, int k_blocks, int group_blocks) {
  for (const Instance& i : all_instances())
    if (i.m_blocks == m_blocks && i.m8 == m8 && i.n_blocks == n_blocks && i.k_blocks == k_blocks &&
        i.group_blocks == group_blocks)
      return &i;
  return nullptr;
}

// marlin.cu is_valid_config for 4-bit weights, 16-bit activations, no act-order, no zero points.
bool is_valid_config(const ThreadConfig& t, int thread_m_blocks, int N, int K, int group_size, int max_shared_mem) {
  if (!found(t)) return false;
  if (K % t.thread_k != 0 || N % t.thread_n != 0) return false;
  if (t.thread_n < kMinThreadNK || t.thread_k < kMinThreadNK) return false;
  if (t.threads < 128) return false;
  return kernel_cache_size(t.thread_k, t.thread_n, thread_m_blocks, group_size) <= max_shared_mem;
}

bool available(const ThreadConfig& t, int thread_m_blocks, bool m8, int group_blocks, const BuiltPredicate& built) {
  const Instance* i = find_instance(thread_m_blocks, m8, t.thread_n / 16, t.thread_k / 16, group_blocks);
  return i != nullptr && i->threads == t.threads && built(*i);
}

// marlin.cu determine_exec_config: the first thread configuration, by priority, that fits shared
// memory (less 512 bytes) and has a kernel.
ThreadConfig determine_exec_config(int thread_m_blocks, bool m8, int N, int K, int group_size, int group_blocks,
                                   int max_shared_mem, const BuiltPredicate& built) {
  const auto pick = [&](const auto& list) {
    for (const ThreadConfig& t : list) {
      if (!is_valid_config(t, thread_m_blocks, N, K, group_size, max_shared_mem - kSharedMemSlack)) continue;
      if (!available(t, thread_m_blocks, m8, group_blocks, built)) continue;
      return t;
    }
    return ThreadConfig{};
  };
  return thread_m_blocks > 1 ? pick(kLargeBatch) : pick(kSmallBatch);
}

bool is_vllm_tile(int n_blocks, int k_blocks) {
  for (const ThreadConfig& t : kGenerated)
    if (t.thread_n == 16 * n_blocks && t.thread_k == 16 * k_blocks) return true;
  return false;
}

PlanResult check_problem(const tc_problem& p, const DeviceLimits& d) {
  if (p.abi_version != TC_PLUGIN_ABI_VERSION)
    return fail(TC_ERR_INVALID_ARGUMENT, format("abi_version %d, expected %d", p.abi_version, TC_PLUGIN_ABI_VERSION));
  if (p.M < 1 || p.N < 1 || p.K < 1)
    return fail(TC_ERR_INVALID_ARGUMENT, format("M=%d, N=%d, K=%d: all must be positive", p.M, p.N, p.K));
  if (p.N % 64 != 0) return fail(TC_ERR_INVALID_ARGUMENT, format("N=%d is not a multiple of 64", p.N));
  if (p.K % 16 != 0) return fail(TC_ERR_INVALID_ARGUMENT, format("K=%d is not a multiple of 16", p.K));
  if (p.group != 32 && p.group != 64 && p.group != 128 && p.group != -1)
    return fail(TC_ERR_INVALID_ARGUMENT, format("group %d (expected 32, 64, 128 or -1 for per-column scales)", p.group));
  if (p.group > 0 && p.K % p.group != 0)
    return fail(TC_ERR_INVALID_ARGUMENT, format("K=%d is not a multiple of group %d", p.K, p.group));
  if (p.contract != TC_CONTRACT_MARLIN && p.contract != TC_CONTRACT_FP32)
    return fail(TC_ERR_INVALID_ARGUMENT, format("contract %d (expected TC_CONTRACT_MARLIN=0 or TC_CONTRACT_FP32=1)",
                                                static_cast<int>(p.contract)));
  if (p.max_par < 0) return fail(TC_ERR_INVALID_ARGUMENT, format("max_par=%d is negative", p.max_par));
  if (p.sms < 0) return fail(TC_ERR_INVALID_ARGUMENT, format("sms=%d is negative", p.sms));
  if (d.compute_capability < 80)
    return fail(TC_ERR_UNSUPPORTED, format("compute capability %d.%d: the adapter builds vLLM's kernels for 8.0 and "
                                           "newer only (4 pipeline stages)",
                                           d.compute_capability / 10, d.compute_capability % 10));
  // Every block takes all the shared memory a block may have (marlin.cu launches with the opt-in
  // maximum), so one block fits per multiprocessor; blocks wait on each other's locks, so all of
  // them must be resident at once.
  if (p.sms > d.multiprocessors)
    return fail(TC_ERR_INVALID_ARGUMENT, format("sms=%d exceeds the device's %d multiprocessors (one block of vLLM's "
                                                "Marlin per multiprocessor, and all must be resident)",
                                                p.sms, d.multiprocessors));
  const tc_tile_config& c = p.config;
  if (c.m_blocks == 0 && c.n_blocks == 0 && c.k_blocks == 0 && c.group_blocks == 0) return {};  // automatic
  const int group_blocks = p.group == -1 ? -1 : p.group / 16;
  char g[16];
  if (c.group_blocks != group_blocks)
    return fail(TC_ERR_INVALID_ARGUMENT, format("config group_blocks %d does not match group %d (group_blocks %s)",
                                                c.group_blocks, p.group, group_name(group_blocks, g, sizeof g)));
  if (c.m_blocks < 1 || c.m_blocks > 4)
    return fail(TC_ERR_INVALID_ARGUMENT, format("config m_blocks %d (expected 1 to 4)", c.m_blocks));
  if (!is_vllm_tile(c.n_blocks, c.k_blocks))
    return fail(TC_ERR_UNSUPPORTED,
                format("vLLM's Marlin has no %dx%d tile (n_blocks %d, k_blocks %d); it builds 128x128 (8, 8), "
                       "256x64 (16, 4), 128x64 (8, 4) and 64x128 (4, 8)",
                       16 * c.n_blocks, 16 * c.k_blocks, c.n_blocks, c.k_blocks));
  if (p.N % (16 * c.n_blocks) != 0 || p.K % (16 * c.k_blocks) != 0)
    return fail(TC_ERR_INVALID_ARGUMENT, format("config %s does not fit N=%d, K=%d (tile %dx%d)", name(c).c_str(), p.N,
                                                p.K, 16 * c.n_blocks, 16 * c.k_blocks));
  if (find_instance(c.m_blocks, false, c.n_blocks, c.k_blocks, c.group_blocks) == nullptr)
    return fail(TC_ERR_UNSUPPORTED,
                format("vLLM's Marlin builds no kernel %s: its 128x128 tile has m_blocks 1 only, its 256x64 tile "
                       "m_blocks 2-4 only",
                       name(c).c_str()));
  return {};
}

}  // namespace

bool operator==(const Instance& a, const Instance& b) {
  return a.m_blocks == b.m_blocks && a.m8 == b.m8 && a.n_blocks == b.n_blocks && a.k_blocks == b.k_blocks &&
         a.threads == b.threads && a.group_blocks == b.group_blocks;
}

std::string name(const Instance& i) {
  char g[16];
  const char* group = group_name(i.group_blocks, g, sizeof g);
  if (i.m8) return format("m0.5n%dk%dg%s", i.n_blocks, i.k_blocks, group);
  return format("m%dn%dk%dg%s", i.m_blocks, i.n_blocks, i.k_blocks, group);
}

std::string name(const tc_tile_config& c) {
  char g[16];
  return format("m%dn%dk%dg%s", c.m_blocks, c.n_blocks, c.k_blocks, group_name(c.group_blocks, g, sizeof g));
}

const std::vector<Instance>& all_instances() {
  static const std::vector<Instance> instances = [] {
    std::vector<Instance> out;
    for (int group_blocks : {-1, 2, 4, 8})
      for (int m2 : {1, 2, 4, 6, 8}) {  // twice the generator's THREAD_M_BLOCKS 0.5, 1, 2, 3, 4
        const bool m8 = m2 == 1;
        const int m_blocks = std::max(m2 / 2, 1);
        for (const ThreadConfig& t : kGenerated) {
          if (t.threads == 256) {
            if (m2 <= 2 && !(t.thread_k == 128 && t.thread_n == 128)) continue;
            if (m2 > 2 && !(t.thread_k == 64 && t.thread_n == 256)) continue;
          }
          out.push_back({m_blocks, m8, t.thread_n / 16, t.thread_k / 16, t.threads, group_blocks});
        }
      }
    return out;
  }();
  return instances;
}

const std::vector<tc_tile_config>& library_configs() {
  static const std::vector<tc_tile_config> configs = [] {
    std::vector<tc_tile_config> out;
    for (const Instance& i : all_instances())
      if (!i.m8) out.push_back({i.m_blocks, i.n_blocks, i.k_blocks, i.group_blocks});
    return out;
  }();
  return configs;
}

int kernel_cache_size(int thread_k, int thread_n, int thread_m_blocks, int group_size) {
  constexpr int pack_factor = 32 / 4;
  const int tb_m = 16 * thread_m_blocks;
  const int sh_a = kStages * tb_m * thread_k * 2;
  const int sh_b = kStages * (thread_k * thread_n / pack_factor) * 4;
  const int sh_red = tb_m * (thread_n + 8) * 2;
  const int sh_bias = thread_n * 2;
  const int tmp = std::max(std::max(sh_b, sh_red), std::min(sh_b, sh_red) + sh_bias);
  const int tb_groups = group_size == -1 ? 1 : div_ceil(thread_k, group_size);
  const int sh_s = tb_groups * thread_n * 2 * kStages;
  return tmp + sh_a + sh_s;
}

PlanResult plan_problem(const tc_problem& p, bool fp32_reduce, const DeviceLimits& d, const BuiltPredicate& built) {
  PlanResult checked = check_problem(p, d);
  if (checked.status != TC_OK) return checked;

  Plan plan;
  plan.fp32_reduce = fp32_reduce;
  plan.sms = p.sms > 0 ? p.sms : d.multiprocessors;
  plan.max_par = p.max_par > 0 ? p.max_par : (p.N <= 4096 ? 16 * 8 : 16);  // marlin.cu's own rule
  plan.num_groups = p.group == -1 ? 1 : p.K / p.group;
  const int group_blocks = p.group == -1 ? -1 : p.group / 16;
  const bool forced = p.config.m_blocks != 0;

  // marlin.cu marlin_mm's loop over M, with max_thread_m_blocks = the forced m_blocks (or 4).
  int rest_m = p.M;
  int max_thread_m_blocks = forced ? p.config.m_blocks : 4;
  while (rest_m > 0) {
    const int par_count = std::min(rest_m / (16 * max_thread_m_blocks), plan.max_par);
    const int rows = par_count > 0 ? par_count * 16 * max_thread_m_blocks : rest_m;
    const int thread_m_blocks = std::min(div_ceil(rows, 16), max_thread_m_blocks);
    const bool m8 = rows <= 8;

    ThreadConfig t;
    if (forced) {
      const Instance* i = find_instance(thread_m_blocks, m8, p.config.n_blocks, p.config.k_blocks, group_blocks);
      if (i == nullptr)
        // One reason per kind of launch, without M or the configuration (the cell's name has them), so that
        // a run lists it once.
        return fail(TC_ERR_UNSUPPORTED,
                    m8 ? format("vLLM's Marlin builds no 8-row kernel with a %dx%d tile: a launch of at most 8 rows "
                                "(M <= 8, or the tail M leaves past whole launches) has none under this forced tile",
                                16 * p.config.n_blocks, 16 * p.config.k_blocks)
                       : format("vLLM's Marlin builds no %d-block (%d-row) kernel with a %dx%d tile: a launch of at most "
                                "%d rows (M <= %d, or the tail M leaves past whole launches) has none under this forced "
                                "tile",
                                thread_m_blocks, 16 * thread_m_blocks, 16 * p.config.n_blocks, 16 * p.config.k_blocks,
                                16 * thread_m_blocks, 16 * thread_m_blocks));
      t = {16 * i->k_blocks, 16 * i->n_blocks, i->threads};
    } else {
      t = determine_exec_config(thread_m_blocks, m8, p.N, p.K, p.group, group_blocks, d.max_shared_mem, built);
      // Too few tiles to fill the grid: 128x64 tiles (four times as many as the grid, or fewer).
      if (found(t) && p.N / t.thread_n * div_ceil(rows, 16 * thread_m_blocks) * 4 <= plan.sms) {
        const ThreadConfig narrow{128, 64, 128};
        if (is_valid_config(narrow, thread_m_blocks, p.N, p.K, p.group, d.max_shared_mem)) t = narrow;
      }
      if (!found(t) && max_thread_m_blocks > 1) {
        --max_thread_m_blocks;
        continue;
      }
      if (!found(t))
        return fail(TC_ERR_UNSUPPORTED,
                    format("no configuration of vLLM's Marlin fits N=%d, K=%d, group %d and %d bytes of shared memory "
                           "(M=%d)",
                           p.N, p.K, p.group, d.max_shared_mem, p.M));
    }

    if (!is_valid_config(t, thread_m_blocks, p.N, p.K, p.group, d.max_shared_mem))
      return fail(TC_ERR_UNSUPPORTED,
                  format("a %dx%d tile with m_blocks %d needs %d bytes of shared memory for group %d; the device "
                         "allows %d",
                         t.thread_n, t.thread_k, thread_m_blocks,
                         kernel_cache_size(t.thread_k, t.thread_n, thread_m_blocks, p.group), p.group,
                         d.max_shared_mem));
    const Instance* kernel = find_instance(thread_m_blocks, m8, t.thread_n / 16, t.thread_k / 16, group_blocks);
    if (kernel == nullptr || kernel->threads != t.threads)
      return fail(TC_ERR_UNSUPPORTED, format("vLLM's Marlin builds no kernel for m_blocks %d%s, a %dx%d tile, %d "
                                             "threads and group_blocks %d",
                                             thread_m_blocks, m8 ? " (8 rows)" : "", t.thread_n, t.thread_k,
                                             t.threads, group_blocks));
    if (!built(*kernel))
      return fail(TC_ERR_UNSUPPORTED, format("kernel %s is not built into this library (TC_VLLM_MARLIN_INSTANCES)",
                                             name(*kernel).c_str()));
    plan.launches.push_back({*kernel, p.M - rest_m, rows});
    rest_m -= rows;
  }

  plan.min_k_slice = 16 * plan.launches.front().kernel.k_blocks;
  for (const Launch& l : plan.launches) plan.min_k_slice = std::min(plan.min_k_slice, 16 * l.kernel.k_blocks);

  // marlin.cu marlin_gemm: the locks are one int per block (the workspace it checks holds at least
  // sms ints); the fp32 reduction's buffer holds sms tiles of min(M rounded up to 16, 64) rows and
  // the widest tile's 256 columns of fp32.
  plan.lock_bytes = static_cast<std::size_t>(plan.sms) * sizeof(int);
  if (fp32_reduce) {
    const int tile_rows = std::min(div_ceil(p.M, 16) * 16, 64);
    plan.scratch_offset = round_up(plan.lock_bytes, kAlign);
    plan.scratch_bytes = static_cast<std::size_t>(plan.sms) * tile_rows * kMaxThreadN * sizeof(float);
  }
  plan.workspace_bytes = fp32_reduce ? plan.scratch_offset + plan.scratch_bytes : plan.lock_bytes;

  PlanResult result;
  result.plan = std::move(plan);
  return result;
}

}  // namespace tc::vllm_marlin
