#include "tilecheck/suite/interrupt.h"

#include <atomic>
#include <csignal>
#include <ctime>

namespace tc {
namespace {

std::atomic<int> requested{0};  // lock-free: set from a signal handler
std::atomic<long long> first_at_ms{0};  // CLOCK_MONOTONIC when the first signal came
struct sigaction previous[2];
constexpr int kSignals[2] = {SIGINT, SIGTERM};
bool installed[2] = {false, false};

long long now_ms() {  // clock_gettime is async-signal-safe
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

// A repeat within a second is the same request delivered twice (`timeout` signals the command and
// then its whole process group); a later one is a user insisting: stop now.
extern "C" void on_interrupt(int signal) {
  if (requested.load() != 0) {
    if (now_ms() - first_at_ms.load() < 1000) return;
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  first_at_ms.store(now_ms());
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
