// The error map: one comparison as an HDF5 file for notebooks and `tilecheck tiles` (schema v1,
// docs/errormap-schema.md). Per element: verdict, heatmap mark, signed ULP distance, allowance,
// got, expected, y*, S and the mma attribution (tile, warp, lane, register); per tile: counts,
// worst mark, ULP and utilisation maxima, and the schedule's attribution (launch, writer block,
// slice count); every slice; the written guard cells; the ULP histogram; the tiers, statistics,
// hints and report text; the case, configuration, grid size and provenance as root attributes.
// Written atomically and byte-reproducibly (no timestamps), through tilecheck/fixtures/h5.h.
#pragma once
#include <string>

#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/expectation.h"

namespace tc {

constexpr int kErrorMapSchemaVersion = 1;

// "<case_id>_<config>_<contract>_sms<S>.errmap.h5" ("case" when the case has no id); safe as a file name.
std::string error_map_name(const Expectation& e);

void write_error_map(const std::string& path, const Expectation& e, const Comparison& c);

}  // namespace tc
