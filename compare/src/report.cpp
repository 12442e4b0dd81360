#include "tilecheck/compare/report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "tilecheck/core/error.h"
#include "tilecheck/core/format.h"

namespace tc {
namespace {

constexpr int kMapWidth = 64;
constexpr int kMapHeight = 32;
const std::string kMarkSeverity = ".1bXNUG";

std::string bits(Dtype d, std::uint16_t h) { return format("0x%04x (%.6g)", h, to_double(d, h)); }

std::string ulp_text(std::int32_t ulp) { return ulp == kNotComparable ? "n/a" : format("%+d", ulp); }
std::string allowance_text(std::int32_t a) { return a == kUnbounded ? "any" : format("%d", a); }

std::string tier(const TierResult& t) {
  std::string status = tc::name(t.status);  // pass and fail in capitals, to stand out in the line
  if (t.status != TierStatus::not_applicable) std::transform(status.begin(), status.end(), status.begin(), ::toupper);
  return format("%s %s (%s)", t.title.c_str(), status.c_str(), t.detail.c_str());
}

std::string interval(Dtype d, const Admissible& a, std::uint16_t expected) {
  if (nan_only(d, expected, a)) return "any NaN";
  if (a.unbounded) return cat("any value (a partial sum may overflow ", name(d) == "fp16" ? "fp16" : "bf16 or fp32", ")");
  const std::uint16_t lo = from_key(d, a.key_lo), hi = from_key(d, a.key_hi);
  return format("[0x%04x, 0x%04x] = [%.6g, %.6g]", lo, hi, to_double(d, lo), to_double(d, hi));
}

std::string element(const Expectation& e, const Comparison& c, int i, int j) {
  const ElementPlace p = locate(e.schedule, i, j);
  const std::vector<Slice> slices = slices_of(e.schedule, p);
  const Slice& writer = slices.back();
  const TileInfo& t = e.grid.at(i, j);
  std::string s = format("(%d, %d): %s\n", i, j, std::string(name(Verdict(c.verdict(i, j)))).c_str());
  const std::string launch =
      e.schedule.launches.size() > 1 ? format(" of launch %d/%zu", p.launch, e.schedule.launches.size()) : "";
  s += format("  output tile (%d, %d) [rows %d-%d, cols %d-%d], thread block %d%s writes it: slice %d / slice_count %d, %s\n",
              p.tile_row, p.tile_col, t.row0, t.row0 + t.rows - 1, t.col0, t.col0 + t.cols - 1, writer.block,
              launch.c_str(), writer.slice_index, writer.slice_count, writer.last() ? "last block" : "not last");
  s += "  reduction order: " + reduction_order_text(slices) + "\n";
  s += format("  mma m16n8k16 accumulator: warp %d, lane %d, register c%d (row %d, col %d in the tile)\n", p.warp,
              p.lane, p.reg, p.row_in_tile, p.col_in_tile);
  const Admissible adm = e.bounds.at(i, j);
  s += "  expected " + bits(e.dtype, e.ref.expected(i, j)) + ", got " + bits(e.dtype, c.got(i, j)) +
       ", ULP distance " + ulp_text(c.ulp(i, j)) + (e.dtype == Dtype::bf16 ? " (bf16)" : "") + "\n";
  s += "  allowed " + interval(e.dtype, adm, e.ref.expected(i, j)) + " (allowance " + allowance_text(c.allowance(i, j)) +
       " ULP)\n";
  s += format("  y* = %.9g, S = %.6g, E = %.3g", e.ref.y_exact(i, j), e.ref.S(i, j), e.bounds.E(i, j));
  if (is_per_column(e.w.group)) s += format(", per-column scale %.6g", to_double(e.dtype, e.w.scales(0, j)));
  return s + "\n";
}

std::string histogram(const Comparison& c) {
  std::string s = "ULP histogram:";
  for (int b = 0; b < kHistogramBins; ++b) s += format(" %s: %lld |", histogram_label(b), c.histogram[b]);
  return s + format(" not comparable (NaN/Inf vs number): %lld\n", c.not_comparable);
}

std::string worst_table(const Expectation& e, const Comparison& c) {
  std::vector<std::pair<int, int>> rows;  // failing ones only, when there are any
  for (const auto& w : c.worst)
    if (c.counts.mismatched() == c.counts.guard || c.verdict(w.first, w.second) != 0) rows.push_back(w);
  std::string s = format("%zu worst elements:\n   row    col  tile       verdict     ulp     allow  expected           got\n",
                         rows.size());
  for (const auto& [i, j] : rows) {
    const ElementPlace p = locate(e.schedule, i, j);
    s += format("%6d %6d  %-9s  %-10s  %-6s  %-5s  0x%04x %-10.5g  0x%04x %.5g\n", i, j,
                format("(%d,%d)", p.tile_row, p.tile_col).c_str(), std::string(name(Verdict(c.verdict(i, j)))).c_str(),
                ulp_text(c.ulp(i, j)).c_str(), allowance_text(c.allowance(i, j)).c_str(), e.ref.expected(i, j),
                to_double(e.dtype, e.ref.expected(i, j)), c.got(i, j), to_double(e.dtype, c.got(i, j)));
  }
  return s;
}

}  // namespace

std::string header_line(const Counts& n) {
  const double pct = n.elements > 0 ? 100.0 * n.mismatched() / n.elements : 0.0;
  return format("Mismatched %lld / %lld (%.*f%%) [bound=%lld nonfinite=%lld unwritten=%lld guard=%lld]", n.mismatched(),
                n.elements, pct < 1 ? 3 : 1, pct, n.bound, n.nonfinite, n.unwritten, n.guard);
}

std::string tile_map(int rows, int cols, const std::vector<char>& symbols, const std::string& severity) {
  require(static_cast<long long>(rows) * cols == static_cast<long long>(symbols.size()), "tile map of ", rows, "x",
          cols, " given ", symbols.size(), " symbols");
  const int fx = (cols + kMapWidth - 1) / kMapWidth, fy = (rows + kMapHeight - 1) / kMapHeight;
  const int width = (cols + fx - 1) / fx, height = (rows + fy - 1) / fy;
  std::string s;
  if (fx > 1 || fy > 1) s += format("  (compressed: each character is %d x %d tiles, the most severe shown)\n", fy, fx);
  std::string ruler(width, ' ');
  for (int x = 0; x < width; x += 8) {
    const std::string label = std::to_string(x * fx);
    for (size_t k = 0; k < label.size() && x + k < ruler.size(); ++k) ruler[x + k] = label[k];
  }
  s += "        " + ruler + "\n";
  for (int y = 0; y < height; ++y) {
    std::string line(width, ' ');
    for (int x = 0; x < width; ++x) {
      size_t worst = 0;
      for (int r = y * fy; r < std::min(rows, (y + 1) * fy); ++r)
        for (int col = x * fx; col < std::min(cols, (x + 1) * fx); ++col)
          worst = std::max(worst, severity.find(symbols[static_cast<size_t>(r) * cols + col]));
      line[x] = severity[worst];
    }
    s += format("  %5d ", y * fy) + line + "\n";
  }
  return s;
}

std::string cap(std::string text, std::size_t max_chars) {
  if (text.size() <= max_chars) return text;
  const size_t full = text.size();
  size_t cut = text.rfind('\n', max_chars);
  if (cut == std::string::npos || cut < max_chars / 2) cut = max_chars;
  text.resize(cut);
  return text + format("\n... [report cut at %zu of %zu characters]\n", cut, full);
}

std::string report(const Expectation& e, const Comparison& c, const ReportOptions& options) {
  const Shape& sh = e.shape();
  std::string s = header_line(c.counts) + "\n";
  s += format("case %s (%s, seed %llu) | M=%d N=%d K=%d group=%d | contract %s | config %s | sms %d | %d x %d tiles\n",
              e.info.case_id.empty() ? "-" : e.info.case_id.c_str(),
              e.info.distribution.empty() ? "-" : e.info.distribution.c_str(),
              static_cast<unsigned long long>(e.info.seed), sh.M, sh.N, sh.K, sh.group,
              std::string(name(e.contract)).c_str(), name(e.schedule.config).c_str(), e.schedule.sms, e.grid.rows,
              e.grid.cols);
  if (!e.v1_format())  // the ULPs, bits and values above and below are this format's dtype's
    s += "format " + e.format_name() + " (" + std::string(name(e.dtype)) + " values, ULPs of " +
         std::string(name(e.dtype)) + ")\n";
  if (e.numerics.schedule == ScheduleKind::unknown || e.numerics.numerics != contract_numerics(e.contract)) {
    s += "numerics " + name(e.numerics.numerics);
    s += e.numerics.schedule == ScheduleKind::unknown
             ? format(" | bounds for an unknown schedule: any split of K into at most %d slices (k-slices >= %d)\n",
                      e.max_slices, e.numerics.min_k_slice)
             : std::string(" | Marlin's striped schedule\n");
  }
  for (std::size_t t = 0; t < c.tiers.size(); ++t) s += (t ? " | " : "") + tier(c.tiers[t]);
  s += "\n";
  if (!options.error_map.empty()) s += "error map: " + options.error_map + "\n";
  if (!c.worst.empty()) {
    s += (c.passed() ? "closest to the bound " : "worst element ") +
         element(e, c, c.worst.front().first, c.worst.front().second);
  }
  s += histogram(c);
  if (!c.passed()) {
    s += worst_table(e, c);
    std::vector<char> symbols(c.tiles.size());
    for (size_t t = 0; t < c.tiles.size(); ++t) symbols[t] = symbol(c.tiles[t].worst);
    s += format("tile map (%d x %d tiles of %d x %d; . exact  1 <=1 ULP  b within bound  X fail  N non-finite  "
                "U unwritten  G guard):\n",
                e.grid.rows, e.grid.cols, e.schedule.config.tile_m(), e.grid.tile_n);
    s += tile_map(e.grid.rows, e.grid.cols, symbols, kMarkSeverity);
    s += c.hints.empty() ? "hints: none\n" : "hints:\n";
    for (const Hint& h : c.hints) s += "  - [" + std::string(name(h.kind)) + "] " + h.text + "\n";
  }
  return cap(std::move(s), options.max_chars);
}

}  // namespace tc
