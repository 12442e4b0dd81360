// Our adapter for upstream IST-DASLab Marlin (the kernel of the seed issue), built only when
// -DTC_IST_MARLIN_SRC=<dir> names a checkout holding marlin_cuda_kernel.cu: that file is compiled
// as it is, and this file drives its host entry point through tilecheck's plugin ABI
// (tilecheck/plugin/plugin.h). Nothing of upstream's code is in this repository.
//
// What upstream implements, and so what this adapter accepts (everything else is TC_ERR_UNSUPPORTED,
// which tilecheck reports as "n/a"):
//   - the marlin contract only (fp16 partial sums in C; per-column scales applied after rounding);
//   - groups of 128 and per-column scales;
//   - ten instantiations: 128x128 tiles with m_blocks 1, and 256x64 tiles with m_blocks 1-4;
//   - m_blocks follows from M (upstream cuts M into 64-row chunks itself), so a forced
//     configuration must name the m_blocks of the problem's first chunk, min(4, ceil(M / 16)),
//     and every chunk of the problem (the tail too) must land on an instantiation.
// Its numerics (tc_plugin_numerics): fp32 MMA accumulators, partial sums between thread blocks
// stored as fp16 in C (global_reduce), per-column scales applied after rounding to fp16
// (write_result), and the striped split of K over the grid that tilecheck's schedule model follows.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>

#include "tilecheck/plugin/plugin.h"

// Upstream's host entry point (marlin_cuda_kernel.cu), declared here with the signature its
// README documents; it returns 0, 1 (problem shape) or 2 (no kernel for the shape).
int marlin_cuda(const void* A, const void* B, void* C, void* s, int prob_m, int prob_n, int prob_k, void* workspace,
                int groupsize, int dev, cudaStream_t stream, int thread_k, int thread_n, int sms, int max_par);

// The variant tilecheck reports; a mutant of upstream's file (plugins/ist-marlin/mutants.txt) is built
// with its own, so that its cells, error maps and reports are told apart from the clean adapter's.
#ifndef TC_IST_MARLIN_VARIANT
#define TC_IST_MARLIN_VARIANT "upstream-2f6d7c1"
#endif

namespace {

constexpr int kDefaultMaxPar = 16;

constexpr tc_tile_config kInstantiations[] = {
    {1, 8, 8, -1}, {1, 8, 8, 8},  {1, 16, 4, -1}, {1, 16, 4, 8}, {2, 16, 4, -1},
    {2, 16, 4, 8}, {3, 16, 4, -1}, {3, 16, 4, 8}, {4, 16, 4, -1}, {4, 16, 4, 8},
};

bool instantiated(int m_blocks, int n_blocks, int k_blocks, int group_blocks) {
  for (const tc_tile_config& c : kInstantiations)
    if (c.m_blocks == m_blocks && c.n_blocks == n_blocks && c.k_blocks == k_blocks && c.group_blocks == group_blocks)
      return true;
  return false;
}

// Formats the reason into the caller's buffer. (No std::to_string here: its digit table is a
// process-wide unique symbol that a plugin must not export; docs/plugin.md.)
template <typename... Args>
tc_status fail(tc_status s, char* message, size_t capacity, const char* format, Args... args) {
  if (message != nullptr && capacity > 0) std::snprintf(message, capacity, format, args...);
  return s;
}

// The m_blocks of every launch upstream makes for M rows: 64-row chunks (four 16-row blocks),
// batched, then one tail of the remaining 16-row blocks.
// Returns the m_blocks of the first chunk without an instantiation, or 0.
int missing_chunk(int M, int n_blocks, int k_blocks, int group_blocks) {
  const int blocks = (M + 15) / 16;
  for (int m : {std::min(blocks, 4), blocks > 4 ? blocks % 4 : 0})
    if (m != 0 && !instantiated(m, n_blocks, k_blocks, group_blocks)) return m;
  return 0;
}

// Checks what upstream cannot run; fills the tile it will use.
tc_status check(const tc_problem& p, int& thread_n, int& thread_k, char* message, size_t capacity) {
  if (p.abi_version != TC_PLUGIN_ABI_VERSION)
    return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "abi_version %d, expected %d", p.abi_version,
                TC_PLUGIN_ABI_VERSION);
  if (p.M < 1 || p.N < 1 || p.K < 1)
    return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "M=%d, N=%d, K=%d: all must be positive", p.M, p.N, p.K);
  if (p.contract != TC_CONTRACT_MARLIN)
    return fail(TC_ERR_UNSUPPORTED, message, capacity, "%s", "upstream Marlin implements only the marlin contract");
  if (p.group != 128 && p.group != -1)
    return fail(TC_ERR_UNSUPPORTED, message, capacity,
                "upstream Marlin implements groups of 128 and per-column scales, not group %d", p.group);
  const int group_blocks = p.group == -1 ? -1 : p.group / 16;
  int n_blocks = p.config.n_blocks, k_blocks = p.config.k_blocks;
  if (p.config.m_blocks == 0) {  // upstream's own choice
    n_blocks = p.M <= 16 ? 8 : 16;
    k_blocks = p.M <= 16 ? 8 : 4;
  } else {
    const int first = std::min(4, (p.M + 15) / 16);
    if (p.config.m_blocks != first)
      return fail(TC_ERR_UNSUPPORTED, message, capacity,
                  "upstream Marlin derives m_blocks from M (M=%d gives %d, not %d)", p.M, first, p.config.m_blocks);
    if (p.config.group_blocks != group_blocks)
      return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "config group_blocks %d does not match group %d",
                  p.config.group_blocks, p.group);
  }
  if (const int m = missing_chunk(p.M, n_blocks, k_blocks, group_blocks))
    return fail(TC_ERR_UNSUPPORTED, message, capacity,
                "upstream Marlin has no kernel for m_blocks %d with a %dx%d tile and group_blocks %d (M=%d needs it)", m,
                16 * n_blocks, 16 * k_blocks, group_blocks, p.M);
  thread_n = 16 * n_blocks, thread_k = 16 * k_blocks;
  if (p.N % thread_n != 0 || p.K % thread_k != 0)
    return fail(TC_ERR_UNSUPPORTED, message, capacity, "N=%d and K=%d must be multiples of the %dx%d tile", p.N, p.K,
                thread_n, thread_k);
  return TC_OK;
}

