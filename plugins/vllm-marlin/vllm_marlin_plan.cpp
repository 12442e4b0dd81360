// vLLM's Marlin host logic for 16-bit activations and integer codes, reimplemented (vllm_marlin_plan.h
// says what and from where). Messages are formatted with snprintf: a plugin must not carry std::to_string's digit
// table, a process-wide unique symbol (docs/plugin.md).
#include "vllm_marlin_plan.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>

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
int weight_bits(int weight) { return weight == TC_WEIGHT_UINT8B128 ? 8 : 4; }

// What of a problem picks its kernels besides the tile: the types and the kernel's group_blocks, and
// vLLM's group_size for the shared-memory estimate (0 for the act-order kernel, as marlin.cu sets it).
struct KernelKind {
  int dtype = TC_DTYPE_FP16;
  int weight = TC_WEIGHT_UINT4B8;
  int group_blocks = -1;
  int group_size = -1;
};

// The instance with these template values, if the adapter knows one (its thread count is then known).
const Instance* find_instance(int m_blocks, bool m8, int n_blocks, int k_blocks, const KernelKind& kind) {
  for (const Instance& i : all_instances())
    if (i.m_blocks == m_blocks && i.m8 == m8 && i.n_blocks == n_blocks && i.k_blocks == k_blocks &&
        i.group_blocks == kind.group_blocks && i.dtype == kind.dtype && i.weight == kind.weight)
      return &i;
  return nullptr;
}

// marlin.cu is_valid_config for 16-bit activations and integer codes.
bool is_valid_config(const ThreadConfig& t, int thread_m_blocks, int N, int K, const KernelKind& kind,
                     int max_shared_mem) {
  if (!found(t)) return false;
  if (K % t.thread_k != 0 || N % t.thread_n != 0) return false;
  if (t.thread_n < kMinThreadNK || t.thread_k < kMinThreadNK) return false;
  if (t.threads < 128) return false;
  return kernel_cache_size(t.thread_k, t.thread_n, thread_m_blocks, kind.group_size, kind.weight) <= max_shared_mem;
}

bool available(const ThreadConfig& t, int thread_m_blocks, bool m8, const KernelKind& kind,
               const BuiltPredicate& built) {
  const Instance* i = find_instance(thread_m_blocks, m8, t.thread_n / 16, t.thread_k / 16, kind);
  return i != nullptr && i->threads == t.threads && built(*i);
}

// marlin.cu determine_exec_config: the first thread configuration, by priority, that fits shared
// memory (less 512 bytes) and has a kernel.
ThreadConfig determine_exec_config(int thread_m_blocks, bool m8, int N, int K, const KernelKind& kind,
                                   int max_shared_mem, const BuiltPredicate& built) {
  const auto pick = [&](const auto& list) {
    for (const ThreadConfig& t : list) {
      if (!is_valid_config(t, thread_m_blocks, N, K, kind, max_shared_mem - kSharedMemSlack)) continue;
      if (!available(t, thread_m_blocks, m8, kind, built)) continue;
      return t;
    }
    return ThreadConfig{};
  };
  return thread_m_blocks > 1 ? pick(kLargeBatch) : pick(kSmallBatch);
}

// The problem's format; all zero (a problem written against ABI 1's fields) is ABI 1's.
tc_format problem_format(const tc_problem& p) {
  const tc_format f = p.format;
  const bool unset = f.a_dtype == 0 && f.scale_dtype == 0 && f.c_dtype == 0 && f.weight_type == 0 && f.act_order == 0 &&
                     f.is_k_full == 0;
  return unset ? tc_format{TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, 0, 1} : f;
}

PlanResult check_format(const tc_problem& p, const tc_format& f) {
  const std::string refusal = format_refusal(f);
  if (!refusal.empty()) return fail(TC_ERR_UNSUPPORTED, refusal);
  const bool abi1 = p.format.a_dtype == 0;  // the loader fills bits and num_groups; a hand-made problem may not
  if (!abi1 && p.bits != weight_bits(f.weight_type))
    return fail(TC_ERR_INVALID_ARGUMENT, format("bits=%d for weight_type=%d (%s: %d-bit codes)", p.bits, f.weight_type,
                                                weight_name(f.weight_type), weight_bits(f.weight_type)));
  const int groups = p.group == -1 ? 1 : p.K / p.group;
  if (!abi1 && p.num_groups != groups)
    return fail(TC_ERR_INVALID_ARGUMENT,
                format("num_groups=%d for K=%d and group %d (expected %d)", p.num_groups, p.K, p.group, groups));
  // marlin.cu: act-order on the whole K needs more than one group (num_groups > 1); on a shard of K
  // the scales are grouped too (group_size 0 stands for groups of any size).
  if (f.act_order && p.group == -1)
    return fail(TC_ERR_INVALID_ARGUMENT, "act_order=1 with per-column scales (group -1): act-order needs groups");
  if (f.act_order && f.is_k_full && groups < 2)
    return fail(TC_ERR_INVALID_ARGUMENT,
                format("act_order=1 is_k_full=1 with one group (K=%d, group %d): vLLM's Marlin needs two or more", p.K,
                       p.group));
  return {};
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
  const tc_format f = problem_format(p);
  PlanResult format_checked = check_format(p, f);
  if (format_checked.status != TC_OK) return format_checked;
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
  // The tiles vLLM pairs with m_blocks are the same for every format (the generator's 256-thread rule).
  if (find_instance(c.m_blocks, false, c.n_blocks, c.k_blocks,
                    KernelKind{TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, c.group_blocks, p.group}) == nullptr)
    return fail(TC_ERR_UNSUPPORTED,
                format("vLLM's Marlin builds no kernel %s: its 128x128 tile has m_blocks 1 only, its 256x64 tile "
                       "m_blocks 2-4 only",
                       name(c).c_str()));
  return {};
}

}  // namespace

