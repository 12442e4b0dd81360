// A recording: the outputs a kernel produced for a set of suite cells, kept in one HDF5 file so
// that the comparator and `tilecheck run` can show the whole flow on a machine without a GPU.
// The file format (groups, datasets, attributes, versions): docs/recording-schema.md.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tilecheck/compare/compare.h"
#include "tilecheck/core/h5.h"
#include "tilecheck/reference/weight_format.h"
#include "tilecheck/suite/cells.h"

namespace tc {

struct RecordedCell {
  Cell cell;
  HalfMatrix C;
  GuardBand guard;
  std::optional<KernelNumerics> declared = std::nullopt;  // what the library declared (tc_plugin_numerics)
  std::string workspace{};  // what the workspace check found after the launch ("" clean)
  Dtype dtype = Dtype::fp16;  // C's element type: its case's (a bf16 case's output is bf16)
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

// One cell's output as a recording stores it, in `node` (a cell's group, or an output file's root:
// `tilecheck tiles --save-output` writes it, `tilecheck compare` reads it): dataset C, the guard band
// (attribute guard_cells, dataset guard_written), the declared numerics and the workspace finding
// (attributes, when there are any). C is written in c.dtype, and a bf16 C also as attribute dtype
// "bf16" (absent: fp16), so a recording can be read without its cases. The cell's identity (case,
// config, ...) is not part of it.
void write_cell_output(const h5::Node& node, const RecordedCell& c);
// C, and what else `node` holds: the guard band (none when guard_cells is absent), the declaration,
// the workspace finding. M and N, when positive, are the shape C must have; `dtype` the element type C
// must have (a bf16 case's output is bf16; the other 2-byte type is refused, never converted); it
// becomes c.dtype.
void read_cell_output(const h5::Node& node, RecordedCell& c, int M = -1, int N = -1, Dtype dtype = Dtype::fp16);

}  // namespace tc