size_t lock_bytes(const tc_problem& p) {
  const int max_par = p.max_par > 0 ? p.max_par : kDefaultMaxPar;
  return static_cast<size_t>((p.N + 127) / 128) * max_par * sizeof(int);
}

}  // namespace

extern "C" {

TC_PLUGIN_EXPORT const tc_plugin_info_t* tc_plugin_info(void) {
  static const tc_plugin_info_t info = {TC_PLUGIN_ABI_VERSION, "ist-marlin", TC_IST_MARLIN_VARIANT,
                                        static_cast<int>(sizeof kInstantiations / sizeof kInstantiations[0]),
                                        kInstantiations};
  return &info;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_size(const tc_problem* p, size_t* bytes, char* message,
                                                    size_t capacity) {
  if (p == nullptr || bytes == nullptr) return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", "null argument");
  // The same checks as a run: tilecheck learns that a cell is n/a without a launch (docs/plugin.md).
  int thread_n = 0, thread_k = 0;
  const tc_status checked = check(*p, thread_n, thread_k, message, capacity);
  if (checked != TC_OK) return checked;
  *bytes = lock_bytes(*p);
  return TC_OK;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_run(const tc_problem* p, char* message, size_t capacity) {
  if (p == nullptr) return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", "null problem");
  int thread_n = 0, thread_k = 0;
  const tc_status checked = check(*p, thread_n, thread_k, message, capacity);
  if (checked != TC_OK) return checked;
  if (p->A == nullptr || p->B == nullptr || p->scales == nullptr || p->C == nullptr || p->workspace == nullptr)
    return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", "a pointer is null");
  if (p->workspace_bytes < lock_bytes(*p))
    return fail(TC_ERR_WORKSPACE, message, capacity, "workspace of %zu bytes; %zu needed", p->workspace_bytes,
                lock_bytes(*p));
  int device = 0;
  cudaGetDevice(&device);
  const int sms = p->sms > 0 ? p->sms : -1;
  const int max_par = p->max_par > 0 ? p->max_par : kDefaultMaxPar;
  const int ret = marlin_cuda(p->A, p->B, p->C, const_cast<void*>(p->scales), p->M, p->N, p->K, p->workspace, p->group,
                              device, static_cast<cudaStream_t>(p->stream), thread_k, thread_n, sms, max_par);
  if (ret != 0)
    return fail(TC_ERR_UNSUPPORTED, message, capacity, "marlin_cuda returned %d", ret);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return fail(TC_ERR_CUDA, message, capacity, "launch: %s", cudaGetErrorString(e));
  return TC_OK;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_numerics(const tc_problem* p, tc_numerics* numerics, char* message,
                                              size_t capacity) {
  if (p == nullptr || numerics == nullptr)
    return fail(TC_ERR_INVALID_ARGUMENT, message, capacity, "%s", "null argument");
  int thread_n = 0, thread_k = 0;
  const tc_status checked = check(*p, thread_n, thread_k, message, capacity);
  if (checked != TC_OK) return checked;
  *numerics = {TC_ACCUMULATOR_FP32, TC_PARTIALS_FP16, TC_EPILOGUE_ROUND_THEN_SCALE, TC_SCHEDULE_MARLIN_STRIPED, thread_k};
  return TC_OK;
}

}  // extern "C"
