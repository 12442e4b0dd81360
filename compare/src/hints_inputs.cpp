// Hints from hypotheses tested on the inputs, for a deterministic sample of up to 64 out-of-bound
// elements. A hypothesis predicts each sampled element's value; it is reported when it explains at
// least 75% of the sample (and 3 elements). With tens of candidate explanations per element, a
// chance match of that many independent elements is negligible (the per-element chance is below
// 1/4 for every family here), while a real cause explains all of them.
//   scale_ratio   got / expected = s[g2, j2] / s[g1, j1]: the wrong scale group or column, or a scale
//                 applied twice or not at all (exact with probe inputs and per-column scales)
//   dropped_chunk got = y* - (a 16-deep k-chunk's sum): one chunk, one step of every k-tile, or the
//                 first/last step of every slice, or of one block's slices
//   low_precision the error is the size of rounding the running sum at every 16-deep step with a unit
//                 roundoff near fp16's (2^-11) rather than the contract's fp32
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "hints_internal.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/reference/error.h"

namespace tc::hints {
namespace {

using Element = std::pair<int, int>;
constexpr size_t kSamples = 64;

std::vector<Element> out_of_bound_sample(const Comparison& c, const std::vector<Element>& fails) {
  std::vector<Element> bound;
  for (const Element& f : fails)
    if (c.verdict(f.first, f.second) == static_cast<std::uint8_t>(Verdict::fail_bound)) bound.push_back(f);
  return sample(bound, kSamples);
}

size_t needed(size_t n) { return std::max<size_t>(3, (3 * n + 3) / 4); }

// The 16-deep chunk sums of one element: cs[t] = sum_{k in [16t, 16t + 16)} a_ik * w^_kj, with w^
// from a 16-entry table per scale group (one rounding per code and group, not per k).
std::vector<double> chunk_sums(const Expectation& e, int i, int j) {
  const int K = e.shape().K, G = static_cast<int>(e.w.scales.rows());
  const int rows_per_group = is_per_column(e.w.group) ? K : e.w.group;
  std::vector<double> cs(K / 16, 0.0);
  double table[16];
  for (int g = 0; g < G; ++g) {
    for (int q = 0; q < 16; ++q) table[q] = half_to_double(dequantized_weight(q, e.w.scales(g, j), e.w.group));
    for (int k = g * rows_per_group; k < (g + 1) * rows_per_group; ++k) {
      const half_bits a = e.A(i, k);
      if ((a & 0x7FFF) != 0) cs[k / 16] += half_to_double(a) * table[e.w.codes(k, j)];
    }
  }
  return cs;
}

// The kernel's accumulator as implied by got (per-column scales are applied after the sum).
bool implied_accumulator(const Expectation& e, half_bits got, int j, double& acc, double& rounding) {
  const double g = half_to_double(got);
  if (!std::isfinite(g)) return false;
  if (!is_per_column(e.w.group)) {
    acc = g;
    rounding = half_ulp(g);
    return true;
  }
  const double s = half_to_double(e.w.scales(0, j));
  if (s == 0 || !std::isfinite(s)) return false;
  acc = g / s;
  rounding = half_ulp(g) / std::fabs(s) + half_ulp(acc);
  return true;
}

}  // namespace

void scale_ratio(const Expectation& e, const Comparison& c, const std::vector<Element>& fails,
                 std::vector<Hint>& out) {
  constexpr double kTolerance = 0x1p-9;  // each side rounded to fp16 (2^-11 relative) at most twice
  using Relation = std::tuple<int, int, int>;  // kind (0 group, 1 column, 2 times s, 3 unscaled), dg, dj
  std::map<Relation, size_t> count;
  std::map<int, size_t> kind_count;
  size_t n = 0;
  const int G = static_cast<int>(e.w.scales.rows());
  for (const Element& f : out_of_bound_sample(c, fails)) {
    const auto [i, j] = f;
    const double x = half_to_double(e.ref.expected(i, j)), g = half_to_double(c.got(i, j));
    if (!std::isfinite(x) || !std::isfinite(g) || std::fabs(x) < kHalfMinNormal || g == 0) continue;
    ++n;
    const double r = g / x;
    std::map<Relation, bool> matched;
    const auto check = [&](double q, Relation rel) {
      if (std::isfinite(q) && q != 0 && std::fabs(q - 1) > 0x1p-8 && std::fabs(r - q) <= kTolerance * std::fabs(q))
        matched[rel] = true;
    };
    const int chunk = j / 64 * 64;
    for (int g1 = 0; g1 < G; ++g1) {
      const double s1 = half_to_double(e.w.scales(g1, j));
      if (s1 == 0 || !std::isfinite(s1)) continue;
      for (int g2 = std::max(0, g1 - 8); g2 < std::min(G, g1 + 9); ++g2)
        if (g2 != g1) check(half_to_double(e.w.scales(g2, j)) / s1, {0, g2 - g1, 0});
      for (int j2 = chunk; j2 < std::min(e.N(), chunk + 64); ++j2)
        if (j2 != j) check(half_to_double(e.w.scales(g1, j2)) / s1, {1, 0, j2 - j});
      check(s1, {2, 0, 0});
      check(1 / s1, {3, 0, 0});
    }
    std::map<int, bool> kinds;
    for (const auto& m : matched) {
      ++count[m.first];
      kinds[std::get<0>(m.first)] = true;
    }
    for (const auto& k : kinds) ++kind_count[k.first];
  }
  if (n < 3) return;
  Relation best{};
  size_t best_count = 0;
  for (const auto& [rel, k] : count)
    if (k > best_count) best = rel, best_count = k;
  const auto [kind, dg, dj] = best;
  std::string what;
  if (best_count >= needed(n)) {
    switch (kind) {
      case 0: what = cat("s[g", dg > 0 ? "+" : "", dg, ", j] / s[g, j] -> the wrong scale group (group index off by ",
                         dg > 0 ? "+" : "", dg, ")"); break;
      case 1: what = cat("s[g, j", dj > 0 ? "+" : "", dj, "] / s[g, j] -> the wrong scale column (the scale permutation)");
              break;
      case 2: what = "s[g, j] -> the scale applied twice"; break;
      default: what = "1 / s[g, j] -> the scale not applied"; break;
    }
  } else if (G == 1 && kind_count[1] >= needed(n)) {  // few candidates: the family as a whole counts
    best_count = kind_count[1];
    what = "s[j'] / s[j] for another column j' of the same 64-column chunk -> the wrong scale column (the scale "
           "permutation)";
  } else {
    return;
  }
  out.push_back({HintKind::scale_ratio, cat("got / expected equals an exact ratio of two scales, ", what, ", for ",
                                            best_count, " of ", n, " sampled failures")});
}

std::vector<InputSample> input_samples(const Expectation& e, const Comparison& c, const std::vector<Element>& fails) {
  std::vector<InputSample> out;
  for (const Element& f : out_of_bound_sample(c, fails)) {
    InputSample s;
    s.i = f.first;
    s.j = f.second;
    if (!implied_accumulator(e, c.got(s.i, s.j), s.j, s.acc, s.rounding)) continue;
    s.chunks = chunk_sums(e, s.i, s.j);
    out.push_back(std::move(s));
  }
  return out;
}

bool dropped_chunk(const Expectation& e, const std::vector<InputSample>& samples, std::vector<Hint>& out) {
  const int K = e.shape().K, chunks = K / 16, kb = e.schedule.config.k_blocks, sms = e.schedule.sms;
  // Hypotheses: [0, chunks) one chunk; then step x of every k-tile (kb); first / last step of every
  // slice (2); first / last step of block b's slices (2 * sms).
  const int step0 = chunks, all0 = step0 + kb, block0 = all0 + 2, total = block0 + 2 * sms;
  std::vector<size_t> count(total, 0);
  std::vector<Element> example(total, {-1, -1});
  const size_t n = samples.size();
  for (const InputSample& sample : samples) {
    const int i = sample.i, j = sample.j;
    const Element f{i, j};
    const std::vector<double>& cs = sample.chunks;
    const TileInfo& tile = e.grid.at(i, j);
    double tol = 2 * sample.rounding + 0x1p-16 * e.ref.S(i, j);
    if (e.contract == Contract::marlin) {  // each fp16 partial sum rounds once
      double suffix = 0;
      std::vector<double> suffixes(chunks + 1, 0.0);
      for (int t = chunks - 1; t >= 0; --t) suffixes[t] = suffix += cs[t];
      for (int s = 0; s + 1 < tile.slice_count(); ++s) tol += half_ulp(suffixes[tile.slices[s].k_tile_begin * kb]);
    }
    const double eps = sample.acc - e.ref.y_exact(i, j);
    const auto test = [&](int h, double dropped) {
      if (std::fabs(dropped) > tol && std::fabs(eps + dropped) <= tol) {
        ++count[h];
        if (example[h].first < 0) example[h] = f;
      }
    };
    for (int t = 0; t < chunks; ++t) test(t, cs[t]);
    for (int x = 0; x < kb && kb > 1; ++x) {
      double d = 0;
      for (int t = x; t < chunks; t += kb) d += cs[t];
      test(step0 + x, d);
    }
    double first = 0, last = 0;
    for (const Slice& s : tile.slices) {
      first += cs[s.k_tile_begin * kb];
      last += cs[s.k_tile_end * kb - 1];
      test(block0 + 2 * s.block, cs[s.k_tile_begin * kb]);
      test(block0 + 2 * s.block + 1, cs[s.k_tile_end * kb - 1]);
    }
    test(all0, first);
    test(all0 + 1, last);
  }
  if (n < 3) return false;
  // Prefer the pattern that names a cause: a block's slices, every slice, a step of every k-tile, then
  // a single chunk (ties in that order).
  int best = -1;
  const auto consider = [&](int h) {
    if (best < 0 || count[h] > count[best]) best = h;
  };
  for (int h = block0; h < total; ++h) consider(h);
  for (int h = all0; h < block0; ++h) consider(h);
  for (int h = step0; h < all0; ++h) consider(h);
  for (int h = 0; h < step0; ++h) consider(h);
  if (count[best] < needed(n)) return false;
  std::string what;
  if (best < step0) {
    what = cat("the k-chunk [", 16 * best, ", ", 16 * best + 16, ") in every failing element (k-tile ", best / kb,
               ", step ", best % kb, ")");
  } else if (best < all0) {
    what = cat("step ", best - step0, " of every k-tile (k mod ", 16 * kb, " in [", 16 * (best - step0), ", ",
               16 * (best - step0) + 16, "))");
  } else if (best < block0) {
    what = cat("the ", best == all0 ? "first" : "last", " 16-deep step of every slice");
  } else {
    const int b = (best - block0) / 2;
    const bool is_first = (best - block0) % 2 == 0;
    const TileInfo& t = e.grid.at(example[best].first, example[best].second);
    int k0 = 0;
    for (const Slice& s : t.slices)
      if (s.block == b) k0 = is_first ? 16 * s.k_tile_begin * kb : 16 * s.k_tile_end * kb - 16;
    what = cat("the ", is_first ? "first" : "last", " 16-deep step of thread block ", b, "'s slices (e.g. k ", k0, "-",
               k0 + 15, " in tile (", t.tile_row, ", ", t.tile_col, "))");
  }
  out.push_back({HintKind::dropped_chunk,
                 cat("got = y* minus ", what, ", for ", count[best], " of ", n,
                     " sampled failures -> a dropped k-chunk: a pipeline stage skipped or read before its copy "
                     "landed (cp.async wait), or a wrong k offset")});
  return true;
}

void low_precision(const Expectation& e, const Comparison& c, const std::vector<InputSample>& samples,
                   std::vector<Hint>& out) {
  long long failing_tiles = 0;
  for (const TileSummary& t : c.tiles)
    failing_tiles += t.verdicts[int(Verdict::fail_bound)] > 0;
  if (failing_tiles * 4 < static_cast<long long>(c.tiles.size())) return;  // not widespread
  std::vector<double> u;
  for (const InputSample& s : samples) {
    const std::vector<double>& cs = s.chunks;
    double prefix = 0, sq = 0;
    for (double x : cs) {
      prefix += x;
      sq += prefix * prefix;
    }
    const double rho = std::sqrt(sq / cs.size());
    if (rho == 0) continue;
    // Rounding the running sum at each of the K/16 steps with unit roundoff u errs by about
    // u * rho * sqrt(K/16) / sqrt(3) (uniform errors): invert that.
    u.push_back(std::sqrt(3.0) * std::fabs(s.acc - e.ref.y_exact(s.i, s.j)) / (std::sqrt(double(cs.size())) * rho));
  }
  if (u.size() < 8) return;
  std::nth_element(u.begin(), u.begin() + u.size() / 2, u.end());
  const double median = u[u.size() / 2], exponent = std::log2(median);
  if (exponent < -13 || exponent > -8.5) return;
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.1f", exponent);
  out.push_back({HintKind::low_precision,
                 cat("errors are widespread (", failing_tiles, " of ", c.tiles.size(), " tiles) and the size of rounding "
                     "the running sum at every 16-deep step with unit roundoff 2^", buf, " (median of ", u.size(),
                     " samples; fp16 is 2^-11, the contract's fp32 2^-23) -> fp16 accumulation (an f16 mma "
                     "accumulator or fp16 partial sums)")});
}

}  // namespace tc::hints
