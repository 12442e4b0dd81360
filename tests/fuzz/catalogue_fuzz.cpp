// Fuzzes the catalogue parser, tc::parse_catalogue (fixtures/src/catalogue.cpp), on arbitrary bytes
// as fixtures/catalogue.txt (load_catalogue opens the file and calls it). A catalogue that parses has
// unique ids, valid shapes and the tiles runnable_tiles derives from them.
//   tests/fuzz/run_fuzzer.sh build/default/tests/fuzz/clang/fuzz_catalogue /tmp/fuzz-catalogue 60   (README.md)
#include <sstream>

#include "fuzz_input.h"
#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/core/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  tc::Catalogue catalogue;
  try {
    catalogue = tc::parse_catalogue(in, "fuzz/catalogue.txt");
  } catch (const tc::Error& e) {
    tc::fuzz::note_refusal(e);
    return 0;  // refused with a message
  }
  for (const tc::CatalogueEntry& e : catalogue.entries) {
    tc::fuzz::fuzz_require(catalogue.find(e.spec.id) == &e, "a case id appears twice");
    tc::validate_shape(e.spec.shape);  // must not throw: the parser checked it
    tc::runnable_tiles(e.spec.shape);
  }
  return 0;
}
