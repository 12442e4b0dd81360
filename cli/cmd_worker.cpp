// `tilecheck worker`: not for people. `tilecheck run` starts the kernel's worker processes this
// way (tilecheck/suite/worker.h): stdin and stdout are the pipes to the parent.
#include <memory>
#include <string>

#include "commands.h"
#include "tilecheck/suite/worker.h"

namespace tc::cli {

Command add_worker(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand("worker", "Internal: a worker process of tilecheck run (pipes on stdin/stdout)");
  app->group("");  // hidden from --help
  auto kernel = std::make_shared<std::string>();
  auto device = std::make_shared<int>(0);
  app->add_option("--kernel", *kernel, "Kernel plugin library")->required();
  app->add_option("--device", *device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
  return {app, [kernel, device] { return serve_worker(*kernel, *device); }};
}

}  // namespace tc::cli
