#include "tilecheck/suite/interrupt.h"

#include <atomic>
#include <csignal>

namespace tc {
namespace {

std::atomic<int> requested{0};  // lock-free: set from a signal handler
struct sigaction previous[2];
constexpr int kSignals[2] = {SIGINT, SIGTERM};
bool installed[2] = {false, false};

extern "C" void on_interrupt(int signal) {
  if (requested.load() != 0) {  // the second one: stop now
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  requested.store(signal);
}

}  // namespace

InterruptScope::InterruptScope() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < 2; ++i) {
    installed[i] = sigaction(kSignals[i], nullptr, &previous[i]) == 0 && previous[i].sa_handler != SIG_IGN &&
                   sigaction(kSignals[i], &action, nullptr) == 0;
  }
}

InterruptScope::~InterruptScope() {
  for (int i = 0; i < 2; ++i)
    if (installed[i]) sigaction(kSignals[i], &previous[i], nullptr);
}

bool interrupt_requested() { return requested.load() != 0; }
int interrupt_signal() { return requested.load(); }
void request_interrupt(int signal) { requested.store(signal); }
void clear_interrupt() { requested.store(0); }

}  // namespace tc
