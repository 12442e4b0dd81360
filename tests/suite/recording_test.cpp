// Recordings (tilecheck/suite/recording.h, docs/recording-schema.md): a written recording reads
// back equal, a file made the way version 1 wrote it (the cell's variant in the attribute "order")
// is still read, the committed H200 recordings are read, and other versions are refused. A cell's
// declared numerics round-trip as version 3, written only when some cell has them; a bf16 output as bf16.
#include "tilecheck/suite/recording.h"

#include <string>

#include <gtest/gtest.h>

#include "common/temp_dir.h"
#include "tilecheck/core/error.h"
#include "tilecheck/core/h5.h"
#include "tilecheck/fixtures/golden.h"

namespace tc {
namespace {

Recording two_cells() {
  Recording r{"test device", "tilecheck-marlin", "upstream", "test", {}};
  HalfMatrix C(3, 64);
  for (Eigen::Index i = 0; i < C.size(); ++i) C.data()[i] = static_cast<half_bits>(0x3C00 + i);
  RecordedCell a{{"case_a", TileConfig{1, 8, 8, 8}, Contract::marlin, "upstream", 3}, C, {}};
  a.guard.cells = 2 * 64 * 64;
  a.guard.written.push_back({-1, 5, 0x3C00});
  a.guard.written.push_back({3, 63, 0x7E00});
  RecordedCell b{{"case_b", TileConfig{2, 16, 4, -1}, Contract::fp32, "mut01", 132}, C.topRows(1), {}};
  r.cells = {a, b};
  return r;
}

TEST(Recording, ReadsBackWhatWasWritten) {
  TempDir dir;
  const Recording r = two_cells();
  write_recording(r, dir.file("rec.h5"));
  const Recording back = read_recording(dir.file("rec.h5"));
  EXPECT_EQ(back.device, r.device);
  EXPECT_EQ(back.kernel, r.kernel);
  EXPECT_EQ(back.variant, r.variant);
  EXPECT_EQ(back.tilecheck_version, r.tilecheck_version);
  ASSERT_EQ(back.cells.size(), r.cells.size());
  for (size_t i = 0; i < r.cells.size(); ++i) {
    const Cell& want = r.cells[i].cell;
    const Cell& got = back.cells[i].cell;
    EXPECT_EQ(got.name(), want.name());
    EXPECT_EQ(got.variant, want.variant);
    EXPECT_EQ(got.config, want.config);
    EXPECT_EQ(got.contract, want.contract);
    EXPECT_EQ(back.cells[i].C, r.cells[i].C);
    EXPECT_EQ(back.cells[i].guard.cells, r.cells[i].guard.cells);
    ASSERT_EQ(back.cells[i].guard.written.size(), r.cells[i].guard.written.size());
  }
  const GuardCell& g = back.cells[0].guard.written[1];
  EXPECT_EQ(g.row, 3);
  EXPECT_EQ(g.col, 63);
  EXPECT_EQ(g.bits, 0x7E00);
  EXPECT_EQ(back.cells[0].guard.written[0].row, -1);
}

// A bf16 case's output is stored as bf16 (HDF5 type and attribute), read back as bf16 bit for bit,
// and refused when read as fp16: a recording is never reinterpreted in the other 2-byte type.
TEST(Recording, ABf16CellIsStoredAndReadAsBf16) {
  TempDir dir;
  Recording r = two_cells();
  r.cells[1].dtype = Dtype::bf16;
  write_recording(r, dir.file("rec.h5"));
  const Recording back = read_recording(dir.file("rec.h5"));
  ASSERT_EQ(back.cells.size(), 2u);
  EXPECT_EQ(back.cells[0].dtype, Dtype::fp16);
  EXPECT_EQ(back.cells[1].dtype, Dtype::bf16);
  EXPECT_EQ(back.cells[1].C, r.cells[1].C);
  const h5::File file = h5::File::open(dir.file("rec.h5"));
  const h5::Node bf16_cell = h5::open_group(h5::open_group(file, "cells"), "1");
  EXPECT_EQ(h5::read_string_attribute(bf16_cell, "dtype"), "bf16");
  EXPECT_FALSE(h5::has_attribute(h5::open_group(h5::open_group(file, "cells"), "0"), "dtype"));
  RecordedCell as_fp16;
  try {
    read_cell_output(bf16_cell, as_fp16, -1, -1, Dtype::fp16);
    FAIL() << "a bf16 output was read as fp16";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
  }
}

TEST(Recording, IsWrittenAsVersionTwoWithTheAttributeVariant) {
  TempDir dir;
  write_recording(two_cells(), dir.file("rec.h5"));
  const h5::File file = h5::File::open(dir.file("rec.h5"));
  EXPECT_EQ(h5::read_int_attribute(file, "recording_schema_version"), 2);
  const h5::Node cell = h5::open_group(h5::open_group(file, "cells"), "1");
  EXPECT_EQ(h5::read_string_attribute(cell, "variant"), "mut01");
  EXPECT_FALSE(h5::has_attribute(cell, "order"));
}

TEST(Recording, DeclaredNumericsRoundTripAsVersionThree) {
  TempDir dir;
  Recording r = two_cells();
  const KernelNumerics vllm{{Accumulator::fp32, Partials::fp32, Epilogue::round_then_scale}, ScheduleKind::unknown, 64};
  r.cells[1].declared = vllm;
  write_recording(r, dir.file("rec.h5"));
  EXPECT_EQ(h5::read_int_attribute(h5::File::open(dir.file("rec.h5")), "recording_schema_version"), 3);
  const Recording back = read_recording(dir.file("rec.h5"));
  ASSERT_EQ(back.cells.size(), 2u);
  EXPECT_FALSE(back.cells[0].declared.has_value());
  ASSERT_TRUE(back.cells[1].declared.has_value());
  EXPECT_EQ(*back.cells[1].declared, vllm);
}

// A recording as version 1 wrote it: the cell's variant is the attribute "order".
// `epilogue`, when given, adds a declaration with that epilogue (version 3).
void write_version_one(const std::string& path, std::int64_t version = 1, const char* epilogue = nullptr) {
  h5::write_file_atomically(path, [&](h5::File& file) {
    h5::write_int_attribute(file, "recording_schema_version", version);
    h5::write_string_attribute(file, "device", "NVIDIA H200");
    h5::write_string_attribute(file, "kernel", "tilecheck-marlin");
    h5::write_string_attribute(file, "variant", "mut01-scales-in-scratch");
    h5::write_string_attribute(file, "tilecheck_version", "old");
    const h5::Node g = h5::create_group(h5::create_group(file, "cells"), "0");
    h5::write_string_attribute(g, "case_id", "case_a");
    h5::write_string_attribute(g, "config", "m1n8k8gcol");
    h5::write_string_attribute(g, "contract", "marlin");
    h5::write_string_attribute(g, "order", "mut01");
    h5::write_int_attribute(g, "sms", 3);
    h5::write_int_attribute(g, "guard_cells", 0);
    h5::write_half_matrix(g, "C", HalfMatrix::Zero(1, 64));
    h5::write_matrix(g, "guard_written", RowMatrix<std::int32_t>(0, 3));
    if (epilogue == nullptr) return;
    h5::write_string_attribute(g, "numerics_accumulator", "fp32");
    h5::write_string_attribute(g, "numerics_partials", "fp16");
    h5::write_string_attribute(g, "numerics_epilogue", epilogue);
    h5::write_string_attribute(g, "numerics_schedule", "model");
    h5::write_int_attribute(g, "numerics_min_k_slice", 128);
  });
}

TEST(Recording, ABadDeclaredNumericsIsRefusedNamingTheFileAndTheCell) {
  TempDir dir;
  write_version_one(dir.file("good.h5"), 3, "round-then-scale");
  const Recording good = read_recording(dir.file("good.h5"));
  ASSERT_TRUE(good.cells[0].declared.has_value());
  EXPECT_EQ(good.cells[0].declared->min_k_slice, 128);
  write_version_one(dir.file("bad.h5"), 3, "scale-first");
  try {
    read_recording(dir.file("bad.h5"));
    ADD_FAILURE() << "read an unknown epilogue";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("bad.h5: cell 0: unknown epilogue order 'scale-first'"), std::string::npos) << text;
  }
}

TEST(Recording, TheLegacyAttributeOrderIsReadAsTheVariant) {
  TempDir dir;
  write_version_one(dir.file("v1.h5"));
  const Recording r = read_recording(dir.file("v1.h5"));
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.cells[0].cell.variant, "mut01");
  EXPECT_EQ(r.cells[0].cell.name(), "case_a_m1n8k8gcol_marlin_mut01_sms3");
  EXPECT_EQ(r.variant, "mut01-scales-in-scratch");
}

