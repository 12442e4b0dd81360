// CLI11 reads a word that is no subcommand as a stray argument and says only "A subcommand is
// required". This names the word and lists the commands that exist at that level instead.
#pragma once
#include <string>

#include <CLI/CLI.hpp>

namespace tc::cli {

// The message for the first word of argv that stands where a subcommand of `app` (or of one of
// its subcommands) is expected but names none, e.g. "unknown command 'frobnicate'; the commands
// are: run, golden, bench, tiles, compare (tilecheck --help)"; also when no command is given at a
// level that needs one. Empty when the command words are fine. Hidden commands are not listed.
std::string command_word_problem(const CLI::App& app, int argc, const char* const* argv);

}  // namespace tc::cli
