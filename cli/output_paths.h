// The files a command reads and writes, checked before any work starts: an output may never be an
// input (the same file, also through a symbolic or hard link), two outputs may not be one file,
// an output file's directory must exist and be writable, an output directory must be a
// directory (or creatable) in a writable place. A violation is tc::Error (exit 2) naming both
// options and the path. The writes themselves are atomic (tilecheck/core/atomic_write.h).
#pragma once
#include <string>
#include <vector>

#include "tilecheck/fixtures/golden.h"

namespace tc::cli {

class PathPlan {
 public:
  // A file the command reads; empty paths are ignored (an option not given).
  PathPlan& input(const std::string& option, const std::string& path);
  // --fixture: a file, or a catalogue case id, whose golden file is then the input.
  PathPlan& input_case(const std::string& option, const std::string& file_or_id, const GoldenPaths& paths);
  // Every file already in `dir` is an input (e.g. the golden fixtures a run reads by case id).
  PathPlan& inputs_in(const std::string& what, const std::string& dir);
  // The catalogue, the manifest and every committed fixture of `paths`.
  PathPlan& fixtures(const GoldenPaths& paths);
  // A file the command writes (replacing it); empty: not given.
  PathPlan& output_file(const std::string& option, const std::string& path);
  // A directory the command writes files into, created when needed; empty: not given.
  PathPlan& output_dir(const std::string& option, const std::string& path);
  // Throws tc::Error on the first violation. Creates nothing (a write probe comes and goes).
  void check() const;

 private:
  struct Entry {
    std::string option, path;
  };
  std::vector<Entry> inputs_, input_dirs_, output_files_, output_dirs_;
};

// Throws unless a file can be created in `dir` (an existing directory): creates and removes a
// probe file there, so permissions, read-only file systems and ACLs are all tested the same way.
void require_writable_directory(const std::string& option, const std::string& given, const std::string& dir);

}  // namespace tc::cli
