#include "bench_children.h"

#include <cstring>

#include "tilecheck/core/error.h"
#include "tilecheck/suite/worker.h"

namespace tc::cli {

std::vector<std::string> child_command(const BenchOptions& o, const std::string& config, bool header) {
  std::vector<std::string> a = {current_executable(), "bench", "--isolated", "--config", config};
  for (const std::string& k : o.kernels) a.insert(a.end(), {"--kernel", k});
  a.insert(a.end(), {"-M", std::to_string(o.M), "--sms", std::to_string(o.sms), "--rounds", std::to_string(o.rounds),
                     "-K", std::to_string(o.K), "-N", std::to_string(o.N), "--contract", o.contract, "--repeats",
                     std::to_string(o.repeats), "--rotate-mb", std::to_string(o.rotate_mb), "--group",
                     std::to_string(o.group)});
  if (!o.cublas) a.push_back("--no-cublas");
  if (!header) a.push_back("--no-header");
  return a;
}

std::pair<std::string, std::string> failure(const ChildResult& r, double timeout) {
  std::string last = r.err;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  if (r.timed_out) return {"HANG", cat("no result within ", timeout, " s (--config-timeout); the process was killed")};
  if (r.signal != 0) {
    const std::size_t frames = last.find("tilecheck: fatal signal");
    return {"FAULT", cat("signal ", r.signal, " (", strsignal(r.signal), ")",
                         frames == std::string::npos ? "" : "\n" + last.substr(frames))};
  }
  last = last.substr(last.find_last_of('\n') + 1);
  const std::string prefix = "tilecheck: error: ";
  if (last.rfind(prefix, 0) == 0) last = last.substr(prefix.size());
  if (last.find("TC_ERR_UNSUPPORTED") != std::string::npos) return {"n/a", last};
  return {"FAULT", last.empty() ? cat("exit status ", r.exit_code) : last};
}

}  // namespace tc::cli
