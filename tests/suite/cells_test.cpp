// The suite's matrix (tilecheck/suite/cells.h) on the CPU: which cells each kind of kernel library
// gets. A mutant or another project's plugin must get the whole matrix — a grouped-scale bug hides
// from a per-column-only matrix — while our other fetch orders get exactly its per-column part. A
// library that lists formats (plugin ABI 2; tests/plugin/abi_v2_plugin.cpp) also gets the cases of
// those formats, by the same rules, and the others are reported once per format.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/fixtures/golden.h"
#include "tilecheck/core/error.h"
#include "tilecheck/plugin/plugin_loader.h"
#include "tilecheck/suite/cells.h"
#include "tilecheck/suite/kernel_operands.h"
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

std::vector<std::string> names_of(const std::vector<Cell>& cells) {
  std::vector<std::string> names;
  for (const Cell& c : cells) names.push_back(c.name());
  return names;
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

// A library that lists no formats (ABI 1, or ABI 2 without tc_plugin_formats: our kernel so far)
// gets the matrix it got before formats could be listed: the v1 cases' cells, nothing else, and the
// same exclusion lines.
TEST(SuiteCells, ALibraryThatListsNoFormatsGetsTheV1MatrixAsBefore) {
  const std::vector<CatalogueEntry> entries = load_catalogue(default_golden_paths().catalogue()).entries;
  std::vector<CatalogueEntry> v1_only;
  for (const CatalogueEntry& e : entries)
    if (is_v1_format(e.spec.format)) v1_only.push_back(e);
  ASSERT_LT(v1_only.size(), entries.size());
  for (const bool reduced : {false, true})
    for (const char* variant : {"upstream", "swapped", "their_kernel"}) {
      MatrixOptions o;
      o.variant = variant;
      o.reduced = reduced;
      const std::vector<Cell> all = suite_cells(entries, test_support::library_configs(), o);
      // Before ABI 2's formats reached the matrix, suite_cells skipped every case of another format.
      EXPECT_EQ(names_of(all), names_of(suite_cells(v1_only, test_support::library_configs(), o))) << variant;
      MatrixOptions explicit_v1 = o;
      explicit_v1.formats = {abi_v1_format()};
      EXPECT_EQ(names_of(all), names_of(suite_cells(entries, test_support::library_configs(), explicit_v1)));
      EXPECT_EQ(excluded_formats(entries, o), excluded_formats(entries));
    }
}

KernelPlugin abi_v2_library() { return KernelPlugin::load(TC_ABI_V2_PLUGIN); }

MatrixOptions options_of(const KernelPlugin& k) {
  MatrixOptions o;
  o.kernel = k.info().name;
  o.variant = k.info().variant;
  o.formats = k.formats();
  o.lists_formats = k.declares_formats();
  return o;
}

// The test library lists fp16-uint4b8, bf16-uint4, fp16-uint8b128-act and fp16-uint4b8-act-kpart.
// Each case of a listed format gets exactly the cells a v1 case of its shape, contract and
// distribution gets (configurations, grid sizes, partial tiles: the same rules); no case of another
// format gets any; the names stay unique and gtest-safe ('-' of the format becomes '_').
TEST(SuiteCells, AnAbiV2LibraryGetsTheCasesOfTheFormatsItListsByTheSameRules) {
  const KernelPlugin k = abi_v2_library();
  ASSERT_TRUE(k.declares_formats());
  const MatrixOptions o = options_of(k);
  const std::vector<CatalogueEntry> entries = load_catalogue(default_golden_paths().catalogue()).entries;
  const std::vector<Cell> cells = suite_cells(entries, test_support::library_configs(), o);
  std::map<std::string, std::vector<std::string>> by_case;  // case id -> its cells without case and variant
  std::set<std::string> names;
  for (const Cell& c : cells) {
    EXPECT_TRUE(std::regex_match(c.name(), std::regex("[A-Za-z0-9_]+"))) << c.name();
    EXPECT_TRUE(names.insert(c.name()).second) << "duplicate cell " << c.name();
    Cell bare = c;
    bare.case_id = "c";
    bare.variant = "x";
    by_case[c.case_id].push_back(bare.name());
  }
  int listed_cases = 0;
  std::set<std::string> listed_formats;
  for (const CatalogueEntry& e : entries) {
    if (is_v1_format(e.spec.format)) continue;
    const bool listed = k.not_applicable(plugin_format(e.spec.format)).empty();
    EXPECT_EQ(runs_format(o, e.spec.format), listed) << e.spec.id;
    if (!listed) {
      EXPECT_EQ(by_case.count(e.spec.id), 0u) << e.spec.id << ": a format the library does not list has cells";
      continue;
    }
    ++listed_cases;
    listed_formats.insert(name(e.spec.format));
    CatalogueEntry as_v1 = e;
    as_v1.spec.format = FixtureFormat{};
    std::vector<std::string> want;
    for (Cell c : suite_cells({as_v1}, test_support::library_configs(), MatrixOptions{})) {
      c.case_id = "c";
      c.variant = "x";
      want.push_back(c.name());
    }
    ASSERT_FALSE(want.empty()) << e.spec.id << ": a case the matrix runs";
    EXPECT_EQ(by_case[e.spec.id], want) << e.spec.id;
    EXPECT_NE(by_case[e.spec.id].size(), 0u);
  }
  EXPECT_GE(listed_cases, 4) << "bf16-uint4 and fp16-uint4b8-act*-kpart cases, random and worst";
  EXPECT_TRUE(listed_formats.count("bf16-uint4") && listed_formats.count("fp16-uint4b8-actrandom-kpart") &&
              listed_formats.count("fp16-uint4b8-actworst-kpart"));
  // It lists ABI 1's format too: every v1 cell is there.
  MatrixOptions v1 = o;
  v1.formats = {abi_v1_format()};
  for (const Cell& c : suite_cells(entries, test_support::library_configs(), v1))
    EXPECT_EQ(names.count(c.name()), 1u) << c.name();
}

// The formats it does not list: one line each (act-order's random and worst cases together, as a
// kernel sees one format), naming the library and the format, with the number of cases.
TEST(SuiteCells, AnAbiV2LibrarysUnlistedFormatsAreReportedOnceEachNamingLibraryAndFormat) {
  const KernelPlugin k = abi_v2_library();
  const MatrixOptions o = options_of(k);
  const std::vector<CatalogueEntry> entries = load_catalogue(default_golden_paths().catalogue()).entries;
  std::map<std::string, int> cases_per_format;  // tc_format name -> cases
  for (const CatalogueEntry& e : entries)
    if (!runs_format(o, e.spec.format)) ++cases_per_format[format_name(plugin_format(e.spec.format))];
  ASSERT_TRUE(cases_per_format.count("fp16-uint8b128")) << "the catalogue has formats the test library does not list";
  const std::vector<std::string> lines = excluded_formats(entries, o);
  ASSERT_EQ(lines.size(), cases_per_format.size());
  for (const auto& [format, n] : cases_per_format) {
    const std::string want =
        cat(n, n == 1 ? " case: " : " cases: ", "kernel library abi-v2-test does not list format ", format,
            " (it lists fp16-uint4b8, bf16-uint4, fp16-uint8b128-act, fp16-uint4b8-act-kpart)");
    EXPECT_EQ(std::count(lines.begin(), lines.end(), want), 1) << want;
  }
  // An ABI 2 library that lists only v2 formats leaves the v1 cases out, with the same kind of line.
  MatrixOptions bf16_only = o;
  bf16_only.formats = {plugin_format(parse_format("bf16-uint4"))};
  int v1_cases = 0;
  for (const CatalogueEntry& e : entries) v1_cases += is_v1_format(e.spec.format);
  const std::vector<std::string> bf16_lines = excluded_formats(entries, bf16_only);
  EXPECT_EQ(std::count(bf16_lines.begin(), bf16_lines.end(),
                       cat(v1_cases, " cases: kernel library abi-v2-test does not list format fp16-uint4b8 (it lists "
                                     "bf16-uint4)")),
            1);
  for (const Cell& c : suite_cells(entries, test_support::library_configs(), bf16_only))
    EXPECT_TRUE(std::regex_search(c.case_id, std::regex("_bf16-uint4$"))) << c.name();
}

}  // namespace
}  // namespace tc
