// Fuzzes the golden-fixture loader, tc::load_fixture (fixtures/src/fixture.cpp), on arbitrary bytes
// read as an HDF5 file: every schema check, the HDF5 layer (core/src/h5_*.cpp) and the
// consistency checks. A fixture that loads must also pass the manifest check against its own
// hashes, which is what a catalogue load adds (hashing every dataset, looking up the case).
//   tests/fuzz/run_fuzzer.sh build/default/tests/fuzz/clang/fuzz_fixture /tmp/fuzz-fixture 60   (README.md)
#include "fuzz_input.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static tc::fuzz::InputFile file("fixture.h5");
  const std::string& path = file.write(data, size);
  tc::Fixture f;
  try {
    f = tc::load_fixture(path);
  } catch (const tc::Error& e) {
    tc::fuzz::note_refusal(e);
    return 0;  // refused with a message: the expected outcome for most inputs
  }
  tc::Manifest own;
  own.cases[f.spec.id] = tc::hash_datasets(f);
  tc::load_fixture(path, &own);  // must not throw: the file matches its own hashes
  return 0;
}
