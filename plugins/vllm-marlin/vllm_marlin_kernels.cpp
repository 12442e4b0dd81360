// The kernels of vLLM's Marlin the adapter knows (its generator's list, the subset built) and the
// formats they run: the list CMake builds from and tc_plugin_formats lists. vllm_marlin_plan.h says
// what each function gives; the host logic that picks among them is vllm_marlin_plan.cpp.
#include "vllm_marlin_plan.h"

#include <algorithm>
#include <cstdio>
#include <initializer_list>

#include "tilecheck/core/format.h"

namespace tc::vllm_marlin {
namespace {

// A tile of thread_k x thread_n and a thread count.
struct GeneratedTile {
  int thread_k, thread_n, threads;
};
// generate_kernels.py's THREAD_CONFIGS, in its order; 256 threads only for 128x128 tiles with at most
// one m_block and for 256x64 tiles with more.
constexpr GeneratedTile kGenerated[] = {{128, 128, 256}, {64, 256, 256}, {64, 128, 128}, {128, 64, 128}};

// The generator's kernels of one type pair and group for these M tiles (twice THREAD_M_BLOCKS: 1 is
// the 8-row tile), in its order, with its 256-thread rule.
void add_generated(std::vector<Instance>& out, int dtype, int weight, int group_blocks,
                   std::initializer_list<int> m2s) {
  for (int m2 : m2s) {
    const bool m8 = m2 == 1;
    const int m_blocks = std::max(m2 / 2, 1);
    for (const GeneratedTile& t : kGenerated) {
      if (t.threads == 256) {
        if (m2 <= 2 && !(t.thread_k == 128 && t.thread_n == 128)) continue;
        if (m2 > 2 && !(t.thread_k == 64 && t.thread_n == 256)) continue;
      }
      out.push_back({m_blocks, m8, t.thread_n / 16, t.thread_k / 16, t.threads, group_blocks, dtype, weight});
    }
  }
}

}  // namespace

const char* group_name(int group_blocks, char* buffer, std::size_t capacity) {
  if (group_blocks < 0) return "col";
  if (group_blocks == 0) return "act";
  std::snprintf(buffer, capacity, "%d", group_blocks);
  return buffer;
}

const char* dtype_name(int dtype) { return dtype == TC_DTYPE_BF16 ? "bf16" : "fp16"; }
const char* weight_name(int weight) {
  return weight == TC_WEIGHT_UINT4 ? "uint4" : weight == TC_WEIGHT_UINT8B128 ? "uint8b128" : "uint4b8";
}

bool is_vllm_tile(int n_blocks, int k_blocks) {
  for (const GeneratedTile& t : kGenerated)
    if (t.thread_n == 16 * n_blocks && t.thread_k == 16 * k_blocks) return true;
  return false;
}

bool operator==(const Instance& a, const Instance& b) {
  return a.m_blocks == b.m_blocks && a.m8 == b.m8 && a.n_blocks == b.n_blocks && a.k_blocks == b.k_blocks &&
         a.threads == b.threads && a.group_blocks == b.group_blocks && a.dtype == b.dtype && a.weight == b.weight;
}

std::string name(const Instance& i) {
  char g[16];
  const char* group = group_name(i.group_blocks, g, sizeof g);
  const std::string types = i.dtype == TC_DTYPE_FP16 && i.weight == TC_WEIGHT_UINT4B8
                                ? std::string()
                                : format("%s-%s-", dtype_name(i.dtype), weight_name(i.weight));
  if (i.m8) return types + format("m0.5n%dk%dg%s", i.n_blocks, i.k_blocks, group);
  return types + format("m%dn%dk%dg%s", i.m_blocks, i.n_blocks, i.k_blocks, group);
}

std::string name(const tc_tile_config& c) {
  char g[16];
  return format("m%dn%dk%dg%s", c.m_blocks, c.n_blocks, c.k_blocks, group_name(c.group_blocks, g, sizeof g));
}

const std::vector<Instance>& all_instances() {
  static const std::vector<Instance> instances = [] {
    std::vector<Instance> out;
    for (int group_blocks : {-1, 2, 4, 8})
      add_generated(out, TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, group_blocks, {1, 2, 4, 6, 8});
    // The other formats (all_instances() in the header says which subset, and why).
    add_generated(out, TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, 0, {1, 2});
    const struct {
      int dtype, weight;
    } pairs[] = {{TC_DTYPE_BF16, TC_WEIGHT_UINT4B8},
                 {TC_DTYPE_FP16, TC_WEIGHT_UINT4},
                 {TC_DTYPE_BF16, TC_WEIGHT_UINT4},
                 {TC_DTYPE_FP16, TC_WEIGHT_UINT8B128},
                 {TC_DTYPE_BF16, TC_WEIGHT_UINT8B128}};
    for (const auto& t : pairs) {
      const bool zero_points = t.weight == TC_WEIGHT_UINT4;  // no act-order kernel (group_blocks 0)
      for (int group_blocks : {-1, 0, 2, 4, 8}) {
        if (group_blocks == 0 && zero_points) continue;
        if (group_blocks == 8)
          add_generated(out, t.dtype, t.weight, group_blocks, {1, 2, 4, 6, 8});
        else
          add_generated(out, t.dtype, t.weight, group_blocks, {1, 2});
      }
    }
    return out;
  }();
  return instances;
}

const std::vector<tc_tile_config>& library_configs() {
  static const std::vector<tc_tile_config> configs = [] {
    std::vector<tc_tile_config> out;
    for (int k = 0; k < kFp16Uint4b8Instances; ++k) {
      const Instance& i = all_instances()[static_cast<std::size_t>(k)];
      if (!i.m8) out.push_back({i.m_blocks, i.n_blocks, i.k_blocks, i.group_blocks});
    }
    return out;
  }();
  return configs;
}

const std::vector<tc_format>& vllm_formats() {
  static const std::vector<tc_format> formats = [] {
    std::vector<tc_format> out;
    for (int dtype : {TC_DTYPE_FP16, TC_DTYPE_BF16})
      for (int weight : {TC_WEIGHT_UINT4B8, TC_WEIGHT_UINT4, TC_WEIGHT_UINT8B128}) {
        out.push_back({dtype, dtype, dtype, weight, 0, 1});
        out.push_back({dtype, dtype, dtype, weight, 1, 1});
        if (weight != TC_WEIGHT_UINT4) out.push_back({dtype, dtype, dtype, weight, 1, 0});
      }
    return out;
  }();
  return formats;
}

std::string format_refusal(const tc_format& f) {
  const std::string fields =
      format("format a_dtype=%d scale_dtype=%d c_dtype=%d weight_type=%d act_order=%d is_k_full=%d", f.a_dtype,
             f.scale_dtype, f.c_dtype, f.weight_type, f.act_order, f.is_k_full);
  if (f.a_dtype != TC_DTYPE_FP16 && f.a_dtype != TC_DTYPE_BF16)
    return fields + ": vLLM's Marlin runs 16-bit activations fp16 (1) or bf16 (2) here";
  if (f.scale_dtype != f.a_dtype || f.c_dtype != f.a_dtype)
    return fields + ": vLLM's Marlin takes scales and C of A's type for 16-bit activations";
  if (f.weight_type != TC_WEIGHT_UINT4B8 && f.weight_type != TC_WEIGHT_UINT4 && f.weight_type != TC_WEIGHT_UINT8B128)
    return fields + ": weight_type is none of uint4b8 (1), uint4 (2), uint8b128 (3)";
  if ((f.act_order != 0 && f.act_order != 1) || (f.is_k_full != 0 && f.is_k_full != 1) ||
      (f.is_k_full == 0 && f.act_order == 0))
    return fields + ": act_order and is_k_full are 0 or 1, is_k_full 0 only with act-order";
  if (f.weight_type == TC_WEIGHT_UINT4 && f.act_order == 1 && f.is_k_full == 0)
    return fields +
           ": vLLM's Marlin has no act-order kernel with zero points (marlin_template.h asserts it; "
           "on the whole K, is_k_full 1, it runs the grouped kernel)";
  return "";
}

int kernel_group_blocks(const tc_format& f, int group) {
  if (f.act_order == 1 && f.is_k_full == 0) return 0;
  return group == -1 ? -1 : group / 16;
}

std::vector<tc_format> formats_with_kernels(const std::function<bool(const Instance&)>& built) {
  std::vector<tc_format> out;
  for (const tc_format& f : vllm_formats()) {
    const bool act_kernel = f.act_order == 1 && f.is_k_full == 0;
    for (const Instance& i : all_instances()) {
      if (i.dtype != f.a_dtype || i.weight != f.weight_type) continue;
      // Act-order on the whole K runs the grouped kernels, on a shard the act-order ones; without
      // act-order, the grouped and per-column ones.
      const bool runs = act_kernel ? i.group_blocks == 0 : f.act_order ? i.group_blocks > 0 : i.group_blocks != 0;
      if (runs && built(i)) {
        out.push_back(f);
        break;
      }
    }
  }
  return out;
}
}  // namespace tc::vllm_marlin
