#include "tilecheck/compare/errormap.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

#include "tilecheck/compare/report.h"
#include "tilecheck/core/error.h"
#include "tilecheck/core/h5.h"
#include "tilecheck/core/h5_chunked.h"
#include "tilecheck/fixtures/fixture.h"

namespace tc {
namespace {

using I32Matrix = RowMatrix<std::int32_t>;
using U8Matrix = RowMatrix<std::uint8_t>;

// Bytes per output element over the /elements datasets: verdict, mark, ulp, allowance, got,
// expected, y_exact, S, E, tile, warp, lane, reg.
constexpr std::uint64_t kElementBytes = 1 + 1 + 4 + 4 + 2 + 2 + 8 + 8 + 8 + 4 + 1 + 1 + 1;
constexpr int kElementDatasets = 13;

// One chunk per output tile (no larger than the output): a stored tile is whole chunks, the M
// tail's partial tile included.
h5::Chunking tile_chunks(const Expectation& e) {
  h5::Chunking chunking;
  chunking.chunk_rows = std::min(e.schedule.config.tile_m(), e.M());
  chunking.chunk_cols = std::min(e.grid.tile_n, e.N());
  return chunking;
}

// The blocks of the stored tiles.
std::vector<h5::Block> stored_blocks(const Expectation& e, const std::vector<bool>& stored) {
  std::vector<h5::Block> blocks;
  for (std::size_t t = 0; t < stored.size(); ++t) {
    if (!stored[t]) continue;
    const TileInfo& info = e.grid.tiles[t];
    blocks.push_back({info.row0, info.rows, info.col0, info.cols});
  }
  return blocks;
}

void write_root(const h5::File& f, const Expectation& e, const Comparison& c, const ErrorMapOptions& options) {
  const Shape& s = e.shape();
  h5::write_int_attribute(f, "errmap_schema_version", kErrorMapSchemaVersion);
  h5::write_string_attribute(f, "elements_stored", std::string(name(options.elements)));
  h5::write_string_attribute(f, "case_id", e.info.case_id);
  h5::write_string_attribute(f, "distribution", e.info.distribution);
  h5::write_uint_attribute(f, "seed", e.info.seed);
  h5::write_string_attribute(f, "provenance", e.info.provenance);
  h5::write_string_attribute(f, "tilecheck_version", current_provenance().generator_version);
  h5::write_int_attribute(f, "M", s.M);
  h5::write_int_attribute(f, "N", s.N);
  h5::write_int_attribute(f, "K", s.K);
  h5::write_int_attribute(f, "group_size", s.group);
  h5::write_string_attribute(f, "contract", std::string(name(e.contract)));
  h5::write_string_attribute(f, "numerics", name(e.numerics.numerics));
  h5::write_string_attribute(f, "schedule_bounds", std::string(name(e.numerics.schedule)));
  h5::write_int_attribute(f, "max_slices", e.max_slices);
  h5::write_string_attribute(f, "config", name(e.schedule.config));
  h5::write_int_attribute(f, "sms", e.schedule.sms);
  h5::write_int_attribute(f, "max_par", e.schedule.max_par);
  h5::write_int_attribute(f, "tile_m", e.schedule.config.tile_m());
  h5::write_int_attribute(f, "tile_n", e.schedule.config.tile_n());
  h5::write_int_attribute(f, "tile_k", e.schedule.config.tile_k());
  h5::write_int_attribute(f, "grid_rows", e.grid.rows);
  h5::write_int_attribute(f, "grid_cols", e.grid.cols);
  h5::write_int_attribute(f, "passed", c.passed() ? 1 : 0);
  h5::write_string_attribute(f, "header", header_line(c.counts));
  h5::write_int_attribute(f, "mismatched", c.counts.mismatched());
  h5::write_int_attribute(f, "fail_bound", c.counts.bound);
  h5::write_int_attribute(f, "nonfinite", c.counts.nonfinite);
  h5::write_int_attribute(f, "unwritten", c.counts.unwritten);
  h5::write_int_attribute(f, "guard", c.counts.guard);
  h5::write_int_attribute(f, "not_exact", c.counts.not_exact);
  std::string keys;  // "t0,t1,t2": which tiers the file holds, each as <key> and <key>_detail
  for (const TierResult& t : c.tiers) {
    h5::write_string_attribute(f, t.key, name(t.status));
    h5::write_string_attribute(f, t.key + "_detail", t.detail);
    h5::write_string_attribute(f, t.key + "_title", t.title);
    keys += (keys.empty() ? "" : ",") + t.key;
  }
  h5::write_string_attribute(f, "tiers", keys);
  h5::write_int_attribute(f, "stats_n", c.stats.n);
  h5::write_double_attribute(f, "stats_bias", c.stats.bias);
  h5::write_double_attribute(f, "stats_bias_toward_zero", c.stats.bias_toward_zero);
  h5::write_double_attribute(f, "stats_bias_error", c.stats.bias_error);
  h5::write_double_attribute(f, "stats_rms", c.stats.rms);
  std::string kinds, texts;
  for (const Hint& h : c.hints) {
    kinds += (kinds.empty() ? "" : ",") + std::string(name(h.kind));
    texts += h.text + "\n";
  }
  h5::write_string_attribute(f, "hint_kinds", kinds);
  h5::write_string_attribute(f, "hints", texts);
  h5::write_string_attribute(f, "report", report(e, c));
}

void write_elements(const h5::File& f, const Expectation& e, const Comparison& c, const std::vector<bool>& stored) {
  const h5::Node g = h5::create_group(f, "elements");
  h5::write_string_attribute(g, "verdict_codes", "0 PASS, 1 FAIL_BOUND, 2 NONFINITE, 3 UNWRITTEN");
  h5::write_string_attribute(g, "mark_codes", "0 '.' exact, 1 '1' one ULP, 2 'b' within bound, 3 'X' fail, "
                                              "4 'N' non-finite, 5 'U' unwritten, 6 'G' guard");
  h5::write_int_attribute(g, "ulp_not_comparable", kNotComparable);
  h5::write_int_attribute(g, "allowance_unbounded", kUnbounded);
  h5::write_int_attribute(g, "not_stored_uint8", kNotStoredUint8);
  h5::write_int_attribute(g, "not_stored_int32", kNotStoredInt32);
  const h5::Chunking chunks = tile_chunks(e);
  const std::vector<h5::Block> blocks = stored_blocks(e, stored);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  h5::write_chunked_blocks<std::uint8_t>(g, "verdict", c.verdict, chunks, blocks, 0);  // 0: PASS
  h5::write_chunked_blocks(g, "mark", c.mark, chunks, blocks, kNotStoredUint8);
  h5::write_chunked_blocks(g, "ulp", c.ulp, chunks, blocks, kNotStoredInt32);
  h5::write_chunked_blocks(g, "allowance", c.allowance, chunks, blocks, kNotStoredInt32);
  // got and expected in the case's dtype, tiles not stored reading as its canonical NaN
  const h5::Element dtype = e.dtype == Dtype::bf16 ? h5::Element::bf16 : h5::Element::f16;
  h5::write_chunked_half_blocks(g, "got", c.got, chunks, blocks, canonical_nan(e.dtype), dtype);
  h5::write_chunked_half_blocks(g, "expected", e.ref.expected, chunks, blocks, canonical_nan(e.dtype), dtype);
  h5::write_chunked_blocks(g, "y_exact", e.ref.y_exact, chunks, blocks, nan);
  h5::write_chunked_blocks(g, "S", e.ref.S, chunks, blocks, nan);
  h5::write_chunked_blocks(g, "E", e.bounds.E, chunks, blocks, nan);
  // Attribution: a pure function of (row, col) and the schedule, stored so notebooks need no model.
  I32Matrix tile(c.M, c.N);
  U8Matrix warp(c.M, c.N), lane(c.M, c.N), reg(c.M, c.N);
  for (int i = 0; i < c.M; ++i) {
    const int tile_row = e.grid.tile_row_of_row[i];
    const int row = i - e.grid.tiles[static_cast<size_t>(tile_row) * e.grid.cols].row0;
    for (int j = 0; j < c.N; ++j) {
      tile(i, j) = e.grid.index(i, j);
      // What tc::locate gives, without its walk over the launches for every element.
      const AccumulatorPlace place = accumulator_place(row, j % e.grid.tile_n);
      warp(i, j) = static_cast<std::uint8_t>(place.warp);
      lane(i, j) = static_cast<std::uint8_t>(place.lane);
      reg(i, j) = static_cast<std::uint8_t>(place.reg);
    }
  }
  h5::write_chunked_blocks(g, "tile", tile, chunks, blocks, kNotStoredInt32);
  h5::write_chunked_blocks(g, "warp", warp, chunks, blocks, kNotStoredUint8);
  h5::write_chunked_blocks(g, "lane", lane, chunks, blocks, kNotStoredUint8);
  h5::write_chunked_blocks(g, "reg", reg, chunks, blocks, kNotStoredUint8);
}

// Every slice of every tile, one row each: tile_row, tile_col, block, slice_index, slice_count,
// k_tile_begin, k_tile_end (tiles row-major, slices in reduction order).
I32Matrix slices_table(const TileGrid& grid) {
  std::vector<std::array<int, 7>> rows;
  for (const TileInfo& t : grid.tiles)
    for (const Slice& sl : t.slices)
      rows.push_back({t.tile_row, t.tile_col, sl.block, sl.slice_index, sl.slice_count, sl.k_tile_begin, sl.k_tile_end});
  I32Matrix table(static_cast<Eigen::Index>(rows.size()), 7);
  for (size_t i = 0; i < rows.size(); ++i)
    for (int k = 0; k < 7; ++k) table(static_cast<Eigen::Index>(i), k) = rows[i][k];
  return table;
}

void write_tiles(const h5::File& f, const Expectation& e, const Comparison& c, const std::vector<bool>& stored) {
  const h5::Node g = h5::create_group(f, "tiles");
  const int R = e.grid.rows, C = e.grid.cols;
  std::array<I32Matrix, kVerdicts> verdicts;
  for (auto& m : verdicts) m.resize(R, C);
  I32Matrix max_ulp(R, C), row0(R, C), rows(R, C), col0(R, C), cols(R, C), launch(R, C), column(R, C),
      writer(R, C), slice_count(R, C);
  U8Matrix worst(R, C), partial(R, C), is_stored(R, C);
  F64Matrix util(R, C);
  for (int r = 0; r < R; ++r) {
    for (int col = 0; col < C; ++col) {
      const size_t t = static_cast<size_t>(r) * C + col;
      const TileInfo& info = e.grid.tiles[t];
      const TileSummary& s = c.tiles[t];
      for (int v = 0; v < kVerdicts; ++v) verdicts[v](r, col) = static_cast<std::int32_t>(s.verdicts[v]);
      worst(r, col) = static_cast<std::uint8_t>(s.worst);
      max_ulp(r, col) = s.max_abs_ulp;
      util(r, col) = s.max_utilization;
      row0(r, col) = info.row0;
      rows(r, col) = info.rows;
      col0(r, col) = info.col0;
      cols(r, col) = info.cols;
      launch(r, col) = info.launch;
      column(r, col) = info.column;
      writer(r, col) = info.writer();
      slice_count(r, col) = info.slice_count();
      partial(r, col) = info.partial ? 1 : 0;
      is_stored(r, col) = stored[t] ? 1 : 0;
    }
  }
  static const char* kNames[kVerdicts] = {"pass", "fail_bound", "nonfinite", "unwritten", "guard"};
  for (int v = 0; v < kVerdicts; ++v) h5::write_matrix(g, kNames[v], verdicts[v]);
  h5::write_matrix(g, "worst", worst);
  h5::write_matrix(g, "max_abs_ulp", max_ulp);
  h5::write_matrix(g, "max_utilization", util);
  h5::write_matrix(g, "row0", row0);
  h5::write_matrix(g, "rows", rows);
  h5::write_matrix(g, "col0", col0);
  h5::write_matrix(g, "cols", cols);
  h5::write_matrix(g, "launch", launch);
  h5::write_matrix(g, "column", column);
  h5::write_matrix(g, "writer", writer);
  h5::write_matrix(g, "slice_count", slice_count);
  h5::write_matrix(g, "partial", partial);
  h5::write_matrix(g, "stored", is_stored);
  h5::write_matrix(g, "slices", slices_table(e.grid));
  h5::write_string_attribute(g, "slices_columns", "tile_row,tile_col,block,slice_index,slice_count,k_tile_begin,k_tile_end");
}

void write_rest(const h5::File& f, const Comparison& c) {
  const h5::Node g = h5::create_group(f, "guard");
  h5::write_int_attribute(g, "cells", c.guard.cells);
  I32Matrix written(static_cast<Eigen::Index>(c.guard.written.size()), 3);
  for (size_t i = 0; i < c.guard.written.size(); ++i) {
    const GuardCell& cell = c.guard.written[i];
    written.row(static_cast<Eigen::Index>(i)) << cell.row, cell.col, cell.bits;
  }
  h5::write_matrix(g, "written", written);
  h5::write_string_attribute(g, "written_columns", "row,col,bits");
  const h5::Node s = h5::create_group(f, "summary");
  I32Matrix histogram(1, kHistogramBins + 1);
  std::string bins;
  for (int b = 0; b < kHistogramBins; ++b) {
    histogram(0, b) = static_cast<std::int32_t>(c.histogram[b]);
    bins += std::string(histogram_label(b)) + ",";
  }
  histogram(0, kHistogramBins) = static_cast<std::int32_t>(c.not_comparable);
  h5::write_matrix(s, "histogram", histogram);
  h5::write_string_attribute(s, "histogram_bins", bins + "not_comparable");
  I32Matrix worst(static_cast<Eigen::Index>(c.worst.size()), 2);
  for (size_t i = 0; i < c.worst.size(); ++i) worst.row(static_cast<Eigen::Index>(i)) << c.worst[i].first, c.worst[i].second;
  h5::write_matrix(s, "worst", worst);
  h5::write_string_attribute(s, "worst_columns", "row,col");
}

}  // namespace

std::string error_map_name(const Expectation& e) {
  std::string id = e.info.case_id.empty() ? "case" : e.info.case_id;
  for (char& ch : id)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.') ch = '_';
  return cat(id, "_", name(e.schedule.config), "_", name(e.contract), "_sms", e.schedule.sms, ".errmap.h5");
}

std::string_view name(ErrorMapElements e) { return e == ErrorMapElements::all ? "all" : "failing_tiles"; }

ErrorMapElements parse_error_map_elements(std::string_view text) {
  if (text == "all") return ErrorMapElements::all;
  require(text == "failing", "error-map elements '", text, "': expected 'failing' (the failing tiles) or 'all'");
  return ErrorMapElements::failing_tiles;
}

std::vector<bool> stored_tiles(const Comparison& c, ErrorMapElements elements) {
  std::vector<bool> stored(c.tiles.size(), elements == ErrorMapElements::all);
  for (std::size_t t = 0; t < c.tiles.size(); ++t) {
    const TileSummary& s = c.tiles[t];
    if (s.verdicts[1] + s.verdicts[2] + s.verdicts[3] + s.verdicts[4] > 0) stored[t] = true;
  }
  return stored;
}

std::uint64_t error_map_size_bound(const Expectation& e, const Comparison& c, const ErrorMapOptions& options) {
  const std::vector<bool> stored = stored_tiles(c, options.elements);
  const h5::Chunking chunks = tile_chunks(e);
  std::set<std::pair<Eigen::Index, Eigen::Index>> touched;  // the chunks the stored tiles touch
  for (const h5::Block& b : stored_blocks(e, stored))
    for (Eigen::Index r = b.row0 / chunks.chunk_rows; r <= (b.row0 + b.rows - 1) / chunks.chunk_rows; ++r)
      for (Eigen::Index k = b.col0 / chunks.chunk_cols; k <= (b.col0 + b.cols - 1) / chunks.chunk_cols; ++k)
        touched.insert({r, k});
  const std::uint64_t chunk_elements = static_cast<std::uint64_t>(chunks.chunk_rows * chunks.chunk_cols);
  // Deflate can grow incompressible data by a fraction of a percent; each chunk costs an index entry.
  const std::uint64_t payload = touched.size() * chunk_elements * kElementBytes;
  std::uint64_t bytes = payload + payload / 100 + touched.size() * kElementDatasets * 96;
  const std::uint64_t tiles = c.tiles.size();
  bytes += tiles * 80;  // the /tiles datasets: 67 bytes per tile
  std::uint64_t slices = 0;
  for (const TileInfo& t : e.grid.tiles) slices += t.slices.size();
  bytes += slices * 7 * 4 + c.guard.written.size() * 3 * 4 + (kHistogramBins + 1) * 4 + c.worst.size() * 2 * 4;
  std::uint64_t tier_text_bytes = 0;
  for (const TierResult& t : c.tiers) tier_text_bytes += t.key.size() * 3 + t.title.size() + t.detail.size() + 16;
  std::uint64_t text = ReportOptions{}.max_chars + 200 + e.info.provenance.size() + e.info.case_id.size() +
                       tier_text_bytes;
  for (const Hint& h : c.hints) text += h.text.size() + 40;
  return bytes + text + 64 * 1024;  // the superblock, object headers, ~60 attributes, empty indexes
}

void write_error_map(const std::string& path, const Expectation& e, const Comparison& c,
                     const ErrorMapOptions& options) {
  require(c.M == e.M() && c.N == e.N(), "comparison is (", c.M, ", ", c.N, ") but the case is (", e.M(), ", ",
          e.N(), ")");
  const std::vector<bool> stored = stored_tiles(c, options.elements);
  h5::write_file_atomically(path, [&](h5::File& f) {
    write_root(f, e, c, options);
    write_elements(f, e, c, stored);
    write_tiles(f, e, c, stored);
    write_rest(f, c);
  });
}

}  // namespace tc
