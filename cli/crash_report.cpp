#include "crash_report.h"

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <initializer_list>
#include <cstring>

namespace tc::cli {
namespace {

void write_text(const char* text) {
  const ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

extern "C" void on_fatal_signal(int signal) {
  // Only async-signal-safe calls here, except backtrace(), whose library load is forced at install.
  write_text("\ntilecheck: fatal signal ");
  write_text(strsignal(signal));
  write_text("; backtrace (object(+offset); addr2line -f -C -e <object> <offset> names the line):\n");
  void* frames[64];
  const int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  std::signal(signal, SIG_DFL);  // die of the same signal, so callers see the true cause
  std::raise(signal);
}

}  // namespace

void install_crash_report() {
  void* warm[1];
  backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) std::signal(s, on_fatal_signal);
}

}  // namespace tc::cli
