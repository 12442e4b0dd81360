// One pass over the output: verdicts, marks, ULP distances, counts, the histogram, the T2 sums, the
// per-tile summaries and the 16 worst elements (a bounded heap). Then the tiers and the hints.
#include "tilecheck/compare/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>

#include <omp.h>

#include "tilecheck/reference/error.h"
#include "tilecheck/compare/poison.h"

namespace tc {

const char* name(TierStatus s) {
  switch (s) {
    case TierStatus::pass: return "pass";
    case TierStatus::fail: return "fail";
    case TierStatus::not_applicable: return "n/a";
  }
  return "?";
}
namespace {

constexpr int kWorst = 16;

int severity(Verdict v) {  // ranks the worst element: unwritten, non-finite, out of bound, passing
  switch (v) {
    case Verdict::unwritten: return 3;
    case Verdict::nonfinite: return 2;
    case Verdict::fail_bound: return 1;
    default: return 0;
  }
}

struct Candidate {
  double key;
  long long index;
  bool operator>(const Candidate& o) const { return key > o.key || (key == o.key && index < o.index); }
};

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.*f", digits, x);
  return buf;
}

}  // namespace

const char* histogram_label(int bin) {
  static const char* kLabels[kHistogramBins] = {"0", "1", "2", "3-4", "5-8", "9-16", "17-64", ">64"};
  return kLabels[bin];
}

int histogram_bin(std::int32_t abs_ulp) {
  if (abs_ulp <= 2) return abs_ulp;
  if (abs_ulp <= 4) return 3;
  if (abs_ulp <= 8) return 4;
  if (abs_ulp <= 16) return 5;
  if (abs_ulp <= 64) return 6;
  return 7;
}

HalfMatrix interior(const HalfMatrix& buffer, int top, int left, int bottom, int right) {
  require(top >= 0 && left >= 0 && bottom >= 0 && right >= 0, "guard margins must be non-negative");
  const Eigen::Index rows = buffer.rows() - top - bottom, cols = buffer.cols() - left - right;
  require(rows > 0 && cols > 0, "a (", buffer.rows(), ", ", buffer.cols(), ") buffer has no interior inside margins ",
          top, ", ", left, ", ", bottom, ", ", right);
  return buffer.block(top, left, rows, cols);
}

GuardBand guard_band(const HalfMatrix& buffer, int top, int left, int bottom, int right) {
  const HalfMatrix inner = interior(buffer, top, left, bottom, right);  // validates the margins
  GuardBand g;
  const int rows = static_cast<int>(buffer.rows()), cols = static_cast<int>(buffer.cols());
  for (int r = 0; r < rows; ++r) {
    const bool inside_rows = r >= top && r < rows - bottom;
    for (int c = 0; c < cols; ++c) {
      if (inside_rows && c >= left && c < cols - right) continue;
      ++g.cells;
      if (!is_poison(buffer(r, c))) g.written.push_back({r - top, c - left, buffer(r, c)});
    }
  }
  return g;
}

std::pair<int, int> nearest_element(const GuardCell& g, int M, int N) {
  return {std::clamp(g.row, 0, M - 1), std::clamp(g.col, 0, N - 1)};
}

double Statistics::bias_limit() const { return std::max(kBiasLimit, kBiasSigmas * bias_error); }

bool Comparison::passed() const {
  return t0.status != TierStatus::fail && t1.status != TierStatus::fail && t2.status != TierStatus::fail;
}

