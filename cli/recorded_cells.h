// A recording's cells checked before any is judged: a cell that names no catalogue case, a grid
// size outside what a kernel can launch, a configuration that cannot run its case, or an output
// of the wrong shape is bad input (exit 2, naming the cell), not an ERROR row among passes.
#pragma once
#include <string>

#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/suite/recording.h"

namespace tc::cli {

// Throws tc::Error naming `path`, the cell and what is wrong.
void check_recorded_cell(const RecordedCell& r, const Catalogue& catalogue, const std::string& path);

}  // namespace tc::cli