TEST(Recording, TheCommittedH200RecordingsAreRead) {
  const std::string dir = default_golden_paths().fixtures_dir + "/recordings/";
  const Recording clean = read_recording(dir + "h200.h5");
  EXPECT_EQ(clean.cells.size(), 344u);
  EXPECT_EQ(clean.device, "NVIDIA H200, 132 SMs, driver 13.0");
  for (const RecordedCell& c : clean.cells) EXPECT_EQ(c.cell.variant, "upstream") << c.cell.name();
  const Recording mutant = read_recording(dir + "h200-mut01-scales-in-scratch.h5");
  EXPECT_EQ(mutant.cells.size(), 3u);
  for (const RecordedCell& c : mutant.cells) {
    EXPECT_EQ(c.cell.variant, "mut01");
    EXPECT_NE(c.cell.name().find("_mut01_sms"), std::string::npos) << c.cell.name();
  }
}

TEST(Recording, OtherVersionsAndMissingFilesAreRefusedWithTheReason) {
  TempDir dir;
  write_version_one(dir.file("v5.h5"), 5);
  try {
    read_recording(dir.file("v5.h5"));
    ADD_FAILURE() << "read a version 5 recording";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("recording_schema_version is 5; expected 1 to 4"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(read_recording(dir.file("missing.h5")), Error);
}

}  // namespace
}  // namespace tc