namespace {

// One thread's share of the pass over the output. Everything merges exactly: counts are integers,
// extrema are order-free, the heap has a total order, and the T2 sums are kept per row (below).
struct alignas(64) Partial {
  Counts counts;
  std::array<long long, kHistogramBins> histogram{};
  long long not_comparable = 0;
  long long stats_n = 0;
  double sum_bias = 0, sum_toward_zero = 0, sum_clipped_sq = 0;  // sums of integers: exact
  std::vector<TileSummary> tiles;
  std::vector<Candidate> worst;  // a min-heap on Candidate::operator>
};

void judge_row(const Expectation& e, const HalfMatrix& got, int i, Comparison& c, Partial& p, double& row_sq) {
  const int N = e.N();
  const int tile_row = e.grid.tile_row_of_row[i];
  const auto heap_order = std::greater<Candidate>();
  for (int j = 0; j < N; ++j) {
    const half_bits g = got(i, j), x = e.ref.expected(i, j);
    const Admissible adm = e.bounds.at(i, j);
    const ElementJudgement J = judge_element(g, x, adm);
    c.verdict(i, j) = static_cast<std::uint8_t>(J.verdict);
    c.mark(i, j) = static_cast<std::uint8_t>(J.mark);
    c.ulp(i, j) = J.ulp;
    c.allowance(i, j) = J.allowance;
    switch (J.verdict) {
      case Verdict::fail_bound: ++p.counts.bound; break;
      case Verdict::nonfinite: ++p.counts.nonfinite; break;
      case Verdict::unwritten: ++p.counts.unwritten; break;
      default: break;
    }
    if (J.mark != Mark::exact) ++p.counts.not_exact;
    TileSummary& t = p.tiles[static_cast<size_t>(tile_row) * e.grid.cols + j / e.grid.tile_n];
    ++t.verdicts[static_cast<int>(J.verdict)];
    t.worst = std::max(t.worst, J.mark);
    const double util = utilization(J.ulp, J.allowance);
    t.max_utilization = std::max(t.max_utilization, util);
    if (J.ulp == kNotComparable) {
      ++p.not_comparable;
    } else {
      const std::int32_t a = std::abs(J.ulp);
      ++p.histogram[histogram_bin(a)];
      t.max_abs_ulp = std::max(t.max_abs_ulp, a);
      if (J.verdict == Verdict::pass && is_finite(g) && is_finite(x) && J.allowance != kUnbounded &&
          !adm.nan_expected) {
        const double d = std::clamp(J.ulp, -1, 1);
        ++p.stats_n;
        p.sum_bias += d;
        p.sum_toward_zero += sign_bit(x) ? -d : d;
        p.sum_clipped_sq += d * d;
        const double r = J.ulp / double(std::max(1, J.allowance));
        row_sq += r * r;
      }
    }
    const Candidate cand{severity(J.verdict) * 1e12 + std::min(util, 1e11), static_cast<long long>(i) * N + j};
    if (p.worst.size() < kWorst) {
      p.worst.push_back(cand);
      std::push_heap(p.worst.begin(), p.worst.end(), heap_order);
    } else if (cand > p.worst.front()) {
      std::pop_heap(p.worst.begin(), p.worst.end(), heap_order);
      p.worst.back() = cand;
      std::push_heap(p.worst.begin(), p.worst.end(), heap_order);
    }
  }
}

}  // namespace

