// Stopping a long run cleanly: while an InterruptScope lives, SIGINT and SIGTERM only set a flag
// that the run polls between cells (and while it waits on a worker), so that it can stop, print
// its summary and keep the results it has. A second signal a second or more later ends the process at
// once, as the handlers outside the scope would (one sooner is the same request delivered twice). Workers run in their own process group, so a terminal's
// Ctrl-C reaches only the parent (tilecheck/suite/worker.h).
#pragma once

namespace tc {

class InterruptScope {
 public:
  InterruptScope();   // installs the handlers (a signal the caller ignores stays ignored)
  ~InterruptScope();  // restores the previous ones
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

bool interrupt_requested();
int interrupt_signal();            // the signal that asked (0: none)
void request_interrupt(int signal);  // what the handler does; for tests
void clear_interrupt();            // for tests

}  // namespace tc
