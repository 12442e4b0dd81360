// A recording: the outputs a kernel produced for a set of suite cells, kept in one HDF5 file so
// that the comparator and `tilecheck run` can show the whole flow on a machine without a GPU.
// The file format (groups, datasets, attributes, versions): docs/recording-schema.md.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tilecheck/compare/compare.h"
#include "tilecheck/suite/cells.h"

namespace tc {

struct RecordedCell {
  Cell cell;
  HalfMatrix C;
  GuardBand guard;
  std::optional<KernelNumerics> declared = std::nullopt;  // what the library declared (tc_plugin_numerics)
};

struct Recording {
  std::string device;
  std::string kernel;
  std::string variant;
  std::string tilecheck_version;
  std::vector<RecordedCell> cells;
};

void write_recording(const Recording& r, const std::string& path);  // atomic
Recording read_recording(const std::string& path);  // throws naming the file and what is wrong

}  // namespace tc
