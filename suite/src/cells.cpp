#include "tilecheck/suite/cells.h"

#include <cctype>

#include <algorithm>
#include <map>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/kernel_operands.h"

namespace tc {

namespace {

// Anything but letters, digits and '_' becomes '_', so that a name stays a GoogleTest test name and a
// file name.
std::string gtest_safe(std::string text) {
  for (char& ch : text)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return text;
}

}  // namespace

std::string Cell::name() const {
  // A plugin names its variant freely ("upstream-2f6d7c1", "kit-trap"); a case id of a schema v2
  // format has '-' in it ("..._bf16-uint4").
  return cat(gtest_safe(case_id), "_", tc::name(config), "_", tc::name(contract), "_", gtest_safe(variant), "_sms",
             sms);
}

SizeClass size_class(const Shape& s) {
  const double work = double(s.M) * s.N * s.K;
  if (work <= double(1u << 27)) return SizeClass::small;
  if (work <= 4294967296.0) return SizeClass::medium;
  return SizeClass::large;
}

std::vector<int> grid_sweep(SizeClass c, int all_sms) {
  std::vector<int> sweep;
  switch (c) {
    case SizeClass::small: sweep = {1, 2, 3, 5, 7, 16, 33, 66, all_sms}; break;
    case SizeClass::medium: sweep = {1, 7, 33, all_sms}; break;
    case SizeClass::large: sweep = {7, all_sms}; break;
  }
  sweep.erase(std::remove_if(sweep.begin(), sweep.end(), [&](int s) { return s > all_sms; }), sweep.end());
  std::sort(sweep.begin(), sweep.end());
  sweep.erase(std::unique(sweep.begin(), sweep.end()), sweep.end());
  return sweep;
}

bool is_fetch_order_variant(const std::string& kernel, const std::string& variant) {
  return kernel == kOurKernel && (variant == "swapped" || variant == "hoisted");
}

namespace {

bool applies(const TileConfig& c, const CaseSpec& s, const MatrixOptions& o) {
  const Shape& shape = s.shape;
  if (c.group_blocks != group_blocks_for(shape.group)) return false;
  if (shape.N % c.tile_n() != 0 || shape.K % c.tile_k() != 0) return false;
  if (is_fetch_order_variant(o.kernel, o.variant) && !is_per_column(shape.group)) return false;  // same code path
  if (size_class(shape) == SizeClass::large && c.m_blocks != choose_config(shape).m_blocks) return false;
  return true;
}

// The reduced matrix still reaches every code path: a partial M tile, slice_count > 1, a last
// block that goes on to another column, per-column and grouped scales, few-stage K
// (tests/sanitizer/reduced_matrix_test.cpp checks it with the schedule model). Two shapes reach
// paths no small one does at sms 1 or 3: N=128 K=768 reduces 128x128 tiles across blocks,
// N=4096 K=128 has a block hand a partial sum on and continue to another column (per-column), and
// N=256 K=512 group 128 has a group span two k-tiles while the 6-stage pipeline wraps (8 k-tiles).
bool in_reduced(const CaseSpec& s, const TileConfig& c, int sms) {
  const bool shape_ok = s.shape.M == 17 || s.shape.M == 65 || s.shape.K <= 192;
  const bool small = s.shape.M * s.shape.N * s.shape.K <= (1 << 22);
  const bool path_shape = (s.shape.N == 128 && s.shape.K == 768) || (s.shape.N == 4096 && s.shape.K == 128) ||
                          (s.shape.N == 256 && s.shape.K == 512);
  return ((shape_ok && small) || path_shape) && s.distribution == Distribution::normal &&
         (c.m_blocks == 2 || c.m_blocks == 1) && (sms == 1 || sms == 3);
}

}  // namespace

std::vector<Cell> suite_cells(const std::vector<CatalogueEntry>& entries, const std::vector<TileConfig>& configs,
                              const MatrixOptions& options) {
  std::vector<Cell> cells;
  for (const CatalogueEntry& e : entries) {
    const CaseSpec& s = e.spec;
    if (runnable_tiles(s.shape).empty() || !runs_format(options, s.format)) continue;
    for (const TileConfig& c : configs) {
      if (!applies(c, s, options)) continue;
      for (int sms : grid_sweep(size_class(s.shape), options.all_sms)) {
        if (options.reduced && !in_reduced(s, c, sms)) continue;
        cells.push_back({s.id, c, s.contract, options.variant, sms});
      }
    }
  }
  return cells;
}

bool runs_format(const MatrixOptions& options, const FixtureFormat& format) {
  const tc_format f = plugin_format(format);
  return std::any_of(options.formats.begin(), options.formats.end(),
                     [&](const tc_format& listed) { return same_format(listed, f); });
}

std::vector<std::string> excluded_formats(const std::vector<CatalogueEntry>& entries, const MatrixOptions& options) {
  std::map<std::string, int> cases;  // reason -> cases, each reason once
  for (const CatalogueEntry& e : entries) {
    if (runs_format(options, e.spec.format)) continue;
    ++cases[options.lists_formats ? unlisted_format(options.kernel, plugin_format(e.spec.format), options.formats)
                                  : abi_v1_not_applicable(e.spec.format)];
  }
  std::vector<std::string> lines;
  for (const auto& [reason, n] : cases) lines.push_back(cat(n, n == 1 ? " case: " : " cases: ", reason));
  return lines;
}

std::string config_family(const TileConfig& c) {
  return cat(c.tile_n(), "x", c.tile_k(), c.group_blocks < 0 ? " gcol" : cat(" g", 16 * c.group_blocks));
}

const std::vector<std::string>& case_families() {
  static const std::vector<std::string> families = {"M<=16", "M 17-64", "batched", "K stages", "deep K",
                                                    "exact", "onehot",  "scales",  "special"};
  return families;
}

std::string case_family(const CaseSpec& s) {
  switch (s.distribution) {
    case Distribution::exact:
    case Distribution::slices:
    case Distribution::ties:
    case Distribution::extremes: return "exact";  // all judged bit for bit (T0)
    case Distribution::onehot_a:
    case Distribution::onehot_w:
    case Distribution::onehot_scale: return "onehot";
    case Distribution::value_scales:
    case Distribution::constant: return "scales";
    case Distribution::overflow:
    case Distribution::specials: return "special";
    case Distribution::normal: break;
  }
  if (s.shape.K >= 4096) return "deep K";
  if (s.shape.M > 64) return "batched";  // par > 1 and its partial tail
  if (s.shape.M > 16) return "M 17-64";  // several m-blocks, partial tiles
  if (s.shape.K > 256) return "K stages";  // k-tile counts that are odd or do not fill the pipeline
  return "M<=16";
}

}  // namespace tc
