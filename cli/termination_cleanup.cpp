#include "termination_cleanup.h"

#include <csignal>

#include "tilecheck/fixtures/scratch_dir.h"

namespace tc::cli {
namespace {

extern "C" void on_termination(int signal) {
  remove_scratch_directories_now();  // async-signal-safe
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void install_termination_cleanup() {
  struct sigaction action {};
  action.sa_handler = on_termination;
  sigemptyset(&action.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction before {};
    // A signal the caller ignores (nohup, a shell's background job) stays ignored.
    if (sigaction(s, nullptr, &before) == 0 && before.sa_handler != SIG_IGN) sigaction(s, &action, nullptr);
  }
}

}  // namespace tc::cli
