// tilecheck: reference-vs-kernel numerical validation for Marlin-style INT4xFP16 GEMM kernels.
// Exit codes: 0 pass, 1 mismatch (or failed check), 2 bad input or usage.
#include <cstdio>
#include <exception>
#include <vector>

#include "commands.h"
#include "crash_report.h"
#include "termination_cleanup.h"
#include "unknown_command.h"
#include "tilecheck/core/error.h"

int main(int argc, char** argv) {
  tc::cli::install_crash_report();
  tc::cli::install_termination_cleanup();
  // Named, so that usage lines say "tilecheck", not the path it was started by.
  CLI::App app{"tilecheck: validate Marlin-style INT4xFP16 GEMM kernels against a CPU reference", "tilecheck"};
  app.require_subcommand(1);
  const std::vector<tc::cli::Command> commands = {tc::cli::add_run(app), tc::cli::add_golden(app),
                                                     tc::cli::add_bench(app), tc::cli::add_tiles(app), tc::cli::add_compare(app),
                                                     tc::cli::add_perturb(app), tc::cli::add_worker(app)};
  const std::string command_problem = tc::cli::command_word_problem(app, argc, argv);
  if (!command_problem.empty()) {
    std::fprintf(stderr, "tilecheck: error: %s\n", command_problem.c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
  } catch (const tc::Error& e) {
    std::fprintf(stderr, "tilecheck: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tilecheck: internal error: %s\n", e.what());
    return 2;
  }
  return 2;
}
