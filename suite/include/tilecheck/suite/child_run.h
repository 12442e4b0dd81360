// Child processes with pipes: `tilecheck bench` times each configuration in a process of its own
// (run_child: a deadline, everything it prints), and kernels run in worker processes
// (tilecheck/suite/worker.h, on spawn_child).
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

namespace tc {

// A started child: its stdout and stderr are pipes (stdin too when asked), the parent's ends here.
struct SpawnedChild {
  pid_t pid = -1;
  int in = -1;  // write end of its stdin, or -1
  int out = -1;
  int err = -1;
};
// argv[0] is the program's path. Throws tc::Error naming it if it cannot start. With
// `own_process_group` the child leads a process group of its own, so that a terminal's Ctrl-C
// (sent to the foreground group) reaches the parent only, which decides what to stop.
SpawnedChild spawn_child(const std::vector<std::string>& argv, bool with_stdin, bool own_process_group = false);

struct ChildResult {
  int exit_code = -1;     // when it exited
  int signal = 0;         // when a signal ended it
  bool timed_out = false; // killed at the deadline
  std::string out, err;
};

ChildResult run_child(const std::vector<std::string>& argv, double timeout_s);

}  // namespace tc
