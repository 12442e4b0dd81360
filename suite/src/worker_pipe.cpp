#include "tilecheck/suite/worker_pipe.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/interrupt.h"

namespace tc::worker {
namespace {

struct Header {
  Frame type;
  std::uint32_t reserved;
  std::uint64_t bytes;
};

bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= static_cast<std::size_t>(w);
  }
  return true;
}

void keep_tail(std::string& tail, const char* data, std::size_t n) {
  tail.append(data, n);
  if (tail.size() > kErrTail) tail.erase(0, tail.size() - kErrTail);
}

// Reads exactly n bytes from fd before the deadline, draining err_fd meanwhile.
ReadStatus read_exact(int fd, void* data, std::size_t n, std::chrono::steady_clock::time_point deadline,
                      bool forever, int err_fd, std::string* err_tail, bool interruptible) {
  constexpr int kInterruptPollMs = 100;
  char* p = static_cast<char*>(data);
  while (n > 0) {
    if (interruptible && interrupt_requested()) return ReadStatus::interrupted;
    pollfd fds[2] = {{fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    const int count = err_fd >= 0 ? 2 : 1;
    int wait_ms = -1;
    if (!forever) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return ReadStatus::timed_out;
      wait_ms = static_cast<int>(std::min<long long>(left.count(), 1 << 30));
    }
    if (interruptible && (wait_ms < 0 || wait_ms > kInterruptPollMs)) wait_ms = kInterruptPollMs;
    const int ready = ::poll(fds, count, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    require(ready >= 0, "poll on a worker pipe: ", std::strerror(errno));
    if (ready == 0) continue;  // the deadline (or an interruption) is checked at the top
    if (count == 2 && (fds[1].revents & (POLLIN | POLLHUP))) {
      char buf[4096];
      const ssize_t r = ::read(err_fd, buf, sizeof buf);
      if (r > 0 && err_tail != nullptr) keep_tail(*err_tail, buf, static_cast<std::size_t>(r));
      if (r == 0) err_fd = -1;  // the worker closed its stderr: stop polling it
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t r = ::read(fd, p, n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return ReadStatus::closed;
      p += r, n -= static_cast<std::size_t>(r);
    }
  }
  return ReadStatus::ok;
}

}  // namespace

void Message::put_bytes(const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  bytes_.insert(bytes_.end(), p, p + n);
}

void Message::put_string(const std::string& s) {
  put<std::uint64_t>(s.size());
  put_bytes(s.data(), s.size());
}

void Message::get_bytes(void* data, std::size_t n) {
  require(bytes_.size() - read_ >= n, "worker message truncated: ", n, " bytes wanted, ", bytes_.size() - read_,
          " left");
  if (n > 0) std::memcpy(data, bytes_.data() + read_, n);  // an empty matrix's data() may be null
  read_ += n;
}

std::string Message::get_string() {
  const auto n = get<std::uint64_t>();
  std::string s(n, '\0');
  get_bytes(s.data(), n);
  return s;
}

void ignore_broken_pipes() {
  static std::once_flag once;
  std::call_once(once, [] { std::signal(SIGPIPE, SIG_IGN); });
}

bool write_frame(int fd, Frame type, const Message& m) {
  const Header h{type, 0, m.bytes().size()};
  return write_all(fd, &h, sizeof h) && write_all(fd, m.bytes().data(), m.bytes().size());
}

ReadStatus read_frame(int fd, Frame& type, Message& m, double timeout_s, int err_fd, std::string* err_tail,
                      bool interruptible) {
  const bool forever = timeout_s < 0;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(forever ? 0.0 : timeout_s));
  Header h{};
  ReadStatus s = read_exact(fd, &h, sizeof h, deadline, forever, err_fd, err_tail, interruptible);
  if (s != ReadStatus::ok) return s;
  // The body grows as it arrives: a length that no bytes back (a header read from the middle of a
  // frame) allocates one chunk, not the length. A 130 GB vector from such a header was once the
  // parent's end (OOM-killed) after an interrupted read.
  constexpr std::uint64_t kChunk = std::uint64_t{64} << 20;
  std::vector<char> bytes;
  while (bytes.size() < h.bytes) {
    const std::size_t at = bytes.size();
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, h.bytes - at));
    bytes.resize(at + n);
    s = read_exact(fd, bytes.data() + at, n, deadline, forever, err_fd, err_tail, interruptible);
    if (s != ReadStatus::ok) return s;
  }
  type = h.type;
  m = Message(std::move(bytes));
  return ReadStatus::ok;
}

void drain(int fd, double timeout_s, int err_fd, std::string* err_tail) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  char scratch[65536];
  while (read_exact(fd, scratch, sizeof scratch, deadline, false, err_fd, err_tail, false) == ReadStatus::ok) {
  }
}

}  // namespace tc::worker
