// The results file of `tilecheck run --json`: every cell of the run's matrix with its outcome, the
// counts, and what ran (kernel, library, device). It is rewritten (atomically) while the run goes
// on, so that an interrupted or killed run leaves a valid file whose cells without a verdict say
// "not run"; `tilecheck run --resume FILE` reads it back and runs only those. Format: docs/compare.md
// ("tilecheck run --json").
#pragma once
#include <string>
#include <vector>

#include "tilecheck/suite/outcome.h"

namespace tc {

struct RunHeader {
  std::string kernel;   // tc_plugin_info()->name, or the recording's
  std::string variant;  // tc_plugin_info()->variant
  std::string library;  // the plugin's path, or the recording's
  std::string device;
  std::string tilecheck_version;
};

struct RunFile {
  RunHeader header;
  bool complete = false;  // every cell of the matrix has its verdict or was deliberately not run
  std::vector<CellOutcome> outcomes;
};

// Atomic: a reader sees the old file or the new one, never a part.
void write_run_json(const std::string& path, const RunFile& run);
// Throws tc::Error naming the file and what is wrong with it.
RunFile read_run_json(const std::string& path);

}  // namespace tc