Comparison compare(const Expectation& e, const HalfMatrix& got, const GuardBand& guard,
                   const CompareOptions& options) {
  const int M = e.M(), N = e.N();
  require(got.rows() == M && got.cols() == N, "the output is (", got.rows(), ", ", got.cols(),
          ") but the case is (", M, ", ", N, ")");
  Comparison c;
  c.M = M;
  c.N = N;
  c.got = got;
  c.verdict.resize(M, N);
  c.mark.resize(M, N);
  c.ulp.resize(M, N);
  c.allowance.resize(M, N);
  c.guard = guard;
  c.tiles.assign(e.grid.tiles.size(), TileSummary{});
  c.counts.elements = static_cast<long long>(M) * N;

  // Rows in parallel; every result is independent of the thread count and of which thread took which
  // row (see Partial). Dynamic scheduling: on a shared machine a descheduled thread's rows are taken
  // over instead of waited for.
  std::vector<Partial> partials(static_cast<size_t>(omp_get_max_threads()));
  for (Partial& p : partials) p.tiles.assign(e.grid.tiles.size(), TileSummary{});
  std::vector<double> row_sq(M, 0.0);
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < M; ++i) judge_row(e, got, i, c, partials[omp_get_thread_num()], row_sq[i]);

  std::vector<Candidate> worst;
  double sum_bias = 0, sum_toward_zero = 0, sum_clipped_sq = 0, sum_sq = 0;
  for (const Partial& p : partials) {
    c.counts.bound += p.counts.bound;
    c.counts.nonfinite += p.counts.nonfinite;
    c.counts.unwritten += p.counts.unwritten;
    c.counts.not_exact += p.counts.not_exact;
    for (int b = 0; b < kHistogramBins; ++b) c.histogram[b] += p.histogram[b];
    c.not_comparable += p.not_comparable;
    c.stats.n += p.stats_n;
    sum_bias += p.sum_bias;
    sum_toward_zero += p.sum_toward_zero;
    sum_clipped_sq += p.sum_clipped_sq;
    for (size_t t = 0; t < c.tiles.size(); ++t) {
      TileSummary& to = c.tiles[t];
      const TileSummary& from = p.tiles[t];
      for (int v = 0; v < kVerdicts; ++v) to.verdicts[v] += from.verdicts[v];
      to.worst = std::max(to.worst, from.worst);
      to.max_abs_ulp = std::max(to.max_abs_ulp, from.max_abs_ulp);
      to.max_utilization = std::max(to.max_utilization, from.max_utilization);
    }
    worst.insert(worst.end(), p.worst.begin(), p.worst.end());
  }
  for (double r : row_sq) sum_sq += r;  // in row order, whatever the threads
  for (const GuardCell& g : guard.written) {
    ++c.counts.guard;
    const auto [r, col] = nearest_element(g, M, N);
    TileSummary& t = c.tiles[e.grid.index(r, col)];
    ++t.verdicts[static_cast<int>(Verdict::guard)];
    t.worst = Mark::guard;
  }
  std::sort(worst.begin(), worst.end(), std::greater<Candidate>());
  for (size_t k = 0; k < worst.size() && k < kWorst; ++k)
    c.worst.push_back({static_cast<int>(worst[k].index / N), static_cast<int>(worst[k].index % N)});

  if (c.stats.n > 0) {
    const double n = static_cast<double>(c.stats.n);
    c.stats.bias = sum_bias / n;
    c.stats.bias_toward_zero = sum_toward_zero / n;
    c.stats.rms = std::sqrt(sum_sq / n);
    c.stats.bias_error = std::sqrt(sum_clipped_sq / n / n);  // E[d^2] bounds either mean's variance
  }
  // Tiers.
  if (options.exact_tier && e.exact_tier()) {
    c.t0.status = c.counts.not_exact == 0 ? TierStatus::pass : TierStatus::fail;
    c.t0.detail = cat(c.counts.not_exact, " element(s) not bitwise equal");
  } else {
    c.t0.detail = e.exact_tier() ? "off" : "not an exact case";
  }
  c.t1.status = c.counts.mismatched() == 0 ? TierStatus::pass : TierStatus::fail;
  c.t1.detail = cat(c.counts.mismatched(), " mismatched");
  if (!options.statistics_tier) {
    c.t2.detail = "off";
  } else if (c.stats.n < kStatsMinElements) {
    c.t2.detail = cat("n=", c.stats.n, " < ", kStatsMinElements, " finite elements");
  } else {
    const double limit = c.stats.bias_limit();
    const bool ok = std::fabs(c.stats.bias) <= limit && std::fabs(c.stats.bias_toward_zero) <= limit &&
                    c.stats.rms <= kRmsLimit;
    c.t2.status = ok ? TierStatus::pass : TierStatus::fail;
    c.t2.detail = cat("bias=", fixed(c.stats.bias, 3), " toward0=", fixed(c.stats.bias_toward_zero, 3),
                      " rms=", fixed(c.stats.rms, 3).substr(1), " n=", c.stats.n, "; limits |bias|<=",
                      fixed(limit, 3).substr(1), " rms<=", kRmsLimit);
  }
  if (!c.passed()) c.hints = find_hints(e, c);
  return c;
}

}  // namespace tc