int kernel_cache_size(int thread_k, int thread_n, int thread_m_blocks, int group_size, int weight) {
  const int pack_factor = 32 / weight_bits(weight);
  const int tb_m = 16 * thread_m_blocks;
  const int sh_a = kStages * tb_m * thread_k * 2;
  const int sh_b = kStages * (thread_k * thread_n / pack_factor) * 4;
  const int sh_red = tb_m * (thread_n + 8) * 2;
  const int sh_bias = thread_n * 2;
  const int tmp = std::max(std::max(sh_b, sh_red), std::min(sh_b, sh_red) + sh_bias);
  // Scales: one row per group a tile spans and stage; the act-order kernel (group_size 0, groups of
  // any size, 32 rows at least) caches a chunk of two pipelines' worth, at least 32 groups, and each
  // stage's g_idx.
  const bool act_kernel = group_size == 0;
  const int tb_groups = group_size == -1 ? 1 : div_ceil(thread_k, act_kernel ? 32 : group_size);
  const int sh_s =
      act_kernel ? std::max(tb_groups * kStages * 2, 32) * thread_n * 2 : tb_groups * thread_n * 2 * kStages;
  const int sh_g_idx = act_kernel ? kStages * thread_k / 4 : 0;
  const int sh_zp = weight == TC_WEIGHT_UINT4 ? sh_s / 4 : 0;  // 4-bit zero points: a quarter of the scales' bytes
  return tmp + sh_a + sh_s + sh_zp + sh_g_idx;
}

