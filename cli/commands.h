// Subcommands of the tilecheck CLI. Each add_* registers its options on the parent app and returns
// the function that runs it; that function returns the process exit code (0 pass, 1 mismatch) and
// throws tc::Error on bad input, which main() reports as exit code 2.
#pragma once
#include <functional>

#include <CLI/CLI.hpp>

namespace tc::cli {

struct Command {
  CLI::App* app;
  std::function<int()> run;
};

Command add_run(CLI::App& parent);
Command add_golden(CLI::App& parent);
Command add_bench(CLI::App& parent);
Command add_tiles(CLI::App& parent);
Command add_compare(CLI::App& parent);
Command add_perturb(CLI::App& parent);
Command add_worker(CLI::App& parent);

}  // namespace tc::cli
