#include "format_model.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/truncating_fp32.h"
#include "tilecheck/reference/dtype.h"
#include "tilecheck/reference/rng.h"

namespace tc::format_model {
namespace {

using truncating_fp32::trunc32;

// The weights and activations as the (possibly faulty) kernel sees them, rows in its order of K.
struct KernelInputs {
  F64Matrix a;        // (M, K): column i is A's column perm[i]
  F64Matrix w;        // (K, N): row i is the codes' row perm[i], dequantized
  std::vector<double> column_scale;  // per-column scales (as used), else 1
};

std::uint16_t used_scale(Dtype d, std::uint16_t s, Fault fault) {
  if (fault != Fault::scale_through_fp16) return s;
  return round_to_bf16(half_to_double(round_to_half(to_double(d, s))));  // __bfloat162half then back
}

KernelInputs kernel_inputs(const Fixture& f, Fault fault) {
  const FormatWeights w = format_weights(f);
  const Dtype d = w.dtype;
  const int M = static_cast<int>(f.A.rows()), K = w.K(), N = w.N();
  const bool per_column = is_per_column(w.group);
  KernelInputs in{F64Matrix(M, K), F64Matrix(K, N), std::vector<double>(N, 1.0)};
  std::vector<int> inverse(f.perm.size());  // the scatter leaves A's column inverse[i] at kernel row i
  for (size_t i = 0; i < f.perm.size(); ++i) inverse[f.perm[i]] = static_cast<int>(i);
  for (int i = 0; i < K; ++i) {
    const int k = f.perm.empty() ? i : f.perm[i];
    const int ka = fault == Fault::act_order_scatter && !f.perm.empty() ? inverse[i] : k;
    for (int r = 0; r < M; ++r) in.a(r, i) = to_double(d, f.A(r, ka));
    const int g = fault == Fault::g_idx_wrong_side && !w.g_idx.empty() ? w.g_idx[i] : group_of(w, k);
    for (int j = 0; j < N; ++j) {
      const int q = w.codes(k, j);
      int v = code_value(w.type, q, has_zero_points(w.type) ? w.zero_points(g, j) : 0);
      if (fault == Fault::zero_point_off_by_one && has_zero_points(w.type)) v -= 1;
      if (fault == Fault::zero_point_down_in_group_0 && has_zero_points(w.type) && g == 0) v += 1;
      if (fault == Fault::zero_points_ignored || (fault == Fault::uint8_bias_8 && w.type == WeightType::uint8b128))
        v = q - 8;
      const int G = static_cast<int>(w.scales.rows());
      const int gs = fault == Fault::scale_group_off_by_one ? (g + 1) % G : g;
      const int js = fault == Fault::scale_column_swapped ? j ^ 1 : j;
      const double s = to_double(d, used_scale(d, w.scales(gs, js), fault));
      in.w(i, j) = per_column ? v : to_double(d, round_to(d, v * s));
    }
  }
  if (per_column)
    for (int j = 0; j < N; ++j)
      in.column_scale[j] =
          to_double(d, used_scale(d, w.scales(0, fault == Fault::scale_column_swapped ? j ^ 1 : j), fault));
  return in;
}

// One slice: 16-row steps [begin, end) of the kernel's order in a random order over 4 warp
// accumulators, every fp32 addition truncating.
double slice_sum(const KernelInputs& in, int r, int j, int begin, int end, const CounterRng& rng,
                 std::uint64_t& counter) {
  std::vector<int> steps(end - begin);
  std::iota(steps.begin(), steps.end(), begin);
  for (size_t s = steps.size(); s > 1; --s) std::swap(steps[s - 1], steps[rng.integer(counter++, 0, s - 1)]);
  double warps[4] = {0, 0, 0, 0};
  for (size_t s = 0; s < steps.size(); ++s)
    for (int k = 16 * steps[s]; k < 16 * steps[s] + 16; ++k) warps[s % 4] = trunc32(warps[s % 4] + in.a(r, k) * in.w(k, j));
  return trunc32(trunc32(warps[0] + warps[1]) + trunc32(warps[2] + warps[3]));
}

// Slices combined one by one through a stored partial (in the dtype for Partials::fp16), then the
// epilogue in the dtype. Scale-before-reduce (vLLM's 8-bit codes per column): each slice's sum times
// the scale, rounded to nearest in fp32 (an overflow is Inf, and Inf - Inf NaN), before it meets the
// stored partial; the total is rounded to the dtype with no scale after.
template <typename SliceSum>
std::uint16_t finish(const Expectation& e, double scale, size_t slices, SliceSum&& sum) {
  const Dtype d = e.dtype;
  const bool per_column = is_per_column(e.shape().group);
  const bool scale_first = per_column && e.numerics.numerics.epilogue == Epilogue::scale_before_reduce;
  double stored = 0;
  for (size_t n = 0; n < slices; ++n) {
    double acc = sum(n);
    if (scale_first) acc = truncating_fp32::rn32(acc * scale);
    if (n > 0) acc = trunc32(acc + stored);
    stored = e.numerics.numerics.partials == Partials::fp16 && n + 1 < slices ? to_double(d, round_to(d, acc)) : acc;
  }
  if (!per_column || scale_first) return round_to(d, stored);
  if (e.numerics.numerics.epilogue == Epilogue::round_then_scale) return round_to(d, to_double(d, round_to(d, stored)) * scale);
  return round_to(d, truncating_fp32::rn32(stored * scale));
}

Split random_split(int steps, int max_slices, const CounterRng& rng, std::uint64_t& counter) {
  const int slices = static_cast<int>(rng.integer(counter++, 1, std::min(max_slices, steps)));
  std::vector<int> inner(steps - 1);
  std::iota(inner.begin(), inner.end(), 1);
  for (int n = 0; n + 1 < slices; ++n) std::swap(inner[n], inner[rng.integer(counter++, n, steps - 2)]);
  Split s;
  s.cut.assign(inner.begin(), inner.begin() + (slices - 1));
  s.cut.push_back(0);
  s.cut.push_back(steps);
  std::sort(s.cut.begin(), s.cut.end());
  s.order.resize(slices);
  std::iota(s.order.begin(), s.order.end(), 0);
  for (int n = slices; n > 1; --n) std::swap(s.order[n - 1], s.order[rng.integer(counter++, 0, n - 1)]);
  return s;
}

}  // namespace

std::string_view name(Fault f) {
  switch (f) {
    case Fault::none: return "correct";
    case Fault::zero_point_off_by_one: return "zero_point_off_by_one";
    case Fault::scale_through_fp16: return "bf16_scale_through_fp16";
    case Fault::uint8_bias_8: return "uint8_bias_8";
    case Fault::g_idx_wrong_side: return "g_idx_wrong_side";
    case Fault::act_order_scatter: return "act_order_scatter";
    case Fault::zero_point_down_in_group_0:
      return "zero_point_down_in_group_0";
    case Fault::zero_points_ignored:
      return "zero_points_ignored";
    case Fault::scale_group_off_by_one:
      return "scale_group_off_by_one";
    case Fault::scale_column_swapped:
      return "scale_column_swapped";
  }
  return "?";
}

bool applies(Fault f, const FixtureFormat& format) {
  switch (f) {
    case Fault::none: return true;
    case Fault::zero_point_off_by_one: return has_zero_points(format.weights);
    case Fault::scale_through_fp16: return format.dtype == Dtype::bf16;
    case Fault::uint8_bias_8: return format.weights == WeightType::uint8b128;
    case Fault::g_idx_wrong_side:
    case Fault::act_order_scatter:
      return format.act_order != ActOrder::none;
    case Fault::zero_point_down_in_group_0:
    case Fault::zero_points_ignored:
      return has_zero_points(format.weights);
    case Fault::scale_group_off_by_one:  // with grouped scales (G > 1)
    case Fault::scale_column_swapped:
      return true;
  }
  return false;
}

HalfMatrix model_output(const Fixture& f, const Expectation& e, Fault fault, bool random_splits, std::uint64_t seed) {
  const KernelInputs in = kernel_inputs(f, fault);
  const int M = e.M(), N = e.N(), steps = e.shape().K / 16, kb = e.schedule.config.k_blocks;
  const CounterRng rng(seed, "format_model");
  HalfMatrix C(M, N);
  for (const TileInfo& t : e.grid.tiles) {
    for (int r = t.row0; r < t.row0 + t.rows; ++r) {
      for (int j = t.col0; j < t.col0 + t.cols; ++j) {
        std::uint64_t counter = (static_cast<std::uint64_t>(r) * N + j) << 24;
        if (random_splits) {
          const Split s = random_split(steps, e.max_slices, rng, counter);
          C(r, j) = finish(e, in.column_scale[j], s.order.size(), [&](size_t n) {
            return slice_sum(in, r, j, s.cut[s.order[n]], s.cut[s.order[n] + 1], rng, counter);
          });
        } else {
          C(r, j) = finish(e, in.column_scale[j], t.slices.size(), [&](size_t n) {
            return slice_sum(in, r, j, t.slices[n].k_tile_begin * kb, t.slices[n].k_tile_end * kb, rng, counter);
          });
        }
      }
    }
  }
  return C;
}

}  // namespace tc::format_model
