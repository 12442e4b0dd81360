// Runs a command line for end-to-end CLI tests and captures its exit code, stdout and stderr.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace tc::test_support {

struct CommandResult {
  int code = -1;  // exit status; -1 if it did not exit normally
  std::string out;
  std::string err;
};

// `scratch` holds the captured stderr.
inline CommandResult run_command(const std::string& command, const std::filesystem::path& scratch) {
  const std::string err_file = (scratch / "stderr.txt").string();
  CommandResult r;
  FILE* pipe = popen((command + " 2>" + err_file).c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_file);
  r.err.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

}  // namespace tc::test_support
