// Hints from hypotheses tested on the inputs: each predicts, from the k-chunk sums of a sampled
// out-of-bound element's dot product, what the kernel's accumulator must have held.
//   dropped_chunk got = y* - (a 16-deep k-chunk's sum): one chunk, one step of every k-tile, or the
//                 first/last step of every slice, or of one block's slices; or got = y* - (the sums
//                 of whole slices): every slice but the writer's, or the first in reduction order
//   low_precision the error is the size of rounding the running sum at every 16-deep step with a unit
//                 roundoff near fp16's (2^-11) rather than the contract's fp32
#include <algorithm>
#include <cmath>
#include <optional>

#include "hints_internal.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/core/error.h"

namespace tc::hints {

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

double slice_sum(const std::vector<double>& cs, const Slice& s, int kb) {
  double sum = 0;
  for (int t = s.k_tile_begin * kb; t < s.k_tile_end * kb; ++t) sum += cs[t];
  return sum;
}

namespace {

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

// ---- dropped_chunk

// The hypotheses of one case, numbered: [0, chunks) one k-chunk; [step0, all0) step x of every
// k-tile; all0 and all0 + 1 the first and the last step of every slice; slices0 every slice but the
// last (the writer kept only its own sum) and slices0 + 1 the first slice in reduction order (the
// reduction lost it), both only where a tile has several slices; block0 + 2b and block0 + 2b + 1 the
// first and the last step of block b's slices.
struct DropHypotheses {
  int chunks, kb, step0, all0, slices0, block0, total;
  explicit DropHypotheses(const Expectation& e)
      : chunks(e.shape().K / 16),
        kb(e.schedule.config.k_blocks),
        step0(chunks),
        all0(step0 + kb),
        slices0(all0 + 2),
        block0(slices0 + 2),
        total(block0 + 2 * e.schedule.sms) {}
};

// Calls test(hypothesis, the sum it says was dropped) for every hypothesis about an element of
// `tile` with chunk sums cs.
template <typename Test>
void for_each_drop(const DropHypotheses& h, const TileInfo& tile, const std::vector<double>& cs, Test&& test) {
  for (int t = 0; t < h.chunks; ++t) test(t, cs[t]);
  for (int x = 0; x < h.kb && h.kb > 1; ++x) {
    double d = 0;
    for (int t = x; t < h.chunks; t += h.kb) d += cs[t];
    test(h.step0 + x, d);
  }
  double first = 0, last = 0;
  for (const Slice& s : tile.slices) {
    first += cs[s.k_tile_begin * h.kb];
    last += cs[s.k_tile_end * h.kb - 1];
    test(h.block0 + 2 * s.block, cs[s.k_tile_begin * h.kb]);
    test(h.block0 + 2 * s.block + 1, cs[s.k_tile_end * h.kb - 1]);
  }
  test(h.all0, first);
  test(h.all0 + 1, last);
  if (tile.slice_count() > 1) {
    double others = 0;
    for (int s = 0; s + 1 < tile.slice_count(); ++s) others += slice_sum(cs, tile.slices[s], h.kb);
    test(h.slices0, others);
    test(h.slices0 + 1, slice_sum(cs, tile.slices.front(), h.kb));
  }
}

// How far the accumulator implied by got may be from y* minus the dropped sum.
double drop_tolerance(const Expectation& e, const InputSample& sample, const TileInfo& tile, int kb) {
  double tol = 2 * sample.rounding + 0x1p-16 * e.ref.S(sample.i, sample.j);
  if (e.numerics.numerics.partials != Partials::fp16) return tol;
  // Each fp16 partial sum rounds once: the sum of the chunks from its slice's start to K.
  const int chunks = static_cast<int>(sample.chunks.size());
  double suffix = 0;
  std::vector<double> suffixes(chunks + 1, 0.0);
  for (int t = chunks - 1; t >= 0; --t) suffixes[t] = suffix += sample.chunks[t];
  for (int s = 0; s + 1 < tile.slice_count(); ++s) tol += half_ulp(suffixes[tile.slices[s].k_tile_begin * kb]);
  return tol;
}

// How many samples each hypothesis explains, and the first it explains.
struct DropTally {
  std::vector<size_t> count;
  std::vector<Element> example;
};

DropTally tally_drops(const Expectation& e, const DropHypotheses& h, const std::vector<InputSample>& samples) {
  DropTally tally{std::vector<size_t>(h.total, 0), std::vector<Element>(h.total, {-1, -1})};
  for (const InputSample& sample : samples) {
    const TileInfo& tile = e.grid.at(sample.i, sample.j);
    const double tol = drop_tolerance(e, sample, tile, h.kb);
    const double eps = sample.acc - e.ref.y_exact(sample.i, sample.j);
    for_each_drop(h, tile, sample.chunks, [&](int hypothesis, double dropped) {
      const bool explains = std::fabs(dropped) > tol && std::fabs(eps + dropped) <= tol;  // false for NaN
      if (!explains) return;
      ++tally.count[hypothesis];
      if (tally.example[hypothesis].first < 0) tally.example[hypothesis] = {sample.i, sample.j};
    });
  }
  return tally;
}

// The hypothesis explaining the most samples; on ties the one that names a cause: a block's
// slices, every slice, a step of every k-tile, then a single chunk.
int most_explaining(const DropHypotheses& h, const std::vector<size_t>& count) {
  int best = -1;
  const auto consider = [&](int begin, int end) {
    for (int k = begin; k < end; ++k)
      if (best < 0 || count[k] > count[best]) best = k;
  };
  consider(h.block0, h.total);
  consider(h.slices0, h.block0);
  consider(h.all0, h.slices0);
  consider(h.step0, h.all0);
  consider(0, h.step0);
  return best;
}

// "the first 16-deep step of thread block 3's slices (e.g. k 0-15 in tile (1, 2))"
std::string block_step_text(const Expectation& e, const DropHypotheses& h, int best, const Element& example) {
  const int b = (best - h.block0) / 2;
  const bool is_first = (best - h.block0) % 2 == 0;
  const TileInfo& t = e.grid.at(example.first, example.second);
  int k0 = 0;
  for (const Slice& s : t.slices)
    if (s.block == b) k0 = is_first ? 16 * s.k_tile_begin * h.kb : 16 * s.k_tile_end * h.kb - 16;
  return cat("the ", is_first ? "first" : "last", " 16-deep step of thread block ", b, "'s slices (e.g. k ", k0, "-",
             k0 + 15, " in tile (", t.tile_row, ", ", t.tile_col, "))");
}

std::string describe(const Expectation& e, const DropHypotheses& h, int best, const Element& example) {
  if (best < h.step0)
    return cat("the k-chunk [", 16 * best, ", ", 16 * best + 16, ") in every failing element (k-tile ", best / h.kb,
               ", step ", best % h.kb, ")");
  if (best < h.all0) {
    const int x = best - h.step0;
    return cat("step ", x, " of every k-tile (k mod ", 16 * h.kb, " in [", 16 * x, ", ", 16 * x + 16, "))");
  }
  if (best < h.slices0) return cat("the ", best == h.all0 ? "first" : "last", " 16-deep step of every slice");
  if (best == h.slices0) return "the sums of every slice but the last in its tile";
  if (best == h.slices0 + 1) return "the sum of the first slice of its tile in reduction order";
  return block_step_text(e, h, best, example);
}

// ---- low_precision

// The unit roundoff that rounding the running sum at every 16-deep step would need to err as much
// as the sample does; none when the running sums are all 0.
std::optional<double> implied_unit_roundoff(const Expectation& e, const InputSample& s) {
  const std::vector<double>& cs = s.chunks;
  double prefix = 0, sq = 0;
  for (double x : cs) {
    prefix += x;
    sq += prefix * prefix;
  }
  const double rho = std::sqrt(sq / cs.size());
  if (rho == 0) return std::nullopt;
  // Rounding the running sum at each of the K/16 steps with unit roundoff u errs by about
  // u * rho * sqrt(K/16) / sqrt(3) (uniform errors): invert that.
  return std::sqrt(3.0) * std::fabs(s.acc - e.ref.y_exact(s.i, s.j)) / (std::sqrt(double(cs.size())) * rho);
}

}  // namespace

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
  const size_t n = samples.size();
  if (n < 3) return false;
  const DropHypotheses h(e);
  const DropTally tally = tally_drops(e, h, samples);
  const int best = most_explaining(h, tally.count);
  if (tally.count[best] < needed(n)) return false;
  out.push_back({HintKind::dropped_chunk,
                 cat("got = y* minus ", describe(e, h, best, tally.example[best]), ", for ", tally.count[best], " of ",
                     n,
                     " sampled failures -> ",
                     best == h.slices0 || best == h.slices0 + 1
                         ? "lost partial sums: the cross-block reduction skipped them (the writing block kept only "
                           "its own k-range) or overwrote one (a first/last-block flag, the lock hand-over)"
                         : "a dropped k-chunk: a pipeline stage skipped or read before its copy landed (cp.async "
                           "wait), or a wrong k offset")});
  return true;
}

