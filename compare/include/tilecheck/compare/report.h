// The mismatch report: the same text from a failing GoogleTest assertion and from `tilecheck
// compare`, capped in length. Sections, most important first:
//   Mismatched 12 / 65536 (0.018%) [bound=10 nonfinite=2 unwritten=0 guard=0]
//   the case, schedule and tiers; the worst element with its tile, thread block, slice, warp, lane and
//   accumulator register, bits and values, y*, S, E, the allowed interval and the ULP distance; the
//   ULP histogram; the 16 worst elements; the tile map; the hints.
// A passing comparison gets the first lines only (closest element to the bound, histogram).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/expectation.h"

namespace tc {

struct ReportOptions {
  std::size_t max_chars = 10000;  // longer reports are cut, with a note saying so
  std::string error_map;          // path of the error map written for this comparison, if any
};

std::string report(const Expectation& e, const Comparison& c, const ReportOptions& options = {});

// "Mismatched 12 / 65536 (0.018%) [bound=10 nonfinite=2 unwritten=0 guard=0]"
std::string header_line(const Counts& counts);

// An ASCII map of the tile grid, one character per tile, at most 64 characters wide and 32 rows
// high: a larger grid is compressed, each character standing for a block of tiles and showing the
// most severe symbol among them (the order of `severity`, least severe first).
std::string tile_map(int rows, int cols, const std::vector<char>& symbols, const std::string& severity);

// Caps text at max_chars, cutting at a line end, with a note naming the full length.
std::string cap(std::string text, std::size_t max_chars);

}  // namespace tc
