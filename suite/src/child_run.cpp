#include "tilecheck/suite/child_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "tilecheck/core/error.h"

extern char** environ;

namespace tc {

SpawnedChild spawn_child(const std::vector<std::string>& argv, bool with_stdin, bool own_process_group) {
  int in[2] = {-1, -1}, out[2], err[2];
  require((!with_stdin || ::pipe2(in, O_CLOEXEC) == 0) && ::pipe2(out, O_CLOEXEC) == 0 &&
              ::pipe2(err, O_CLOEXEC) == 0,
          "cannot make pipes for ", argv[0], ": ", std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (with_stdin) posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  std::vector<std::string> args = argv;
  std::vector<char*> c_args;
  for (std::string& a : args) c_args.push_back(a.data());
  c_args.push_back(nullptr);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (own_process_group) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  SpawnedChild child;
  const int spawned = ::posix_spawn(&child.pid, args[0].c_str(), &actions, &attributes, c_args.data(), environ);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (with_stdin) ::close(in[0]);
  ::close(out[1]), ::close(err[1]);
  if (spawned != 0) {
    if (with_stdin) ::close(in[1]);
    ::close(out[0]), ::close(err[0]);
    throw Error(cat("cannot start ", args[0], ": ", std::strerror(spawned)));
  }
  child.in = with_stdin ? in[1] : -1;
  child.out = out[0];
  child.err = err[0];
  return child;
}

ChildResult run_child(const std::vector<std::string>& argv, double timeout_s) {
  const SpawnedChild child = spawn_child(argv, false);
  const pid_t pid = child.pid;
  ChildResult r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{child.out, POLLIN, 0}, {child.err, POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open = 2;
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (pollfd& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

}  // namespace tc
