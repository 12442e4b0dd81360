#include "synthetic.h"

#include <algorithm>
#include <cmath>

#include "tilecheck/core/error.h"
#include "tilecheck/reference/rng.h"
#include "common/truncating_fp32.h"

namespace tc::synthetic {
namespace {

using truncating_fp32::rn16;
using truncating_fp32::trunc32;

HalfMatrix inputs_a(const Problem& p) {
  const Shape& s = p.shape;
  const CounterRng rng(p.seed, "A");
  HalfMatrix A = HalfMatrix::Zero(s.M, s.K);
  if (p.distribution == "onehot_a") {
    for (int i = 0; i < s.M; ++i) A(i, rng.integer(i, 0, s.K - 1)) = round_to_half(1.0);
  } else if (p.distribution == "exact") {  // -1, 0, 1: with power-of-two scales every sum is exact
    for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = round_to_half(double(rng.integer(i, -1, 1)));
  } else {  // normal, or its magnitude (positive: no cancellation, every partial sum grows)
    const bool positive = p.distribution == "positive";
    for (Eigen::Index i = 0; i < A.size(); ++i) {
      const double x = std::ldexp(double(rng.normal_units(i)), -32);
      A.data()[i] = round_to_half(positive ? std::fabs(x) : x);
    }
  }
  return A;
}

QuantizedWeights inputs_w(const Problem& p) {
  const Shape& s = p.shape;
  const CounterRng rng(p.seed, "W");
  if (p.distribution == "exact") {
    QuantizedWeights w;
    w.group = s.group;
    w.codes.resize(s.K, s.N);
    w.scales.resize(scale_rows(s.K, s.group), s.N);
    for (Eigen::Index i = 0; i < w.codes.size(); ++i) w.codes.data()[i] = static_cast<std::uint8_t>(rng.integer(i, 0, 15));
    const CounterRng rs(p.seed, "scales");
    for (Eigen::Index i = 0; i < w.scales.size(); ++i) w.scales.data()[i] = round_to_half(std::ldexp(1.0, int(rs.integer(i, -1, 0))));
    return w;
  }
  F64Matrix W(s.K, s.N);
  for (Eigen::Index i = 0; i < W.size(); ++i) W.data()[i] = std::ldexp(double(rng.normal_units(i)), -32);
  if (p.distribution == "positive") W = W.cwiseAbs();
  return quantize(W, s.group);
}

}  // namespace

std::string name(const Problem& p) {
  const Shape& s = p.shape;
  return cat("m", s.M, "n", s.N, "k", s.K, "g", s.group < 0 ? std::string("col") : std::to_string(s.group), "_",
             tc::name(p.config), "_", name(p.contract), "_sms", p.sms, "_", p.distribution);
}

void PrintTo(const Problem& p, std::ostream* out) { *out << name(p); }

Expectation synthetic_expectation(const Problem& p) {
  CaseInfo info{name(p), p.distribution, p.seed, "synthetic (tests/compare)", "fp16-uint4b8"};
  return make_expectation(inputs_a(p), inputs_w(p), p.contract, make_schedule(p.shape, p.config, p.sms), info);
}

Problem grid_problem(Contract contract, int group, const char* distribution) {
  return Problem{{40, 512, 512, group}, {1, 8, 8, group < 0 ? -1 : group / 16}, 7, contract, distribution};
}

HalfMatrix model_kernel(const Expectation& e, const Faults& f) {
  const Shape& s = e.shape();
  const int G = static_cast<int>(e.w.scales.rows()), kb = e.schedule.config.k_blocks;
  F64Matrix a = to_double(e.A), w(s.K, s.N), w_before(s.K, s.N);  // w_before: the k-tile before's scales
  for (int k = 0; k < s.K; ++k)
    for (int j = 0; j < s.N; ++j) {
      const int g = is_per_column(s.group) ? 0 : std::clamp(k / s.group + f.scale_group_offset, 0, G - 1);
      const int g_before = is_per_column(s.group) ? 0 : std::max(0, (k - 16 * kb) / s.group);
      w(k, j) = half_to_double(dequantized_weight(e.w.codes(k, j), e.w.scales(g, j), s.group));
      if (f.code_map != 0) {
        const int q = e.w.codes(k, j);
        const int value = f.code_map == 1 ? q - 7 : f.code_map == 2 ? (q < 8 ? q : q - 16) : (q & 7) - kZeroPoint;
        w(k, j) = is_per_column(s.group) ? value : half_to_double(round_to_half(value * half_to_double(e.w.scales(g, j))));
      }
      w_before(k, j) = half_to_double(dequantized_weight(e.w.codes(k, j), e.w.scales(g_before, j), s.group));
    }
  HalfMatrix C(s.M, s.N);
  const auto final_rounding = f.epilogue_toward_zero ? truncating_fp32::FinalRounding::toward_zero
                                                     : truncating_fp32::FinalRounding::nearest;
  for (const TileInfo& t : e.grid.tiles) {
    for (int i = t.row0; i < t.row0 + t.rows; ++i) {
      for (int j = t.col0; j < t.col0 + t.cols; ++j) {
        const auto slice_sum = [&](size_t n) {
          const Slice& sl = t.slices[n];
          double acc = 0;
          for (int step = sl.k_tile_begin * kb; step < sl.k_tile_end * kb; ++step) {
            if (sl.block == f.drop_first_step_of && step == sl.k_tile_begin * kb) continue;
            const bool lagging = sl.block == f.lagging_group_scale_of && (step / kb - sl.k_tile_begin) % 2 == 1;
            const F64Matrix& weights = lagging ? w_before : w;
            double sum = 0;  // 16 products of fp16 values: exact in double
            for (int k = 16 * step; k < 16 * step + 16; ++k) sum += a(i, k) * weights(k, j);
            acc = f.fp16_accumulation ? rn16(acc + sum) : trunc32(acc + sum);
          }
          return acc;
        };
        const auto fp16_reduction = [&] {
          double partial = 0;
          for (size_t n = 0; n < t.slices.size(); ++n) {
            double acc = slice_sum(n);
            if (n > 0) acc = trunc32((f.fp16_reduction == 2 ? rn16(acc) : acc) + partial);
            partial = n + 1 < t.slices.size() ? rn16(acc) : acc;
          }
          return partial;
        };
        const double stored = f.writer_skips_partials ? slice_sum(t.slices.size() - 1)
                              : f.fp16_reduction != 0 ? fp16_reduction()
                                                      : truncating_fp32::reduce_slices(t.slices.size(), e.contract, slice_sum);
        const int col = t.writer() == f.wrong_column_scale_of ? (j ^ 1) : j;
        const double scale = is_per_column(s.group) ? half_to_double(e.w.scales(0, col)) : 1.0;
        C(i, j) = truncating_fp32::epilogue(stored, s.group, scale, e.contract, final_rounding);
      }
    }
  }
  return C;
}

}  // namespace tc::synthetic
