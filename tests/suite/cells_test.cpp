// The suite's matrix (tilecheck/suite/cells.h) on the CPU: which cells each kind of kernel library
// gets. A mutant or another project's plugin must get the whole matrix — a grouped-scale bug hides
// from a per-column-only matrix — while our other fetch orders get exactly its per-column part.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/fixtures/golden.h"
#include "tilecheck/core/error.h"
#include "tilecheck/suite/cells.h"
#include "common/library_configs.h"

namespace tc {
namespace {

std::vector<Cell> matrix(const std::string& variant, const std::string& kernel = kOurKernel) {
  MatrixOptions options;
  options.kernel = kernel;
  options.variant = variant;
  return suite_cells(load_catalogue(default_golden_paths().catalogue()).entries, test_support::library_configs(),
                     options);
}

// A cell's identity without the variant's name, to compare matrices of different libraries.
std::set<std::string> without_variant(const std::vector<Cell>& cells) {
  std::set<std::string> keys;
  for (Cell c : cells) {
    c.variant = "x";
    keys.insert(c.name());
  }
  return keys;
}

TEST(SuiteCells, NamesAreUniqueAndGtestSafe) {
  const std::vector<Cell> cells = matrix("upstream");
  ASSERT_FALSE(cells.empty());
  std::set<std::string> names;
  for (const Cell& c : cells) {
    EXPECT_TRUE(std::regex_match(c.name(), std::regex("[A-Za-z0-9_]+"))) << c.name();
    EXPECT_TRUE(names.insert(c.name()).second) << "duplicate cell " << c.name();
  }
}

TEST(SuiteCells, AVariantNameWithOtherCharactersStillGivesAGtestSafeCellName) {
  const Cell c{"normal_m1_n128_k128_g128_marlin", TileConfig{1, 8, 8, 8}, Contract::marlin, "upstream-2f6d7c1.x", 3};
  EXPECT_EQ(c.name(), "normal_m1_n128_k128_g128_marlin_m1n8k8g8_marlin_upstream_2f6d7c1_x_sms3");
}

TEST(SuiteCells, MutantsAndForeignPluginsGetTheWholeMatrix) {
  const std::set<std::string> upstream = without_variant(matrix("upstream"));
  for (const char* variant : {"mut05", "mut10", "their_kernel"})
    EXPECT_EQ(without_variant(matrix(variant)), upstream) << variant;
  // A variant name decides nothing for another library, even one of ours.
  for (const char* variant : {"swapped", "hoisted"})
    EXPECT_EQ(without_variant(matrix(variant, "their-marlin")), upstream) << variant;
  const std::vector<Cell> mutant = matrix("mut10");
  EXPECT_TRUE(std::any_of(mutant.begin(), mutant.end(), [](const Cell& c) { return c.config.group_blocks > 0; }))
      << "a mutant of the grouped-scale path must meet grouped cells";
}

TEST(SuiteCells, OtherFetchOrdersGetThePerColumnPartOnly) {
  std::set<std::string> per_column;
  for (Cell c : matrix("upstream"))
    if (c.config.group_blocks < 0) {
      c.variant = "x";
      per_column.insert(c.name());
    }
  ASSERT_FALSE(per_column.empty());
  for (const char* variant : {"swapped", "hoisted"}) {
    EXPECT_TRUE(is_fetch_order_variant(kOurKernel, variant));
    EXPECT_FALSE(is_fetch_order_variant("their-marlin", variant));
    EXPECT_EQ(without_variant(matrix(variant)), per_column) << variant;
  }
  EXPECT_FALSE(is_fetch_order_variant(kOurKernel, "upstream"));
  EXPECT_FALSE(is_fetch_order_variant(kOurKernel, "mut01"));
}

// Cases of the schema v2 formats have no cells while the plugin ABI is v1 (it carries fp16 A and
// uint4b8 codes only), and the reason is given once per format, with the number of its cases.
TEST(SuiteCells, FormatsAbiV1CannotCarryHaveNoCellsAndOneReasonEach) {
  const std::vector<CatalogueEntry> entries = load_catalogue(default_golden_paths().catalogue()).entries;
  std::set<std::string> new_format_cases;
  std::map<std::string, int> cases_per_format;
  for (const CatalogueEntry& e : entries)
    if (!is_v1_format(e.spec.format)) {
      new_format_cases.insert(e.spec.id);
      ++cases_per_format[name(e.spec.format)];
    }
  ASSERT_FALSE(new_format_cases.empty()) << "the catalogue has cases of the schema v2 formats";
  for (const char* variant : {"upstream", "their_kernel"})
    for (const Cell& c : matrix(variant)) EXPECT_EQ(new_format_cases.count(c.case_id), 0u) << c.name();
  const std::vector<std::string> lines = excluded_formats(entries);
  ASSERT_EQ(lines.size(), cases_per_format.size());
  for (const auto& [format, n] : cases_per_format) {
    const std::string want = cat(n, n == 1 ? " case: " : " cases: ", "format ", format,
                                 ": the kernel library's ABI v1 implements fp16/uint4b8 without act-order only");
    EXPECT_EQ(std::count(lines.begin(), lines.end(), want), 1) << want;
  }
  std::vector<CatalogueEntry> v1_only;
  for (const CatalogueEntry& e : entries)
    if (is_v1_format(e.spec.format)) v1_only.push_back(e);
  EXPECT_TRUE(excluded_formats(v1_only).empty());
}

}  // namespace
}  // namespace tc
