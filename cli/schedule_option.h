// `--schedule model|unknown` of `tilecheck run` and `tilecheck tiles`: which bounds judge a cell
// when the library's own declaration (tc_plugin_numerics) is to be overridden.
#pragma once
#include <string>

#include <CLI/CLI.hpp>

namespace tc::cli {

inline void add_schedule_option(CLI::App* app, std::string* schedule) {
  app->add_option("--schedule", *schedule,
                  "Judge with the bounds of this schedule: model (Marlin's striped split) or unknown (any split of K "
                  "into k-slices of at least the declared depth, else 16 rows) (default: what the library declares; "
                  "unknown if it declares nothing)")
      ->check(CLI::IsMember({"model", "unknown"}));
}

}  // namespace tc::cli
