// The report text: the torch-style header, the worst element's attribution, the histogram, the 16
// worst, the tile map (compressed when large) and the length cap.
#include "tilecheck/compare/report.h"

#include <algorithm>
#include <sstream>

#include <gtest/gtest.h>

#include "synthetic.h"
#include "tilecheck/core/error.h"
#include "tilecheck/compare/poison.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

int lines_between(const std::string& text, const std::string& from, const std::string& to) {
  const size_t a = text.find(from), b = text.find(to);
  if (a == std::string::npos || b == std::string::npos || b < a) return -1;
  return static_cast<int>(std::count(text.begin() + a, text.begin() + b, '\n'));
}

TEST(HeaderLine, IsInTheStyleOfTorchTesting) {
  Counts n;
  n.elements = 65536;
  n.bound = 10;
  n.nonfinite = 2;
  EXPECT_EQ(header_line(n), "Mismatched 12 / 65536 (0.018%) [bound=10 nonfinite=2 unwritten=0 guard=0]");
  n.bound = 32766;
  n.unwritten = 1;
  n.guard = 1;
  EXPECT_EQ(header_line(n), "Mismatched 32770 / 65536 (50.0%) [bound=32766 nonfinite=2 unwritten=1 guard=1]");
}

TEST(Report, NamesTheWorstElementsPlaceValuesAndBounds) {
  const Expectation e = synthetic_expectation(Problem{{40, 512, 512, 64}, {1, 8, 8, 4}, 7, Contract::marlin});
  HalfMatrix got = e.ref.expected;
  // (21, 300) goes furthest past its bound (the worst is ranked by |ulp| / allowance); five more fail.
  got(21, 300) = half_from_key(e.bounds.key_hi(21, 300) + 40);
  for (int j = 0; j < 5; ++j) got(2, j) = half_from_key(e.bounds.key_hi(2, j) + 1);
  const Comparison c = compare(e, got);
  const std::string text = report(e, c);
  EXPECT_EQ(text.rfind("Mismatched 6 / 20480 (0.029%) [bound=6 nonfinite=0 unwritten=0 guard=0]\n", 0), 0u) << text;
  const ElementPlace p = locate(e.schedule, 21, 300);
  const std::vector<Slice> slices = slices_of(e.schedule, p);
  EXPECT_NE(text.find("worst element (21, 300): FAIL_BOUND"), std::string::npos) << text;
  EXPECT_NE(text.find(cat("output tile (", p.tile_row, ", ", p.tile_col, ")")), std::string::npos);
  ASSERT_EQ(e.schedule.launches.size(), 2u) << "two full 16-row chunks batched, then the 8-row tail";
  EXPECT_NE(text.find(cat("thread block ", slices.back().block, " of launch ", p.launch, "/2 writes it: slice ",
                          slices.back().slice_index, " / slice_count ", slices.size(), ", last block")),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(cat("warp ", p.warp, ", lane ", p.lane, ", register c", p.reg)), std::string::npos) << text;
  char bits[64];
  std::snprintf(bits, sizeof bits, "expected 0x%04x", e.ref.expected(21, 300));
  EXPECT_NE(text.find(bits), std::string::npos);
  std::snprintf(bits, sizeof bits, "got 0x%04x", got(21, 300));
  EXPECT_NE(text.find(bits), std::string::npos);
  EXPECT_NE(text.find(cat("ULP distance +", half_key(got(21, 300)) - half_key(e.ref.expected(21, 300)))),
            std::string::npos);
  EXPECT_NE(text.find("y* = "), std::string::npos);
  EXPECT_NE(text.find("allowed ["), std::string::npos);
  EXPECT_NE(text.find("ULP histogram: 0: "), std::string::npos);
  long long histogram = 0;
  for (long long n : c.histogram) histogram += n;
  EXPECT_EQ(histogram, 20480);
  EXPECT_EQ(lines_between(text, "6 worst elements:", "tile map"), 2 + 6) << "failing ones only\n" << text;
  EXPECT_NE(text.find("tile map (3 x 4 tiles of 16 x 128"), std::string::npos);
  EXPECT_NE(text.find("hints:"), std::string::npos);
  EXPECT_LE(text.size(), ReportOptions{}.max_chars);
}

TEST(Report, PassingReportIsShort) {
  const Expectation e = synthetic_expectation(Problem{{16, 256, 256, 64}, {1, 8, 8, 4}, 3, Contract::fp32});
  const std::string text = report(e, compare(e, e.ref.expected), ReportOptions{10000, "out/x.errmap.h5"});
  EXPECT_NE(text.find("closest to the bound"), std::string::npos);
  EXPECT_EQ(text.find("worst elements"), std::string::npos);
  EXPECT_EQ(text.find("tile map"), std::string::npos);
  EXPECT_NE(text.find("error map: out/x.errmap.h5\n"), std::string::npos);
}

TEST(TileMap, OneCharacterPerTileWithTheMostSevereWinning) {
  const std::vector<char> symbols = {'.', '1', 'b', 'X', 'U', '.'};
  const std::string map = tile_map(2, 3, symbols, ".1bXNUG");
  EXPECT_NE(map.find("      0 .1b\n"), std::string::npos) << map;
  EXPECT_NE(map.find("      1 XU.\n"), std::string::npos) << map;
  EXPECT_THROW(tile_map(2, 2, symbols, ".X"), Error);
}

TEST(TileMap, LargeGridsAreCompressed) {
  const int rows = 100, cols = 300;
  std::vector<char> symbols(rows * cols, '.');
  symbols[57 * cols + 250] = 'X';  // lands in character (57/4, 250/5) = (14, 50)
  const std::string map = tile_map(rows, cols, symbols, ".X");
  EXPECT_NE(map.find("each character is 4 x 5 tiles"), std::string::npos) << map;
  std::istringstream in(map);
  std::string line;
  int body = 0;
  size_t widest = 0;
  while (std::getline(in, line)) {
    if (line.size() < 8 || line[6] == ' ' || line.find("compressed") != std::string::npos) continue;  // ruler
    widest = std::max(widest, line.size() - 8);
    if (body == 14) {
      EXPECT_EQ(line.substr(8).find('X'), 50u) << line;
    }
    ++body;
  }
  EXPECT_EQ(body, 25);
  EXPECT_EQ(widest, 60u);
}

TEST(Report, IsCappedWithANote) {
  const Expectation e = synthetic_expectation(Problem{{64, 4096, 128, 128}, {4, 16, 4, 8}, 40, Contract::fp32});
  HalfMatrix got = HalfMatrix::Constant(e.M(), e.N(), kPoison);
  got(3, 3) = 0;
  const Comparison c = compare(e, got);
  const std::string full = report(e, c, ReportOptions{1000000, ""});
  const std::string capped = report(e, c, ReportOptions{1500, ""});
  EXPECT_GT(full.size(), 1500u);
  EXPECT_LE(capped.size(), 1500u + 80);
  EXPECT_NE(capped.find("[report cut at"), std::string::npos);
  EXPECT_EQ(capped.rfind("Mismatched", 0), 0u);
  EXPECT_EQ(cap("short", 100), "short");
}

}  // namespace
}  // namespace tc
