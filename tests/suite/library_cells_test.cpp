// Which cells a kernel library gets (tilecheck/suite/library_cells.h), the choice `tilecheck run` and
// `tilecheck perturb` share: perturb's matrices (reduced and committed: committed cases only) of a
// library that lists no formats, of the ABI 2 test library (tests/plugin/abi_v2_plugin.cpp: four
// formats) and of one that lists every format; the cases of unlisted formats reported once per
// format with the library's list, counted over the cases the filter keeps; --contract and storage.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/library_configs.h"
#include "tilecheck/core/error.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/plugin/plugin_loader.h"
#include "tilecheck/suite/kernel_operands.h"
#include "tilecheck/suite/library_cells.h"

namespace tc {
namespace {

const std::vector<CatalogueEntry>& all_entries() {
  static const std::vector<CatalogueEntry> entries = load_catalogue(default_golden_paths().catalogue()).entries;
  return entries;
}

// What a worker reports for our kernel (no list of formats) on a 132-SM device.
WorkerInfo our_kernel_info() {
  WorkerInfo w;
  w.kernel_name = kOurKernel;
  w.variant = "upstream";
  w.configs = test_support::library_configs();
  w.multiprocessors = 132;
  return w;
}

// What a worker reports for the ABI 2 test library, with our kernel's configurations so that cases
// get cells (the test library itself offers one).
WorkerInfo listing_info() {
  const KernelPlugin k = KernelPlugin::load(TC_ABI_V2_PLUGIN);
  WorkerInfo w = our_kernel_info();
  w.kernel_name = k.info().name;
  w.variant = k.info().variant;
  w.formats = k.formats();
  w.lists_formats = k.declares_formats();
  return w;
}

// perturb's --matrix reduced (its default) and committed.
CellSelection perturb_matrix(bool reduced) {
  CellSelection s;
  s.reduced = reduced;
  s.committed_only = true;
  return s;
}

const CatalogueEntry& entry_of(const std::string& id) {
  for (const CatalogueEntry& e : all_entries())
    if (e.spec.id == id) return e;
  throw Error(cat("no catalogue case ", id));
}

std::set<std::string> formats_of(const std::vector<Cell>& cells) {
  std::set<std::string> formats;
  for (const Cell& c : cells) formats.insert(name(entry_of(c.case_id).spec.format));
  return formats;
}

TEST(LibraryCells, MatrixOptionsAreTheWorkersDescription) {
  const WorkerInfo w = listing_info();
  const MatrixOptions m = matrix_options(w);
  EXPECT_EQ(m.kernel, "abi-v2-test");
  EXPECT_EQ(m.variant, "records");
  EXPECT_EQ(m.all_sms, 132);
  EXPECT_TRUE(m.lists_formats);
  EXPECT_EQ(format_names(m.formats), "fp16-uint4b8, bf16-uint4, fp16-uint8b128-act, fp16-uint4b8-act-kpart");
  EXPECT_FALSE(m.reduced);
}

// A library that lists no formats keeps ABI 1's matrix: no cell of another format; each other format
// is one line with ABI v1's sentence (per case format: act-order's random and worst apart).
TEST(LibraryCells, ALibraryThatListsNoFormatsIsPerturbedOnTheV1CasesOnly) {
  for (const bool reduced : {true, false}) {
    const LibraryCells chosen = library_cells(all_entries(), our_kernel_info(), perturb_matrix(reduced));
    ASSERT_FALSE(chosen.cells.empty());
    EXPECT_EQ(formats_of(chosen.cells), std::set<std::string>{"fp16-uint4b8"});
    std::vector<CatalogueEntry> committed;
    for (const CatalogueEntry& e : all_entries())
      if (e.storage == Storage::committed) committed.push_back(e);
    EXPECT_EQ(chosen.not_in_matrix, excluded_formats(committed)) << "the lines run prints for the same cases";
    for (const std::string& line : chosen.not_in_matrix)
      EXPECT_NE(line.find("the kernel library's ABI v1 implements fp16/uint4b8 without act-order only"),
                std::string::npos)
          << line;
  }
}

// The ABI 2 test library gets the cells of the formats it lists, by the matrix's rules, and one line
// for each format it does not list, naming it and the library's list, with the number of cases.
TEST(LibraryCells, AListingLibraryIsPerturbedOnItsFormatsAndTheOthersAreNaOncePerFormat) {
  const WorkerInfo w = listing_info();
  const LibraryCells committed = library_cells(all_entries(), w, perturb_matrix(false));
  const std::set<std::string> formats = formats_of(committed.cells);
  for (const char* listed :
       {"fp16-uint4b8", "bf16-uint4", "fp16-uint4b8-actrandom-kpart", "fp16-uint4b8-actworst-kpart"})
    EXPECT_EQ(formats.count(listed), 1u) << listed << " has committed cases with cells";
  const MatrixOptions m = matrix_options(w);
  for (const Cell& c : committed.cells)
    EXPECT_TRUE(runs_format(m, entry_of(c.case_id).spec.format)) << c.name() << ": a format it does not list";
  std::map<std::string, int> unlisted;  // tc_format name -> committed cases
  for (const CatalogueEntry& e : all_entries())
    if (e.storage == Storage::committed && !runs_format(m, e.spec.format))
      ++unlisted[format_name(plugin_format(e.spec.format))];
  ASSERT_TRUE(unlisted.count("bf16-uint8b128") && unlisted.count("fp16-uint4")) << "formats it does not list";
  ASSERT_EQ(committed.not_in_matrix.size(), unlisted.size());
  for (const auto& [format, n] : unlisted) {
    const std::string want =
        cat(n, n == 1 ? " case: " : " cases: ", "kernel library abi-v2-test does not list format ", format,
            " (it lists fp16-uint4b8, bf16-uint4, fp16-uint8b128-act, fp16-uint4b8-act-kpart)");
    EXPECT_EQ(std::count(committed.not_in_matrix.begin(), committed.not_in_matrix.end(), want), 1) << want;
  }
  // The reduced matrix is part of the committed one, and reports the same formats.
  const LibraryCells reduced = library_cells(all_entries(), w, perturb_matrix(true));
  ASSERT_FALSE(reduced.cells.empty());
  std::set<std::string> all_names;
  for (const Cell& c : committed.cells) all_names.insert(c.name());
  for (const Cell& c : reduced.cells) EXPECT_EQ(all_names.count(c.name()), 1u) << c.name();
  EXPECT_EQ(reduced.not_in_matrix, committed.not_in_matrix);
}

// A library that lists every format (as vLLM's Marlin adapter does) gets cells of v2 formats even in
// the reduced matrix (the small normal cases of K = 128), and no line.
TEST(LibraryCells, ALibraryListingEveryFormatHasNoNaLinesAndV2CellsInTheReducedMatrix) {
  WorkerInfo w = our_kernel_info();
  w.formats.clear();
  for (const CatalogueEntry& e : all_entries()) {
    const tc_format f = plugin_format(e.spec.format);
    if (std::none_of(w.formats.begin(), w.formats.end(), [&](const tc_format& g) { return same_format(f, g); }))
      w.formats.push_back(f);
  }
  w.lists_formats = true;
  const LibraryCells reduced = library_cells(all_entries(), w, perturb_matrix(true));
  EXPECT_TRUE(reduced.not_in_matrix.empty());
  const std::set<std::string> formats = formats_of(reduced.cells);
  EXPECT_GT(formats.size(), 1u) << "v2 formats' cases in the reduced matrix";
  EXPECT_EQ(formats.count("bf16-uint4b8"), 1u);
  const LibraryCells committed = library_cells(all_entries(), w, perturb_matrix(false));
  std::set<std::string> committed_formats;
  for (const CatalogueEntry& e : all_entries())
    if (e.storage == Storage::committed && !runnable_tiles(e.spec.shape).empty())
      committed_formats.insert(name(e.spec.format));
  EXPECT_EQ(formats_of(committed.cells), committed_formats) << "every committed format is perturbed";
}

// The n/a lines count the cases whose id the filter matches; the cells are the filter's on names.
TEST(LibraryCells, TheFilterNarrowsCellsAndTheNaLinesAlike) {
  const WorkerInfo w = listing_info();
  CellSelection s = perturb_matrix(false);
  // '.' for the format's '-', which a cell's name writes '_'; the n/a lines match case ids.
  s.filter = std::regex("_m16_n128_k256_g32_marlin_bf16.uint8b128|_m16_n128_k256_g64_fp32_bf16.uint4(_|$)");
  const LibraryCells chosen = library_cells(all_entries(), w, s);
  ASSERT_EQ(chosen.not_in_matrix.size(), 1u);
  EXPECT_EQ(chosen.not_in_matrix[0].rfind("1 case: kernel library abi-v2-test does not list format bf16-uint8b128 ", 0),
            0u)
      << chosen.not_in_matrix[0];
  ASSERT_FALSE(chosen.cells.empty());
  for (const Cell& c : chosen.cells) EXPECT_EQ(c.case_id, "normal_m16_n128_k256_g64_fp32_bf16-uint4");
  s.filter = std::regex("^normal_m1_");  // v1 cases only: nothing to report
  EXPECT_TRUE(library_cells(all_entries(), w, s).not_in_matrix.empty());
}

TEST(LibraryCells, ContractAndStorageNarrowTheCasesAndTheirFamilies) {
  CellSelection s;
  s.contract = "fp32";
  const LibraryCells fp32 = library_cells(all_entries(), our_kernel_info(), s);
  for (const Cell& c : fp32.cells) EXPECT_EQ(c.contract, Contract::fp32) << c.name();
  for (const auto& [id, family] : fp32.families) {
    EXPECT_EQ(entry_of(id).spec.contract, Contract::fp32) << id;
    EXPECT_EQ(family, case_family(entry_of(id).spec)) << id;
  }
  bool generated = false;
  for (const Cell& c : fp32.cells) generated = generated || entry_of(c.case_id).storage != Storage::committed;
  EXPECT_TRUE(generated) << "without committed_only, the on-demand cases are in (perturb --matrix all)";
  s.committed_only = true;
  for (const Cell& c : library_cells(all_entries(), our_kernel_info(), s).cells)
    EXPECT_EQ(entry_of(c.case_id).storage, Storage::committed) << c.name();
}

TEST(LibraryCells, NotInTheMatrixLinesArePrintedAsRunPrintsThem) {
  LibraryCells chosen;
  chosen.not_in_matrix = {"3 cases: a", "1 case: b"};
  std::ostringstream out;
  print_not_in_matrix(out, chosen);
  EXPECT_EQ(out.str(), "n/a (not in the matrix): 3 cases: a\nn/a (not in the matrix): 1 case: b\n");
}

}  // namespace
}  // namespace tc
