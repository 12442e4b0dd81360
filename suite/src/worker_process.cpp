// The parent's side of tilecheck/suite/worker.h: start a worker, feed it cases, watch its runs.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/child_run.h"
#include "tilecheck/suite/worker.h"
#include "tilecheck/suite/worker_pipe.h"
#include "tilecheck/suite/worker_messages.h"

namespace tc {
namespace {

using worker::Frame;
using worker::Message;
using worker::ReadStatus;

constexpr double kStartTimeout = 120;  // loading a plugin and making a context; a hang here is a HANG too
constexpr double kQuitGrace = 2;       // seconds a worker has to exit after `quit` before it is killed

// The crash report's frames (cli/crash_report.cpp) or, failing those, the last lines the worker wrote.
std::string last_words(const std::string& err) {
  std::string text = err;
  const std::size_t signal_line = text.find("tilecheck: fatal signal");
  if (signal_line != std::string::npos) text = text.substr(signal_line);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

double default_cell_timeout(int M, int N, int K) {
  return 30.0 + 2.0 * static_cast<double>(M) * N * K / 1e11;
}

std::string current_executable() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

WorkerProcess::WorkerProcess(const std::string& executable, const std::string& kernel, int device) {
  worker::ignore_broken_pipes();
  const SpawnedChild child =
      spawn_child({executable, "worker", "--kernel", kernel, "--device", std::to_string(device)}, true, true);
  pid_ = child.pid, to_ = child.in, from_ = child.out, err_ = child.err;
  Frame type{};
  Message m;
  const ReadStatus s = worker::read_frame(from_, type, m, kStartTimeout, err_, &err_tail_);
  if (s == ReadStatus::timed_out) kill_now();
  if (s != ReadStatus::ok || type != Frame::ready)
    throw Error(cat("the worker for ", kernel, " did not start: ", dead_message("start")));
  try {
    info_ = worker::decode_info(m);
  } catch (const Error& e) {  // e.g. a worker of another build: it speaks another protocol version
    kill_now();
    dead_message("start");
    throw Error(cat("the worker for ", kernel, " did not start: ", e.what()));
  }
}

WorkerProcess::~WorkerProcess() {
  if (pid_ <= 0) return;
  worker::write_frame(to_, Frame::quit, Message());
  close_fd(to_);
  Frame type{};
  Message m;
  if (worker::read_frame(from_, type, m, kQuitGrace, err_, &err_tail_) == ReadStatus::timed_out) ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  close_fd(from_), close_fd(err_);
}

void WorkerProcess::kill_now() {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
}

std::string WorkerProcess::dead_message(const char* what) {
  close_fd(to_);
  // Whatever it still writes to stderr (the crash report) comes before it is reaped. Its stdout is
  // discarded unparsed: after an interrupted or timed-out read it may stop mid-frame.
  worker::drain(from_, kQuitGrace, err_, &err_tail_);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  close_fd(from_), close_fd(err_);
  std::string how;
  if (WIFSIGNALED(status)) {
    how = cat("the worker died of signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ") during ", what);
  } else {
    how = cat("the worker exited with status ", WEXITSTATUS(status), " during ", what);
  }
  const std::string words = last_words(err_tail_);
  err_tail_.clear();
  return words.empty() ? how : how + ": " + words;
}

KernelRun WorkerProcess::run(const std::string& case_key, const Fixture& f, Contract contract, const Launch& launch,
                             double timeout_s) {
  return exchange(Frame::run, case_key, f, contract, launch, timeout_s);
}

KernelRun WorkerProcess::ask(const std::string& case_key, const Fixture& f, Contract contract, const Launch& launch) {
  return exchange(Frame::ask, case_key, f, contract, launch, kStartTimeout);
}

KernelRun WorkerProcess::exchange(Frame request, const std::string& case_key, const Fixture& f, Contract contract,
                                  const Launch& launch, double timeout_s) {
  require(alive(), "internal: run on a worker that is gone");
  require(launch.stream == nullptr, "internal: a worker launches on its own default stream");
  KernelRun out;
  const auto fault = [&](const std::string& message, bool hang) {
    out.fault = true;
    out.hang = hang;
    out.status = {TC_ERR_CUDA, message};
    return out;
  };
  const std::string key = cat(case_key, "/", name(contract));
  if (key != loaded_) {
    KernelOperands ops = kernel_operands(f);  // built only when the worker has not got the case yet
    ops.contract = contract;
    if (!worker::write_frame(to_, Frame::load, worker::encode_case(ops)))
      return fault("FAULT: " + dead_message("a case's upload"), false);
    loaded_ = key;
  }
  if (!worker::write_frame(to_, request, worker::encode_launch(launch))) return fault("FAULT: " + dead_message("a run"), false);
  Frame type{};
  Message m;
  // Uploading a large case may take a while; the watchdog starts at the launch.
  ReadStatus s = worker::read_frame(from_, type, m, kStartTimeout, err_, &err_tail_, true);
  const auto launched = std::chrono::steady_clock::now();
  if (s == ReadStatus::ok && type == Frame::launched)
    s = worker::read_frame(from_, type, m, timeout_s, err_, &err_tail_, true);
  if (s == ReadStatus::interrupted) {  // the run is stopping: this cell gets no verdict
    kill_now();
    dead_message("a run");
    out.interrupted = true;
    out.status = {TC_ERR_CUDA, "not run (interrupted)"};
    return out;
  }
  if (s == ReadStatus::timed_out) {
    kill_now();
    dead_message("a run");
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", timeout_s);
    return fault(cat("HANG: no result within ", seconds, " s of the launch; the worker was killed"),
                 true);
  }
  if (s != ReadStatus::ok || type != Frame::result) return fault("FAULT: " + dead_message("a run"), false);
  try {
    out = worker::decode_result(m);
  } catch (const Error& e) {  // a result this side cannot read is that cell's ERROR, not the run's end
    out = KernelRun{};
    out.status = {TC_ERR_INVALID_ARGUMENT, cat("the worker's result could not be read: ", e.what())};
    return out;
  }
  out.launch_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - launched).count();
  if (out.fault) dead_message("a run");  // it exits after a fault: its context is gone
  return out;
}

}  // namespace tc
