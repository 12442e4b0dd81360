// The error map: one comparison as an HDF5 file for notebooks and `tilecheck tiles` (schema v2,
// docs/errormap-schema.md). Per element: verdict, heatmap mark, signed ULP distance, allowance,
// got, expected, y*, S and the mma attribution (tile, warp, lane, register); per tile: counts,
// worst mark, ULP and utilisation maxima, and the schedule's attribution (launch, writer block,
// slice count); every slice; the written guard cells; the ULP histogram; the tiers, statistics,
// hints and report text; the case, configuration, grid size and provenance as root attributes.
// The per-element datasets are compressed (chunks of one tile, shuffled and deflated) and, by
// default, hold only the tiles that fail: a run with many failing cells stays small.
// Written atomically and byte-reproducibly (no timestamps), through tilecheck/core/h5.h.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/expectation.h"

namespace tc {

constexpr int kErrorMapSchemaVersion = 2;  // v1: every element, uncompressed (still read by tcviz)

// Which output elements /elements holds.
enum class ErrorMapElements {
  failing_tiles,  // tiles with a failing element or a written guard cell; the rest read as the
                  // fill values below
  all,
};
std::string_view name(ErrorMapElements e);               // "failing_tiles", "all"
ErrorMapElements parse_error_map_elements(std::string_view text);  // "failing" or "all"; throws otherwise

// What /elements reads for an element of a tile that is not stored: verdict 0 (PASS, which every
// element of such a tile is), fp16 and float64 NaN, the other uint8 datasets and the int32 ones these.
constexpr std::uint8_t kNotStoredUint8 = 255;
constexpr std::int32_t kNotStoredInt32 = 2147483647;

struct ErrorMapOptions {
  ErrorMapElements elements = ErrorMapElements::failing_tiles;
};

// "<case_id>_<config>_<contract>_sms<S>.errmap.h5" ("case" when the case has no id); safe as a file name.
std::string error_map_name(const Expectation& e);

// Per tile of the comparison (row-major): whether the map stores its elements.
std::vector<bool> stored_tiles(const Comparison& c, ErrorMapElements elements);

// At least the size in bytes of the file write_error_map makes (its payload before compression,
// plus attributes and HDF5's own structures): what a run's error-map budget reserves before writing.
std::uint64_t error_map_size_bound(const Expectation& e, const Comparison& c, const ErrorMapOptions& options = {});

void write_error_map(const std::string& path, const Expectation& e, const Comparison& c,
                     const ErrorMapOptions& options = {});

}  // namespace tc
