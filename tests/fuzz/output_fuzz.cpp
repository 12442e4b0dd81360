// Fuzzes the kernel-output reader: what `tilecheck compare --output` and `tilecheck tiles --output`
// read (cli/cmd_compare.cpp): tc::h5::File::open, then dataset C as an fp16 matrix
// (tc::h5::read_half_matrix, core/src/h5_matrix.cpp). The CLI passes the fixture's (M, N); the
// harness reads C at any shape, as the recording reader does, which leaves the extent read from the
// file unchecked until the reader's own guards: the more exposed of the two paths.
//   tests/fuzz/run_fuzzer.sh build/default/tests/fuzz/clang/fuzz_output /tmp/fuzz-output 60   (README.md)
#include "fuzz_input.h"
#include "tilecheck/core/error.h"
#include "tilecheck/core/h5.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static tc::fuzz::InputFile file("output.h5");
  const std::string& path = file.write(data, size);
  try {
    const tc::h5::File out = tc::h5::File::open(path);
    const tc::HalfMatrix C = tc::h5::read_half_matrix(out, "C");
    // Read again at the shape just found, as compare does with the fixture's (M, N): same matrix.
    const tc::HalfMatrix again = tc::h5::read_half_matrix(out, "C", C.rows(), C.cols());
    tc::fuzz::fuzz_require(again == C, "C read at its own shape differs from C read at any shape");
  } catch (const tc::Error& e) {
    tc::fuzz::note_refusal(e);
    // refused with a message
  }
  return 0;
}
