// The suite's matrix: which (case, configuration, kernel variant, grid size) cells run, and the
// families the summary table groups them by. One definition, used by the GPU ctest matrix and by
// `tilecheck run`.
//
// A cell applies when the configuration's group matches the case's, its tile divides N and K, and
// — for our kernel's other scale-fetch orders ("swapped", "hoisted"), which change only the
// per-column path — the case has per-column scales. Every other library (the upstream order, a
// mutant, another project's plugin) gets the whole matrix. The grid-size sweep moves slice boundaries:
// sms in {1, 2, 3, 5, 7, 16, 33, 66, all}; larger cases take fewer cells (see `size_class`) so the
// gpu label stays within its time budget. A case of a schema v2 format (bf16, zero points, 8-bit
// codes, act-order) gets cells by the same rules, for a library that lists its format (plugin ABI 2);
// the cases of the formats a library does not implement are left out and reported once per reason.
#pragma once
#include <string>
#include <vector>

#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/plugin/formats.h"
#include "tilecheck/reference/schedule.h"

namespace tc {

struct Cell {
  std::string case_id;
  TileConfig config;
  Contract contract = Contract::fp32;
  std::string variant;  // the kernel variant: "upstream", "swapped", "hoisted" (or a plugin's name)
  int sms = 1;          // the grid size actually launched
  // "<case>_<config>_<contract>_<variant>_sms<S>": a gtest-safe name ([A-Za-z0-9_]; any other
  // character of the case id or the variant's name becomes '_': "..._bf16-uint4" is "..._bf16_uint4").
  std::string name() const;
};

enum class SizeClass { small, medium, large };
// small: M*N*K <= 2^27 (the full sweep); medium: <= 2^32 (four grid sizes, all m_blocks);
// large: the rest (the automatic m_blocks, two grid sizes).
SizeClass size_class(const Shape& s);

std::vector<int> grid_sweep(SizeClass c, int all_sms);

// Our kernel's library name (tc_plugin_info()->name).
constexpr const char* kOurKernel = "tilecheck-marlin";

// "swapped" and "hoisted" of our own kernel: variants that differ from "upstream" only in where the
// last block fetches per-column scales, so only per-column cells can tell them apart. Another
// library's variant names mean nothing here: it gets every applicable cell.
bool is_fetch_order_variant(const std::string& kernel, const std::string& variant);

struct MatrixOptions {
  std::string kernel = kOurKernel;   // the library under test (its tc_plugin_info()->name)
  std::string variant = "upstream";  // and its variant
  int all_sms = 132;               // the device's multiprocessor count
  bool reduced = false;            // a handful of cells per family (sanitizers, quick checks)
  // The formats the library implements (KernelPlugin::formats(), WorkerInfo::formats) and whether it
  // lists them (plugin ABI 2's tc_plugin_formats). The default, a library that lists none (ABI 1, or
  // ABI 2 without the list, as our kernel is so far): ABI 1's format only.
  std::vector<tc_format> formats = {abi_v1_format()};
  bool lists_formats = false;
};

// Whether the library of `options` implements the format of a case (act-order's random and worst
// permutations are one format to a kernel: tc::plugin_format).
bool runs_format(const MatrixOptions& options, const FixtureFormat& format);

// Every applicable cell of `entries` for the configurations a kernel library offers, for the cases
// of the formats it implements (runs_format); `excluded_formats` lists the others.
std::vector<Cell> suite_cells(const std::vector<CatalogueEntry>& entries, const std::vector<TileConfig>& configs,
                              const MatrixOptions& options);

// The cases of `entries` the matrix leaves out for their format, one line per reason, with the
// number of cases; empty when none is. A library that lists no formats: abi_v1_not_applicable's
// sentence, "3 cases: format bf16-uint4: the kernel library's ABI v1 implements ..."; one that lists
// them: "2 cases: kernel library <name> does not list format bf16-uint4 (it lists ...)" (act-order's
// random and worst cases under one line).
std::vector<std::string> excluded_formats(const std::vector<CatalogueEntry>& entries,
                                          const MatrixOptions& options = {});

// Summary-table families. Rows: the tile and group kind ("128x128 g32", "256x64 gcol").
// Columns: what the case stresses, from its distribution and shape.
std::string config_family(const TileConfig& c);
std::string case_family(const CaseSpec& s);
const std::vector<std::string>& case_families();  // in column order

}  // namespace tc
