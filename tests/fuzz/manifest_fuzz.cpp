// Fuzzes the manifest reader, tc::read_manifest (fixtures/src/manifest.cpp), on arbitrary bytes as
// MANIFEST.json. A manifest that is read must survive the writer's round trip: manifest_text, read
// again, gives the same cases and hashes, and it differs from itself nowhere (manifest_changes).
//   tests/fuzz/run_fuzzer.sh build/default/tests/fuzz/clang/fuzz_manifest /tmp/fuzz-manifest 60   (README.md)
#include "fuzz_input.h"
#include "tilecheck/fixtures/manifest.h"
#include "tilecheck/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static tc::fuzz::InputFile file("MANIFEST.json");
  static tc::fuzz::InputFile rewritten("MANIFEST-rewritten.json");
  tc::Manifest m;
  try {
    m = tc::read_manifest(file.write(data, size));
  } catch (const tc::Error& e) {
    tc::fuzz::note_refusal(e);
    return 0;  // refused with a message
  }
  const std::string text = tc::manifest_text(m);
  const tc::Manifest again =
      tc::read_manifest(rewritten.write(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  tc::fuzz::fuzz_require(again.cases == m.cases, "manifest_text does not read back as the same manifest");
  tc::fuzz::fuzz_require(tc::manifest_changes(m, m).empty(), "a manifest differs from itself");
  return 0;
}
