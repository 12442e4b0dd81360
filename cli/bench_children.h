// `tilecheck bench` times each configuration in a child process of its own (tilecheck bench
// --isolated): a configuration that faults, crashes or hangs costs its own row only.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "bench_options.h"
#include "tilecheck/suite/child_run.h"

namespace tc::cli {

// The command line of the child that times `config` (the same options, one configuration).
std::vector<std::string> child_command(const BenchOptions& o, const std::string& config, bool header);
// What ended a child that printed no rows: its status word (FAULT, HANG, n/a) and the reason.
std::pair<std::string, std::string> failure(const ChildResult& r, double timeout);

}  // namespace tc::cli
