// The sanitizer tier runs only the reduced matrix (Sanitize/KernelVsGolden.Matches/*, the cells of
// suite_cells(..., reduced = true)), so the reduced matrix must still reach every code path the
// tier exists for (issue 6): a partial M tile, slice_count > 1 (with both contracts: the fp32
// partials and the fp16 running sum in C), a last block that goes on to another column, batched
// launches, per-column and grouped scales (every group-to-tile relation), both tiles, both depths
// of the pipeline (pipeline_depth.h), and every scale-fetch order at grid sizes 1 and 3. This
// checks it on the CPU with the schedule model the kernel shares (tilecheck/reference/stripe.h),
// for the catalogue and the kernel library's 32 configurations, and prints which cells reach which
// path.
#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/core/error.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/reference/schedule.h"
#include "tilecheck/kernel/pipeline_depth.h"
#include "tilecheck/kernel/smem_layout.h"
#include "tilecheck/suite/cells.h"
#include "common/library_configs.h"

namespace tc {
namespace {

using test_support::library_configs;

const std::vector<CatalogueEntry>& catalogue() {
  static const std::vector<CatalogueEntry> entries = load_catalogue(default_golden_paths().catalogue()).entries;
  return entries;
}

const CaseSpec& spec_of(const std::string& id) {
  for (const CatalogueEntry& e : catalogue())
    if (e.spec.id == id) return e.spec;
  throw Error(cat("no catalogue case ", id));
}

// What one cell's launches do, from the schedule model.
struct Paths {
  bool partial_m = false;          // a tile with fewer valid rows than 16 * m_blocks
  bool multi_slice = false;        // a column reduced across blocks (slice_count > 1)
  bool last_continues = false;     // a block writes a column out, then works on another column
  bool nonlast_continues = false;  // a block hands a partial sum on, then works on another column
  bool batched = false;            // a launch with par > 1
  int most_k_tiles = 0;            // the most k-tiles one slice sums (more than the stages: the pipeline wraps)
  bool short_instance = false;     // a launch runs the shallow instance (pipeline_depth.h)
  bool deep_instance = false;      // a launch of a configuration that has one runs the full depth
};

Paths paths_of(const Cell& cell) {
  const CaseSpec& spec = spec_of(cell.case_id);
  const Schedule s = make_schedule(spec.shape, cell.config, cell.sms);
  Paths p;
  for (const LaunchSchedule& l : s.launches) {
    p.partial_m |= l.plan.rows % (16 * l.plan.m_blocks) != 0;
    p.batched |= l.plan.par > 1;
    TileConfig launched = cell.config;
    launched.m_blocks = l.plan.m_blocks;
    const bool short_slices = runs_short_slices(launched, spec.shape.N, spec.shape.K, l.plan.par, cell.sms);
    p.short_instance |= short_slices;
    p.deep_instance |= has_short_slice_instance(launched) && !short_slices;
    for (size_t i = 0; i < l.slices.size(); ++i) {
      const Slice& slice = l.slices[i];
      p.multi_slice |= slice.slice_count > 1;
      p.most_k_tiles = std::max(p.most_k_tiles, slice.k_tile_end - slice.k_tile_begin);
      const bool continues = i + 1 < l.slices.size() && l.slices[i + 1].block == slice.block;
      p.last_continues |= continues && slice.last();
      p.nonlast_continues |= continues && !slice.last();
    }
  }
  return p;
}

std::vector<Cell> reduced_cells(const std::string& order) {
  MatrixOptions options;
  options.variant = order;
  options.reduced = true;
  return suite_cells(catalogue(), library_configs(), options);
}

enum class Scales { per_column, grouped };
const char* name(Scales s) { return s == Scales::per_column ? "per-column" : "grouped"; }

struct Coverage {
  std::map<std::string, std::vector<std::string>> cells_by_path;  // path -> cell names
  void add(const std::string& path, const Cell& c) { cells_by_path[path].push_back(c.name()); }
  bool has(const std::string& path) const { return cells_by_path.count(path) != 0; }
};

Coverage coverage(const std::vector<Cell>& cells, Scales scales) {
  Coverage cov;
  for (const Cell& c : cells) {
    if ((c.config.group_blocks < 0) != (scales == Scales::per_column)) continue;
    const Paths p = paths_of(c);
    const std::string tile = cat(c.config.tile_n(), "x", c.config.tile_k());
    cov.add(cat("sms=", c.sms), c);
    cov.add(cat("tile ", tile), c);
    if (p.partial_m) cov.add("partial M tile", c);
    if (p.batched) cov.add("batched (par > 1)", c);
    if (p.multi_slice) cov.add(cat("slice_count > 1, ", name(c.contract), " contract"), c);
    if (p.multi_slice) cov.add(cat("slice_count > 1, tile ", tile), c);
    if (p.last_continues) cov.add("last block continues to another column", c);
    if (p.nonlast_continues) cov.add("non-last block continues to another column", c);
    if (p.short_instance) cov.add("tile 128x128, one m-block: the short-slice instance", c);
    if (p.deep_instance) cov.add("tile 128x128, one m-block: the full-depth instance", c);
    if (scales == Scales::grouped) {
      const int g = c.config.group_blocks, k = c.config.k_blocks;
      cov.add(g < k ? "several groups per k-tile" : g == k ? "one group per k-tile" : "a group spans k-tiles", c);
      // the stage that fetched a group's scales is refilled while the group's later k-tiles run
      const int stages = smem_layout(c.config.m_blocks, c.config.n_blocks, k, g).stages;
      if (g > k && p.most_k_tiles > stages) cov.add("a group spans k-tiles and the pipeline wraps", c);
    }
  }
  return cov;
}

std::vector<std::string> required_paths(Scales scales) {
  std::vector<std::string> paths = {"sms=1",
                                    "sms=3",
                                    "tile 128x128",
                                    "tile 256x64",
                                    "partial M tile",
                                    "batched (par > 1)",
                                    "slice_count > 1, marlin contract",
                                    "slice_count > 1, fp32 contract",
                                    "slice_count > 1, tile 128x128",
                                    "slice_count > 1, tile 256x64",
                                    "last block continues to another column",
                                    "non-last block continues to another column",
                                    "tile 128x128, one m-block: the short-slice instance",
                                    "tile 128x128, one m-block: the full-depth instance"};
  if (scales == Scales::grouped) {
    paths.insert(paths.end(), {"several groups per k-tile", "one group per k-tile", "a group spans k-tiles",
                               "a group spans k-tiles and the pipeline wraps"});
  }
  return paths;
}

std::string report(const std::string& order, Scales scales, const Coverage& cov) {
  std::ostringstream out;
  out << order << ", " << name(scales) << " scales:\n";
  for (const std::string& path : required_paths(scales)) {
    const auto it = cov.cells_by_path.find(path);
    out << "  " << path << ": ";
    if (it == cov.cells_by_path.end()) {
      out << "MISSING\n";
    } else {
      out << it->second.size() << " cells, e.g. " << it->second.front() << "\n";
    }
  }
  return out.str();
}

struct OrderScales {
  std::string order;
  Scales scales;
};

void PrintTo(const OrderScales& p, std::ostream* out) { *out << p.order << " " << name(p.scales); }

class ReducedMatrix : public ::testing::TestWithParam<OrderScales> {};

TEST_P(ReducedMatrix, ReachesEveryCodePathTheSanitizersCheck) {
  const Coverage cov = coverage(reduced_cells(GetParam().order), GetParam().scales);
  const std::string text = report(GetParam().order, GetParam().scales, cov);
  std::cout << text;
  std::string missing;
  for (const std::string& path : required_paths(GetParam().scales)) {
    if (!cov.has(path)) missing += "\n  " + path;
  }
  EXPECT_TRUE(missing.empty()) << "the reduced matrix (in_reduced, suite/src/cells.cpp) has no "
                               << name(GetParam().scales) << " cell of order " << GetParam().order
                               << " that reaches:" << missing;
}

// The fetch order only changes the per-column path, so the other orders run per-column cells only
// (suite_cells' `applies`); the default order runs both kinds.
INSTANTIATE_TEST_SUITE_P(Orders, ReducedMatrix,
                         ::testing::Values(OrderScales{"upstream", Scales::per_column},
                                           OrderScales{"upstream", Scales::grouped},
                                           OrderScales{"swapped", Scales::per_column},
                                           OrderScales{"hoisted", Scales::per_column}),
                         [](const ::testing::TestParamInfo<OrderScales>& p) {
                           return p.param.order + (p.param.scales == Scales::per_column ? "_gcol" : "_grouped");
                         });

TEST(ReducedMatrixCells, EveryCellRunsTheOrderUnderTestAtGridSize1Or3) {
  for (const std::string order : {"upstream", "swapped", "hoisted"}) {
    const std::vector<Cell> cells = reduced_cells(order);
    EXPECT_FALSE(cells.empty()) << order;
    for (const Cell& c : cells) {
      EXPECT_EQ(c.variant, order) << c.name();
      EXPECT_TRUE(c.sms == 1 || c.sms == 3) << c.name();
      if (order != "upstream") {
        EXPECT_LT(c.config.group_blocks, 0) << c.name() << ": grouped cell in a non-default order";
      }
    }
    std::cout << order << ": " << cells.size() << " Sanitize cells\n";
  }
}

}  // namespace
}  // namespace tc
