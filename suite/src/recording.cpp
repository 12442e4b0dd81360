#include "tilecheck/suite/recording.h"

#include "tilecheck/core/error.h"
#include "tilecheck/core/h5.h"

namespace tc {

// Version 4 adds what the workspace check found after a cell's launch (attribute workspace, only
// where it found something, and the version only then); version 3 adds a cell's declared numerics (attributes numerics_*), and is written only when a
// cell has them, so that a recording without them stays readable by a tilecheck that knows version
// 2 (which would judge declared cells by their contract, wrongly); version 2 names a cell's kernel
// variant "variant"; version 1 called it "order" (the fetch order that was the only variant then).
// All are read: the committed recordings are version 1.
constexpr std::int64_t kRecordingSchema = 4;
constexpr std::int64_t kDeclaredRecordingSchema = 3;
constexpr std::int64_t kUndeclaredRecordingSchema = 2;
constexpr std::int64_t kOldestRecordingSchema = 1;

namespace {

std::string read_cell_variant(const h5::Node& cell) {
  return h5::read_string_attribute(cell, h5::has_attribute(cell, "variant") ? "variant" : "order");
}

void write_declared(const h5::Node& cell, const KernelNumerics& n) {
  h5::write_string_attribute(cell, "numerics_accumulator", std::string(name(n.numerics.accumulator)));
  h5::write_string_attribute(cell, "numerics_partials", std::string(name(n.numerics.partials)));
  h5::write_string_attribute(cell, "numerics_epilogue", std::string(name(n.numerics.epilogue)));
  h5::write_string_attribute(cell, "numerics_schedule", std::string(name(n.schedule)));
  h5::write_int_attribute(cell, "numerics_min_k_slice", n.min_k_slice);
}

std::optional<KernelNumerics> read_declared(const h5::Node& cell) {
  if (!h5::has_attribute(cell, "numerics_accumulator")) return std::nullopt;
  KernelNumerics n;
  n.numerics.accumulator = parse_accumulator(h5::read_string_attribute(cell, "numerics_accumulator"));
  n.numerics.partials = parse_partials(h5::read_string_attribute(cell, "numerics_partials"));
  n.numerics.epilogue = parse_epilogue(h5::read_string_attribute(cell, "numerics_epilogue"));
  n.schedule = parse_schedule_kind(h5::read_string_attribute(cell, "numerics_schedule"));
  const std::int64_t depth = h5::read_int_attribute(cell, "numerics_min_k_slice");
  require(depth >= 16 && depth % 16 == 0 && depth <= (1 << 20), "numerics_min_k_slice=", depth,
          " is not a positive multiple of 16");
  n.min_k_slice = static_cast<int>(depth);
  return n;
}

}  // namespace

void write_cell_output(const h5::Node& g, const RecordedCell& c) {
  h5::write_int_attribute(g, "guard_cells", c.guard.cells);
  h5::write_half_matrix(g, "C", c.C, c.dtype == Dtype::bf16 ? h5::Element::bf16 : h5::Element::f16);
  if (c.dtype == Dtype::bf16) h5::write_string_attribute(g, "dtype", std::string(name(c.dtype)));
  RowMatrix<std::int32_t> written(static_cast<Eigen::Index>(c.guard.written.size()), 3);
  for (std::size_t k = 0; k < c.guard.written.size(); ++k)
    written.row(k) << c.guard.written[k].row, c.guard.written[k].col, c.guard.written[k].bits;
  h5::write_matrix(g, "guard_written", written);
  if (c.declared) write_declared(g, *c.declared);
  if (!c.workspace.empty()) h5::write_string_attribute(g, "workspace", c.workspace);
}

void read_cell_output(const h5::Node& g, RecordedCell& c, int M, int N, Dtype dtype) {
  c.C = h5::read_half_matrix(g, "C", dtype == Dtype::bf16 ? h5::Element::bf16 : h5::Element::f16, M, N);
  c.dtype = dtype;
  if (h5::has_attribute(g, "guard_cells")) {
    c.guard.cells = h5::read_int_attribute(g, "guard_cells");
    const RowMatrix<std::int32_t> written = h5::read_matrix<std::int32_t>(g, "guard_written", -1, 3);
    for (Eigen::Index k = 0; k < written.rows(); ++k)
      c.guard.written.push_back({written(k, 0), written(k, 1), static_cast<half_bits>(written(k, 2))});
  }
  if (h5::has_attribute(g, "workspace")) c.workspace = h5::read_string_attribute(g, "workspace");
  c.declared = read_declared(g);
}

void write_recording(const Recording& r, const std::string& path) {
  h5::write_file_atomically(path, [&](h5::File& file) {
    bool declared = false, workspace = false;
    for (const RecordedCell& c : r.cells) {
      declared = declared || c.declared.has_value();
      workspace = workspace || !c.workspace.empty();
    }
    h5::write_int_attribute(file, "recording_schema_version",
                            workspace  ? kRecordingSchema
                            : declared ? kDeclaredRecordingSchema
                                       : kUndeclaredRecordingSchema);
    h5::write_string_attribute(file, "device", r.device);
    h5::write_string_attribute(file, "kernel", r.kernel);
    h5::write_string_attribute(file, "variant", r.variant);
    h5::write_string_attribute(file, "tilecheck_version", r.tilecheck_version);
    const h5::Node cells = h5::create_group(file, "cells");
    for (std::size_t i = 0; i < r.cells.size(); ++i) {
      const RecordedCell& c = r.cells[i];
      const h5::Node g = h5::create_group(cells, std::to_string(i));
      h5::write_string_attribute(g, "case_id", c.cell.case_id);
      h5::write_string_attribute(g, "config", name(c.cell.config));
      h5::write_string_attribute(g, "contract", std::string(name(c.cell.contract)));
      h5::write_string_attribute(g, "variant", c.cell.variant);
      h5::write_int_attribute(g, "sms", c.cell.sms);
      write_cell_output(g, c);
    }
  });
}

Recording read_recording(const std::string& path) {
  const h5::File file = h5::File::open(path);
  const std::int64_t version = h5::read_int_attribute(file, "recording_schema_version");
  require(version >= kOldestRecordingSchema && version <= kRecordingSchema, path, ": recording_schema_version is ",
          version, "; expected ", kOldestRecordingSchema, " to ", kRecordingSchema);
  Recording r;
  r.device = h5::read_string_attribute(file, "device");
  r.kernel = h5::read_string_attribute(file, "kernel");
  r.variant = h5::read_string_attribute(file, "variant");
  r.tilecheck_version = h5::read_string_attribute(file, "tilecheck_version");
  const h5::Node cells = h5::open_group(file, "cells");
  for (int i = 0; h5::exists(cells, std::to_string(i)); ++i) {
    const h5::Node g = h5::open_group(cells, std::to_string(i));
    RecordedCell c;
    c.cell.case_id = h5::read_string_attribute(g, "case_id");
    c.cell.config = parse_config(h5::read_string_attribute(g, "config"));
    c.cell.contract = parse_contract(h5::read_string_attribute(g, "contract"));
    c.cell.variant = read_cell_variant(g);
    c.cell.sms = static_cast<int>(h5::read_int_attribute(g, "sms"));
    require(h5::has_attribute(g, "guard_cells"), path, ": cell ", i, " has no attribute guard_cells");
    try {
      const Dtype dtype = h5::has_attribute(g, "dtype") ? parse_dtype(h5::read_string_attribute(g, "dtype")) : Dtype::fp16;
      read_cell_output(g, c, -1, -1, dtype);
    } catch (const Error& e) {
      throw Error(cat(path, ": cell ", i, ": ", e.what()));
    }
    r.cells.push_back(std::move(c));
  }
  return r;
}

}  // namespace tc
