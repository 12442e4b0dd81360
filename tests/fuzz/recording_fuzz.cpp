// Fuzzes the recording reader, tc::read_recording (suite/src/recording.cpp; format:
// docs/recording-schema.md), on arbitrary bytes read as an HDF5 file: the schema version, the root
// and per-cell attributes, the configuration and contract names, C and the guard cells.
//   tests/fuzz/run_fuzzer.sh build/default/tests/fuzz/clang/fuzz_recording /tmp/fuzz-recording 60   (README.md)
#include "fuzz_input.h"
#include "tilecheck/core/error.h"
#include "tilecheck/suite/recording.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static tc::fuzz::InputFile file("recording.h5");
  const std::string& path = file.write(data, size);
  try {
    const tc::Recording r = tc::read_recording(path);
    for (const tc::RecordedCell& c : r.cells)
      tc::fuzz::fuzz_require(c.C.rows() >= 0 && c.C.cols() >= 0, "a recorded C has a negative extent");
  } catch (const tc::Error& e) {
    tc::fuzz::note_refusal(e);
    // refused with a message
  }
  return 0;
}
