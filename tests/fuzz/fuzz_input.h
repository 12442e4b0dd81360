// What the fuzz harnesses share: writing an input to the file the readers under test open, and
// stopping on a broken invariant. Every harness accepts exactly two outcomes for an input: it is read,
// or it is refused with tc::Error. Any other exception escapes LLVMFuzzerTestOneInput, which libFuzzer
// reports as a crash, like a sanitizer finding or fuzz_require below.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

namespace tc::fuzz {

// The readers take paths, and opening is part of what they check (a regular file, the HDF5
// signature), so each input goes to a file: one per process, in $TMPDIR (else /tmp), overwritten by
// the next input and removed when the process exits normally. Writing a temporary file keeps the
// real code path; an HDF5 file image (H5LTopen_file_image) would bypass tc::h5::File::open.
class InputFile {
 public:
  explicit InputFile(const std::string& name) {
    const char* dir = std::getenv("TMPDIR");
    path_ = (std::filesystem::path(dir != nullptr && *dir != '\0' ? dir : "/tmp") /
             ("tilecheck-fuzz-" + std::to_string(::getpid()) + "-" + name))
                .string();
  }
  ~InputFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& write(const std::uint8_t* data, std::size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out.good()) {
      std::fprintf(stderr, "fuzz harness: cannot write its input file %s\n", path_.c_str());
      std::abort();
    }
    return path_;
  }

 private:
  std::string path_;
};

// Refusals are the expected outcome and stay quiet; TC_FUZZ_VERBOSE=1 prints each one's message
// (to see what a seed or a crashing input does: `TC_FUZZ_VERBOSE=1 fuzz_fixture FILE`).
inline void note_refusal(const std::exception& e) {
  static const bool verbose = std::getenv("TC_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "refused: %s\n", e.what());
}

// An invariant of a reader that held for the input: its failure is a finding, reported as a crash.
inline void fuzz_require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz harness: invariant broken: %s\n", what);
  std::abort();
}

}  // namespace tc::fuzz