PlanResult plan_problem(const tc_problem& p, bool fp32_reduce, const DeviceLimits& d, const BuiltPredicate& built) {
  PlanResult checked = check_problem(p, d);
  if (checked.status != TC_OK) return checked;

  Plan plan;
  plan.fp32_reduce = fp32_reduce;
  plan.sms = p.sms > 0 ? p.sms : d.multiprocessors;
  plan.max_par = p.max_par > 0 ? p.max_par : (p.N <= 4096 ? 16 * 8 : 16);  // marlin.cu's own rule
  plan.num_groups = p.group == -1 ? 1 : p.K / p.group;
  plan.format = problem_format(p);
  // marlin.cu: act-order on the whole K permutes A and then runs the grouped kernel (every group holds
  // `group` consecutive rows of the permuted K); on a shard, the act-order kernel with group_size 0.
  KernelKind kind;
  kind.dtype = plan.format.a_dtype;
  kind.weight = plan.format.weight_type;
  kind.group_blocks = kernel_group_blocks(plan.format, p.group);
  kind.group_size = kind.group_blocks == 0 ? 0 : p.group;
  const int group_blocks = kind.group_blocks;
  const bool forced = p.config.m_blocks != 0;
  const std::string types = format("%s-%s", dtype_name(kind.dtype), weight_name(kind.weight));

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
      const KernelKind generated{TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, p.group == -1 ? -1 : p.group / 16, p.group};
      const Instance* i = find_instance(thread_m_blocks, m8, p.config.n_blocks, p.config.k_blocks, generated);
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
      if (find_instance(thread_m_blocks, m8, p.config.n_blocks, p.config.k_blocks, kind) == nullptr)
        return fail(TC_ERR_UNSUPPORTED,
                    format("the adapter builds no %s kernel of %d m-blocks for group_blocks %d: of vLLM's kernels for "
                           "formats other than fp16-uint4b8 it builds the small-batch ones (m0.5, m1) for every group "
                           "and m2-m4 for groups of 128 only (docs/vllm-marlin.md)",
                           types.c_str(), thread_m_blocks, group_blocks));
      t = {16 * i->k_blocks, 16 * i->n_blocks, i->threads};
    } else {
      t = determine_exec_config(thread_m_blocks, m8, p.N, p.K, kind, d.max_shared_mem, built);
      // Too few tiles to fill the grid: 128x64 tiles (four times as many as the grid, or fewer).
      if (found(t) && p.N / t.thread_n * div_ceil(rows, 16 * thread_m_blocks) * 4 <= plan.sms) {
        const ThreadConfig narrow{128, 64, 128};
        if (is_valid_config(narrow, thread_m_blocks, p.N, p.K, kind, d.max_shared_mem)) t = narrow;
      }
      if (!found(t) && max_thread_m_blocks > 1) {
        --max_thread_m_blocks;
        continue;
      }
      // Nothing built fits: say so when a kernel the adapter knows would have.
      const ThreadConfig known = found(t) ? t
                                          : determine_exec_config(thread_m_blocks, m8, p.N, p.K, kind, d.max_shared_mem,
                                                                  [](const Instance&) { return true; });
      if (!found(t) && found(known))
        return fail(
            TC_ERR_UNSUPPORTED,
            format("kernel %s is not built into this library (TC_VLLM_MARLIN_INSTANCES, TC_VLLM_MARLIN_FORMATS)",
                   name(*find_instance(thread_m_blocks, m8, known.thread_n / 16, known.thread_k / 16, kind)).c_str()));
      if (!found(t))
        return fail(TC_ERR_UNSUPPORTED,
                    format("no configuration of vLLM's Marlin fits N=%d, K=%d, group %d, %s and %d bytes of shared "
                           "memory (M=%d)",
                           p.N, p.K, p.group, types.c_str(), d.max_shared_mem, p.M));
    }

    if (!is_valid_config(t, thread_m_blocks, p.N, p.K, kind, d.max_shared_mem))
      return fail(TC_ERR_UNSUPPORTED,
                  format("a %dx%d tile with m_blocks %d needs %d bytes of shared memory for group %d and %s; the "
                         "device allows %d",
                         t.thread_n, t.thread_k, thread_m_blocks,
                         kernel_cache_size(t.thread_k, t.thread_n, thread_m_blocks, kind.group_size, kind.weight),
                         p.group, types.c_str(), d.max_shared_mem));
    const Instance* kernel = find_instance(thread_m_blocks, m8, t.thread_n / 16, t.thread_k / 16, kind);
    if (kernel == nullptr || kernel->threads != t.threads)
      return fail(TC_ERR_UNSUPPORTED, format("vLLM's Marlin builds no kernel for m_blocks %d%s, a %dx%d tile, %d "
                                             "threads and group_blocks %d",
                                             thread_m_blocks, m8 ? " (8 rows)" : "", t.thread_n, t.thread_k,
                                             t.threads, group_blocks));
    if (!built(*kernel))
      return fail(TC_ERR_UNSUPPORTED, format("kernel %s is not built into this library (TC_VLLM_MARLIN_INSTANCES, "
                                             "TC_VLLM_MARLIN_FORMATS)",
                                             name(*kernel).c_str()));
    plan.launches.push_back({*kernel, p.M - rest_m, rows});
    rest_m -= rows;
  }

  plan.min_k_slice = 16 * plan.launches.front().kernel.k_blocks;
  for (const Launch& l : plan.launches) plan.min_k_slice = std::min(plan.min_k_slice, 16 * l.kernel.k_blocks);

  // marlin.cu marlin_gemm: the locks are one int per block (the workspace it checks holds at least
  // sms ints); the fp32 reduction's buffer holds sms tiles of min(M rounded up to 16, 64) rows and
  // the widest tile's 256 columns of fp32.
  // With act-order, A permuted (marlin_gemm's a_tmp, M x K of A's type) follows, from a 256-byte
  // boundary: the permutation writes all of it before the GEMM reads it.
  plan.lock_bytes = static_cast<std::size_t>(plan.sms) * sizeof(int);
  const bool act_order = plan.format.act_order == 1;
  if (fp32_reduce || act_order) plan.scratch_offset = round_up(plan.lock_bytes, kAlign);
  if (fp32_reduce) {
    const int tile_rows = std::min(div_ceil(p.M, 16) * 16, 64);
    plan.scratch_bytes = static_cast<std::size_t>(plan.sms) * tile_rows * kMaxThreadN * sizeof(float);
  }
  if (act_order) {
    plan.permuted_a_offset = round_up(plan.scratch_offset + plan.scratch_bytes, kAlign);
    plan.permuted_a_bytes = static_cast<std::size_t>(p.M) * p.K * 2;  // 16-bit elements
    plan.scratch_bytes = plan.permuted_a_offset + plan.permuted_a_bytes - plan.scratch_offset;
  }
  plan.workspace_bytes = plan.scratch_bytes > 0 ? plan.scratch_offset + plan.scratch_bytes : plan.lock_bytes;

  PlanResult result;
  result.plan = std::move(plan);
  return result;
}

tc_numerics declared_numerics(const Plan& plan) {
  const bool eight_bit = plan.format.weight_type == TC_WEIGHT_UINT8B128;
  return {TC_ACCUMULATOR_FP32, plan.fp32_reduce ? TC_PARTIALS_FP32 : TC_PARTIALS_FP16,
          eight_bit ? TC_EPILOGUE_SCALE_BEFORE_REDUCE : TC_EPILOGUE_ROUND_THEN_SCALE, TC_SCHEDULE_UNKNOWN,
          plan.min_k_slice};
}

}  // namespace tc::vllm_marlin
