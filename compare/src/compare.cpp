// One pass over the output: verdicts, marks, ULP distances, counts, the histogram, the T2 sums, the
// per-tile summaries and the 16 worst elements (a bounded heap). Then the tiers and the hints.
#include "tilecheck/compare/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>

#include <omp.h>

#include "tilecheck/core/error.h"

namespace tc {

const char* name(TierStatus s) {
  switch (s) {
    case TierStatus::pass: return "pass";
    case TierStatus::fail: return "fail";
    case TierStatus::not_applicable: return "n/a";
  }
  return "?";
}

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

double Statistics::bias_limit() const { return std::max(kBiasLimit, kBiasSigmas * bias_error); }

bool Comparison::passed() const {
  return std::none_of(tiers.begin(), tiers.end(), [](const TierResult& t) { return t.status == TierStatus::fail; });
}

const TierResult& Comparison::tier(std::string_view key) const {
  for (const TierResult& t : tiers)
    if (t.key == key) return t;
  throw Error(cat("no tier '", key, "' in the comparison"));
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

// ---- the pass over the output

// The T2 sums over the sample (docs/numerics.md, "Statistics tier (T2)"). Sums of integers: exact.
struct StatisticsSums {
  long long n = 0;
  double bias = 0, toward_zero = 0, clipped_sq = 0;
};

// One thread's share of the pass over the output. Everything merges exactly: counts are integers,
// extrema are order-free, the heap has a total order, and the T2 sums are exact or kept per row
// (row_sq, below).
struct alignas(64) Partial {
  Counts counts;
  std::array<long long, kHistogramBins> histogram{};
  long long not_comparable = 0;
  StatisticsSums sums;
  std::vector<TileSummary> tiles;
  std::vector<Candidate> worst;  // a min-heap on Candidate::operator>
};

void count(const ElementJudgement& J, Counts& counts) {
  switch (J.verdict) {
    case Verdict::fail_bound: ++counts.bound; break;
    case Verdict::nonfinite: ++counts.nonfinite; break;
    case Verdict::unwritten: ++counts.unwritten; break;
    default: break;
  }
  if (J.mark != Mark::exact) ++counts.not_exact;
}

// Keeps the kWorst largest candidates.
void offer(std::vector<Candidate>& worst, const Candidate& cand) {
  const auto heap_order = std::greater<Candidate>();
  if (worst.size() < kWorst) {
    worst.push_back(cand);
    std::push_heap(worst.begin(), worst.end(), heap_order);
  } else if (cand > worst.front()) {
    std::pop_heap(worst.begin(), worst.end(), heap_order);
    worst.back() = cand;
    std::push_heap(worst.begin(), worst.end(), heap_order);
  }
}

// T2's sample: passing, got and expected finite, a bounded allowance and no expected NaN.
bool in_statistics(Dtype d, const ElementJudgement& J, std::uint16_t got, std::uint16_t expected,
                   const Admissible& adm) {
  return J.verdict == Verdict::pass && is_finite(d, got) && is_finite(d, expected) && J.allowance != kUnbounded &&
         !adm.nan_expected;
}

void add_to_statistics(const ElementJudgement& J, std::uint16_t expected, StatisticsSums& sums, double& row_sq) {
  const double d = std::clamp(J.ulp, -1, 1);
  ++sums.n;
  sums.bias += d;
  sums.toward_zero += sign_bit(expected) ? -d : d;  // bit 15 in fp16 and bf16 alike
  sums.clipped_sq += d * d;
  const double r = J.ulp / double(std::max(1, J.allowance));
  row_sq += r * r;
}

void judge_row(const Expectation& e, const HalfMatrix& got, int i, Comparison& c, Partial& p, double& row_sq) {
  const int N = e.N();
  const int tile_row = e.grid.tile_row_of_row[i];
  for (int j = 0; j < N; ++j) {
    const std::uint16_t g = got(i, j), x = e.ref.expected(i, j);
    const Admissible adm = e.bounds.at(i, j);
    const ElementJudgement J = judge_element(e.dtype, g, x, adm);
    c.verdict(i, j) = static_cast<std::uint8_t>(J.verdict);
    c.mark(i, j) = static_cast<std::uint8_t>(J.mark);
    c.ulp(i, j) = J.ulp;
    c.allowance(i, j) = J.allowance;
    count(J, p.counts);
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
      if (in_statistics(e.dtype, J, g, x, adm)) add_to_statistics(J, x, p.sums, row_sq);
    }
    offer(p.worst, {severity(J.verdict) * 1e12 + std::min(util, 1e11), static_cast<long long>(i) * N + j});
  }
}

// ---- merging the threads' shares

void merge_tile(const TileSummary& from, TileSummary& to) {
  for (int v = 0; v < kVerdicts; ++v) to.verdicts[v] += from.verdicts[v];
  to.worst = std::max(to.worst, from.worst);
  to.max_abs_ulp = std::max(to.max_abs_ulp, from.max_abs_ulp);
  to.max_utilization = std::max(to.max_utilization, from.max_utilization);
}

// Adds every partial into c (counts, histogram, tiles) and sums; returns all their worst candidates.
std::vector<Candidate> merge(const std::vector<Partial>& partials, Comparison& c, StatisticsSums& sums) {
  std::vector<Candidate> worst;
  for (const Partial& p : partials) {
    c.counts.bound += p.counts.bound;
    c.counts.nonfinite += p.counts.nonfinite;
    c.counts.unwritten += p.counts.unwritten;
    c.counts.not_exact += p.counts.not_exact;
    for (int b = 0; b < kHistogramBins; ++b) c.histogram[b] += p.histogram[b];
    c.not_comparable += p.not_comparable;
    sums.n += p.sums.n;
    sums.bias += p.sums.bias;
    sums.toward_zero += p.sums.toward_zero;
    sums.clipped_sq += p.sums.clipped_sq;
    for (size_t t = 0; t < c.tiles.size(); ++t) merge_tile(p.tiles[t], c.tiles[t]);
    worst.insert(worst.end(), p.worst.begin(), p.worst.end());
  }
  return worst;
}

// A written guard cell counts against the tile of its nearest element.
void attribute_guard_cells(const Expectation& e, Comparison& c) {
  for (const GuardCell& g : c.guard.written) {
    ++c.counts.guard;
    const auto [r, col] = nearest_element(g, c.M, c.N);
    TileSummary& t = c.tiles[e.grid.index(r, col)];
    ++t.verdicts[static_cast<int>(Verdict::guard)];
    t.worst = Mark::guard;
  }
}

void keep_worst(std::vector<Candidate> worst, Comparison& c) {
  std::sort(worst.begin(), worst.end(), std::greater<Candidate>());
  for (size_t k = 0; k < worst.size() && k < kWorst; ++k)
    c.worst.push_back({static_cast<int>(worst[k].index / c.N), static_cast<int>(worst[k].index % c.N)});
}

void finish_statistics(const StatisticsSums& sums, const std::vector<double>& row_sq, Statistics& stats) {
  stats.n = sums.n;
  if (stats.n == 0) return;
  double sum_sq = 0;
  for (double r : row_sq) sum_sq += r;  // in row order, whatever the threads
  const double n = static_cast<double>(stats.n);
  stats.bias = sums.bias / n;
  stats.bias_toward_zero = sums.toward_zero / n;
  stats.rms = std::sqrt(sum_sq / n);
  stats.bias_error = std::sqrt(sums.clipped_sq / n / n);  // E[d^2] bounds either mean's variance
}

// ---- the tiers (compare.h)

TierResult exact_tier(const Expectation& e, const CompareOptions& options, const Counts& counts) {
  if (!options.exact_tier || !e.exact_tier())
    return {"t0", "T0 exact", TierStatus::not_applicable, e.exact_tier() ? "off" : e.exact_tier_absent()};
  return {"t0", "T0 exact", counts.not_exact == 0 ? TierStatus::pass : TierStatus::fail,
          cat(counts.not_exact, " element(s) not bitwise equal")};
}

TierResult bound_tier(const Counts& counts) {
  return {"t1", "T1 bound", counts.mismatched() == 0 ? TierStatus::pass : TierStatus::fail,
          cat(counts.mismatched(), " mismatched")};
}

TierResult statistics_tier(const Expectation& e, const CompareOptions& options, const Statistics& stats) {
  const char* key = "t2";
  const char* title = "T2 statistics";
  if (!options.statistics_tier) return {key, title, TierStatus::not_applicable, "off"};
  if (const std::string why = e.statistics_tier_absent(); !why.empty())
    return {key, title, TierStatus::not_applicable, why};
  if (stats.n < kStatsMinElements)
    return {key, title, TierStatus::not_applicable, cat("n=", stats.n, " < ", kStatsMinElements, " finite elements")};
  const double limit = stats.bias_limit();
  const bool ok = std::fabs(stats.bias) <= limit && std::fabs(stats.bias_toward_zero) <= limit && stats.rms <= kRmsLimit;
  return {key, title, ok ? TierStatus::pass : TierStatus::fail,
          cat("bias=", fixed(stats.bias, 3), " toward0=", fixed(stats.bias_toward_zero, 3), " rms=",
              fixed(stats.rms, 3).substr(1), " n=", stats.n, "; limits |bias|<=", fixed(limit, 3).substr(1),
              " rms<=", kRmsLimit)};
}

Comparison empty_comparison(const Expectation& e, const HalfMatrix& got, const GuardBand& guard) {
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
  return c;
}

}  // namespace

Comparison compare(const Expectation& e, const HalfMatrix& got, const GuardBand& guard,
                   const CompareOptions& options) {
  Comparison c = empty_comparison(e, got, guard);
  // Rows in parallel; every result is independent of the thread count and of which thread took which
  // row (see Partial). Dynamic scheduling: on a shared machine a descheduled thread's rows are taken
  // over instead of waited for.
  std::vector<Partial> partials(static_cast<size_t>(omp_get_max_threads()));
  for (Partial& p : partials) p.tiles.assign(e.grid.tiles.size(), TileSummary{});
  std::vector<double> row_sq(c.M, 0.0);
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < c.M; ++i) judge_row(e, got, i, c, partials[omp_get_thread_num()], row_sq[i]);

  StatisticsSums sums;
  std::vector<Candidate> worst = merge(partials, c, sums);
  attribute_guard_cells(e, c);
  keep_worst(std::move(worst), c);
  finish_statistics(sums, row_sq, c.stats);
  c.tiers = {exact_tier(e, options, c.counts), bound_tier(c.counts), statistics_tier(e, options, c.stats)};
  if (!c.passed()) c.hints = find_hints(e, c);
  return c;
}

}  // namespace tc
