// Runs a command as a child process with a deadline and captures what it prints: how `tilecheck
// bench` times each configuration in a process of its own, so that one that faults, crashes or
// hangs costs only its own row.
#pragma once
#include <string>
#include <vector>

namespace tc {

struct ChildResult {
  int exit_code = -1;     // when it exited
  int signal = 0;         // when a signal ended it
  bool timed_out = false; // killed at the deadline
  std::string out, err;
};

ChildResult run_child(const std::vector<std::string>& argv, double timeout_s);

}  // namespace tc
