// The error map round-trips through HDF5 (tilecheck/core/h5.h), its attribution matches
// tc::locate, it is byte-reproducible, it stores the failing tiles' elements only (compressed) unless
// asked for all, and its size bound holds.
#include "tilecheck/compare/errormap.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "common/temp_dir.h"
#include "synthetic.h"
#include "tilecheck/compare/poison.h"
#include "tilecheck/compare/report.h"
#include "tilecheck/core/error.h"
#include "tilecheck/core/h5.h"
#include "tilecheck/core/h5_chunked.h"

namespace tc {
namespace {

using namespace synthetic;  // the kernel model and its problems (synthetic.h)

std::string bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// 3 x 4 tiles of 16 x 128: tile (1, 1) unwritten, a +Inf in tile (0, 0), a guard write below tile
// (2, 0); the other nine tiles pass.
struct Damaged {
  Expectation e = synthetic_expectation(Problem{{40, 512, 512, 64}, {1, 8, 8, 4}, 7, Contract::marlin});
  Comparison c;
  Damaged() {
    HalfMatrix buffer = HalfMatrix::Constant(e.M() + 2, e.N() + 2, kPoison);
    buffer.block(1, 1, e.M(), e.N()) = e.ref.expected;
    buffer.block(1 + 16, 1 + 128, 16, 128).setConstant(kPoison);  // tile (1, 1) unwritten
    buffer(1 + 3, 1 + 7) = kHalfPosInf;
    buffer(1 + e.M(), 1 + 9) = 0;  // a guard write below
    c = compare(e, interior(buffer, 1, 1, 1, 1), guard_band(buffer, 1, 1, 1, 1));
  }
};

TEST(ErrorMap, RoundTripsVerdictsTilesAndAttribution) {
  const Damaged d;
  const Expectation& e = d.e;
  const Comparison& c = d.c;
  TempDir dir;
  const std::string path = dir.file(error_map_name(e));
  EXPECT_EQ(error_map_name(e), "m40n512k512g64_m1n8k8g4_marlin_sms7_normal_m1n8k8g4_marlin_sms7.errmap.h5");
  write_error_map(path, e, c, {ErrorMapElements::all});

  const h5::File f = h5::File::open(path);
  EXPECT_EQ(h5::read_int_attribute(f, "errmap_schema_version"), kErrorMapSchemaVersion);
  EXPECT_EQ(h5::read_string_attribute(f, "elements_stored"), "all");
  EXPECT_EQ(h5::read_string_attribute(f, "case_id"), e.info.case_id);
  EXPECT_EQ(h5::read_string_attribute(f, "config"), "m1n8k8g4");
  EXPECT_EQ(h5::read_string_attribute(f, "contract"), "marlin");
  EXPECT_EQ(h5::read_int_attribute(f, "sms"), 7);
  EXPECT_EQ(h5::read_int_attribute(f, "grid_rows"), 3);
  EXPECT_EQ(h5::read_int_attribute(f, "grid_cols"), 4);
  EXPECT_EQ(h5::read_int_attribute(f, "passed"), 0);
  EXPECT_EQ(h5::read_int_attribute(f, "unwritten"), 16 * 128);
  EXPECT_EQ(h5::read_int_attribute(f, "nonfinite"), 1);
  EXPECT_EQ(h5::read_int_attribute(f, "guard"), 1);
  EXPECT_EQ(h5::read_string_attribute(f, "header"), header_line(c.counts));
  EXPECT_NE(h5::read_string_attribute(f, "hint_kinds").find("unwritten"), std::string::npos);
  EXPECT_EQ(h5::read_string_attribute(f, "report").rfind("Mismatched", 0), 0u);

  const h5::Node el = h5::open_group(f, "elements");
  EXPECT_EQ(h5::read_sparse_matrix<std::uint8_t>(el, "verdict", e.M(), e.N()), c.verdict);
  EXPECT_EQ(h5::read_sparse_matrix<std::int32_t>(el, "ulp", e.M(), e.N()), c.ulp);
  EXPECT_EQ(h5::read_sparse_matrix<std::int32_t>(el, "allowance", e.M(), e.N()), c.allowance);
  EXPECT_EQ(h5::read_sparse_half_matrix(el, "got", e.M(), e.N()), c.got);
  EXPECT_EQ(h5::read_sparse_half_matrix(el, "expected", e.M(), e.N()), e.ref.expected);
  EXPECT_EQ(h5::read_sparse_matrix<double>(el, "S", e.M(), e.N()), e.ref.S);
  const auto tile = h5::read_sparse_matrix<std::int32_t>(el, "tile", e.M(), e.N());
  const auto warp = h5::read_sparse_matrix<std::uint8_t>(el, "warp", e.M(), e.N());
  const auto lane = h5::read_sparse_matrix<std::uint8_t>(el, "lane", e.M(), e.N());
  const auto reg = h5::read_sparse_matrix<std::uint8_t>(el, "reg", e.M(), e.N());
  for (int i = 0; i < e.M(); ++i) {
    for (int j = 0; j < e.N(); ++j) {
      const ElementPlace p = locate(e.schedule, i, j);
      ASSERT_EQ(tile(i, j), p.tile_row * e.grid.cols + p.tile_col) << i << ", " << j;
      ASSERT_EQ(warp(i, j), p.warp) << i << ", " << j;
      ASSERT_EQ(lane(i, j), p.lane) << i << ", " << j;
      ASSERT_EQ(reg(i, j), p.reg) << i << ", " << j;
    }
  }

  const h5::Node tiles = h5::open_group(f, "tiles");
  const auto worst = h5::read_matrix<std::uint8_t>(tiles, "worst", 3, 4);
  EXPECT_EQ(worst(1, 1), static_cast<std::uint8_t>(Mark::unwritten));
  EXPECT_EQ(worst(0, 0), static_cast<std::uint8_t>(Mark::nonfinite));
  EXPECT_EQ(worst(2, 0), static_cast<std::uint8_t>(Mark::guard));
  EXPECT_EQ(h5::read_matrix<std::int32_t>(tiles, "unwritten", 3, 4)(1, 1), 16 * 128);
  const auto writer = h5::read_matrix<std::int32_t>(tiles, "writer", 3, 4);
  const auto count = h5::read_matrix<std::int32_t>(tiles, "slice_count", 3, 4);
  const auto slices = h5::read_matrix<std::int32_t>(tiles, "slices", -1, 7);
  long long total = 0;
  for (const TileInfo& t : e.grid.tiles) {
    EXPECT_EQ(writer(t.tile_row, t.tile_col), t.writer());
    EXPECT_EQ(count(t.tile_row, t.tile_col), t.slice_count());
    total += t.slice_count();
  }
  EXPECT_EQ(slices.rows(), total);
  EXPECT_EQ(h5::read_matrix<std::uint8_t>(tiles, "partial", 3, 4)(2, 0), 1);
  EXPECT_EQ(h5::read_matrix<std::uint8_t>(tiles, "stored", 3, 4), RowMatrix<std::uint8_t>::Ones(3, 4));

  const auto written = h5::read_matrix<std::int32_t>(h5::open_group(f, "guard"), "written", 1, 3);
  EXPECT_EQ(written(0, 0), e.M());
  EXPECT_EQ(written(0, 1), 9);
  const auto histogram = h5::read_matrix<std::int32_t>(h5::open_group(f, "summary"), "histogram", 1, kHistogramBins + 1);
  EXPECT_EQ(histogram(0, kHistogramBins), c.not_comparable);
}

TEST(ErrorMap, StoresOnlyTheFailingTilesCompressedAndTheRestReadsAsFill) {
  const Damaged d;
  const Expectation& e = d.e;
  const Comparison& c = d.c;
  TempDir dir;
  write_error_map(dir.file("failing.h5"), e, c);  // the default: failing tiles
  write_error_map(dir.file("all.h5"), e, c, {ErrorMapElements::all});
  const h5::File f = h5::File::open(dir.file("failing.h5"));
  EXPECT_EQ(h5::read_string_attribute(f, "elements_stored"), "failing_tiles");
  RowMatrix<std::uint8_t> want = RowMatrix<std::uint8_t>::Zero(3, 4);
  want(0, 0) = want(1, 1) = want(2, 0) = 1;  // nonfinite, unwritten, guard
  EXPECT_EQ(h5::read_matrix<std::uint8_t>(h5::open_group(f, "tiles"), "stored", 3, 4), want);

  const h5::Node el = h5::open_group(f, "elements");
  EXPECT_TRUE(h5::is_deflated(el, "y_exact"));
  EXPECT_TRUE(h5::is_deflated(el, "verdict"));
  const auto verdict = h5::read_sparse_matrix<std::uint8_t>(el, "verdict", e.M(), e.N());
  const auto ulp = h5::read_sparse_matrix<std::int32_t>(el, "ulp", e.M(), e.N());
  const auto lane = h5::read_sparse_matrix<std::uint8_t>(el, "lane", e.M(), e.N());
  const HalfMatrix got = h5::read_sparse_half_matrix(el, "got", e.M(), e.N());
  const auto y = h5::read_sparse_matrix<double>(el, "y_exact", e.M(), e.N());
  for (int i = 0; i < e.M(); ++i) {
    for (int j = 0; j < e.N(); ++j) {
      const TileInfo& t = e.grid.at(i, j);
      if (want(t.tile_row, t.tile_col)) {
        ASSERT_EQ(verdict(i, j), c.verdict(i, j)) << i << ", " << j;
        ASSERT_EQ(ulp(i, j), c.ulp(i, j)) << i << ", " << j;
        ASSERT_EQ(got(i, j), c.got(i, j)) << i << ", " << j;
        ASSERT_EQ(y(i, j), e.ref.y_exact(i, j)) << i << ", " << j;
      } else {
        ASSERT_EQ(c.verdict(i, j), static_cast<std::uint8_t>(Verdict::pass)) << "only passing tiles are left out";
        ASSERT_EQ(verdict(i, j), 0) << i << ", " << j;
        ASSERT_EQ(ulp(i, j), kNotStoredInt32) << i << ", " << j;
        ASSERT_EQ(lane(i, j), kNotStoredUint8) << i << ", " << j;
        ASSERT_EQ(got(i, j), 0x7E00) << i << ", " << j;
        ASSERT_TRUE(std::isnan(y(i, j))) << i << ", " << j;
      }
    }
  }
  // Everything per tile and per comparison still covers every element.
  EXPECT_EQ(h5::read_int_attribute(f, "mismatched"), c.counts.mismatched());
  EXPECT_EQ(h5::read_matrix<std::int32_t>(h5::open_group(f, "tiles"), "pass", 3, 4)(0, 1), 16 * 128);
  EXPECT_LT(std::filesystem::file_size(dir.file("failing.h5")), std::filesystem::file_size(dir.file("all.h5")));
}

TEST(ErrorMap, APassingComparisonStoresNoElementUnlessAskedForAll) {
  const Expectation e = synthetic_expectation(Problem{{40, 512, 512, 64}, {1, 8, 8, 4}, 7, Contract::marlin});
  const Comparison c = compare(e, e.ref.expected);
  ASSERT_TRUE(c.passed());
  EXPECT_EQ(stored_tiles(c, ErrorMapElements::failing_tiles), std::vector<bool>(c.tiles.size(), false));
  EXPECT_EQ(stored_tiles(c, ErrorMapElements::all), std::vector<bool>(c.tiles.size(), true));
  TempDir dir;
  write_error_map(dir.file("pass.h5"), e, c);
  const h5::File f = h5::File::open(dir.file("pass.h5"));
  const auto verdict = h5::read_sparse_matrix<std::uint8_t>(h5::open_group(f, "elements"), "verdict", e.M(), e.N());
  EXPECT_EQ(verdict, RowMatrix<std::uint8_t>::Zero(e.M(), e.N())) << "every element reads as PASS";
  EXPECT_EQ(h5::read_string_attribute(f, "header"), header_line(c.counts));
}

TEST(ErrorMap, SizeBoundHoldsForEitherScope) {
  const Damaged d;
  TempDir dir;
  for (const ErrorMapElements scope : {ErrorMapElements::failing_tiles, ErrorMapElements::all}) {
    const std::string path = dir.file(std::string(name(scope)) + ".h5");
    write_error_map(path, d.e, d.c, {scope});
    const std::uint64_t bound = error_map_size_bound(d.e, d.c, {scope});
    EXPECT_GE(bound, std::filesystem::file_size(path)) << name(scope);
    EXPECT_LT(bound, 4 * std::filesystem::file_size(path) + 128 * 1024) << name(scope) << ": a useful bound";
  }
}

TEST(ErrorMap, ElementScopeParsesTheCliWords) {
  EXPECT_EQ(parse_error_map_elements("failing"), ErrorMapElements::failing_tiles);
  EXPECT_EQ(parse_error_map_elements("all"), ErrorMapElements::all);
  EXPECT_THROW(parse_error_map_elements("some"), Error);
}

TEST(ErrorMap, IsByteReproducibleAndReplacesAtomically) {
  const Expectation e = synthetic_expectation(Problem{{16, 256, 256, -1}, {1, 8, 8, -1}, 3, Contract::fp32});
  HalfMatrix got = e.ref.expected;
  got(1, 2) ^= 0x10;
  const Comparison c = compare(e, got);
  TempDir dir;
  write_error_map(dir.file("a.h5"), e, c);
  write_error_map(dir.file("b.h5"), e, c);
  EXPECT_EQ(bytes(dir.file("a.h5")), bytes(dir.file("b.h5")));
  write_error_map(dir.file("a.h5"), e, c);  // over an existing file
  EXPECT_EQ(bytes(dir.file("a.h5")), bytes(dir.file("b.h5")));
  EXPECT_THROW(write_error_map(dir.file("missing/dir/c.h5"), e, c), Error);
}

}  // namespace
}  // namespace tc