void low_precision(const Expectation& e, const Comparison& c, const std::vector<InputSample>& samples,
                   std::vector<Hint>& out) {
  long long failing_tiles = 0;
  for (const TileSummary& t : c.tiles) failing_tiles += t.verdicts[int(Verdict::fail_bound)] > 0;
  if (failing_tiles * 4 < static_cast<long long>(c.tiles.size())) return;  // not widespread
  std::vector<double> u;
  for (const InputSample& s : samples) {
    if (const std::optional<double> roundoff = implied_unit_roundoff(e, s)) u.push_back(*roundoff);
  }
  if (u.size() < 8) return;
  std::nth_element(u.begin(), u.begin() + u.size() / 2, u.end());
  const double median = u[u.size() / 2], exponent = std::log2(median);
  if (exponent < -13 || exponent > -8.5) return;
  out.push_back({HintKind::low_precision,
                 cat("errors are widespread (", failing_tiles, " of ", c.tiles.size(), " tiles) and the size of rounding "
                     "the running sum at every 16-deep step with unit roundoff 2^", number(exponent, 1), " (median of ",
                     u.size(), " samples; fp16 is 2^-11, the contract's fp32 2^-23) -> fp16 accumulation (an f16 mma "
                     "accumulator or fp16 partial sums)")});
}

}  // namespace tc::hints
