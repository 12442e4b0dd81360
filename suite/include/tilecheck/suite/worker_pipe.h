// Framed messages over a pair of pipes between `tilecheck` and its worker processes
// (tilecheck/suite/worker.h). A frame is a fixed header {type, payload bytes} and the payload;
// payloads are built and read field by field with Message. Both ends are the same binary on the
// same machine, so fields travel in native byte order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tilecheck/core/error.h"

namespace tc::worker {

enum class Frame : std::uint32_t {
  ready = 1,     // worker -> parent: the plugin is loaded and the device context made (WorkerInfo)
  load = 2,      // parent -> worker: one case's inputs (A, packed B, permuted scales)
  run = 3,       // parent -> worker: run one launch of the loaded case
  launched = 4,  // worker -> parent: the kernel was called; the cell's watchdog starts now
  result = 5,    // worker -> parent: the run's status, output and guard band
  quit = 6,      // parent -> worker: exit cleanly
  ask = 7,       // parent -> worker: only ask the library whether it implements a launch of the loaded
                 // case (tc_plugin_workspace_size; nothing is launched); answered like a run
};

// A payload being written or read, field by field.
class Message {
 public:
  Message() = default;
  explicit Message(std::vector<char> bytes) : bytes_(std::move(bytes)) {}
  template <typename T>
  void put(const T& value) { put_bytes(&value, sizeof value); }
  void put_bytes(const void* data, std::size_t n);
  void put_string(const std::string& s);
  template <typename T>
  T get() {
    T value;
    get_bytes(&value, sizeof value);
    return value;
  }
  void get_bytes(void* data, std::size_t n);  // throws if fewer than n bytes are left
  std::string get_string();
  template <typename Matrix>
  void put_matrix(const Matrix& matrix) {
    put<std::int64_t>(matrix.rows());
    put<std::int64_t>(matrix.cols());
    put_bytes(matrix.data(), static_cast<std::size_t>(matrix.size()) * sizeof(typename Matrix::Scalar));
  }
  template <typename Matrix>
  Matrix get_matrix() {
    const auto rows = get<std::int64_t>(), cols = get<std::int64_t>();
    require(rows >= 0 && cols >= 0 && static_cast<std::size_t>(rows * cols) * sizeof(typename Matrix::Scalar) <=
            bytes_.size() - read_, "worker message: a ", rows, "x", cols, " matrix does not fit the message");
    Matrix matrix(rows, cols);
    get_bytes(matrix.data(), static_cast<std::size_t>(matrix.size()) * sizeof(typename Matrix::Scalar));
    return matrix;
  }
  const std::vector<char>& bytes() const { return bytes_; }

 private:
  std::vector<char> bytes_;
  std::size_t read_ = 0;
};

// Ignores SIGPIPE in this process (once), so that a write to a dead worker fails with EPIPE.
void ignore_broken_pipes();
// False if the other end is gone.
bool write_frame(int fd, Frame type, const Message& m);

enum class ReadStatus { ok, closed, timed_out, interrupted };
// Reads one frame from `fd`. While waiting it also drains `err_fd` (the worker's stderr, -1 for
// none) into `err_tail`, keeping its last kErrTail bytes. `timeout_s` < 0 waits for ever. With
// `interruptible`, a run's interruption (tilecheck/suite/interrupt.h) ends the wait within 0.1 s.
constexpr std::size_t kErrTail = 16384;
ReadStatus read_frame(int fd, Frame& type, Message& m, double timeout_s, int err_fd = -1,
                      std::string* err_tail = nullptr, bool interruptible = false);
// Reads and discards what `fd` still holds until it closes or `timeout_s` passes, draining `err_fd`
// into `err_tail` meanwhile: for a worker being reaped, whose stream may stop in the middle of a
// frame (an interrupted or timed-out read), so that nothing of it is parsed as a frame again.
void drain(int fd, double timeout_s, int err_fd = -1, std::string* err_tail = nullptr);

}  // namespace tc::worker
