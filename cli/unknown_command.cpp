#include "unknown_command.h"

#include "tilecheck/core/error.h"

namespace tc::cli {
namespace {

std::string listed_commands(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

std::string command_path(const std::vector<std::string>& words) {
  std::string path = "tilecheck";
  for (const std::string& w : words) path += " " + w;
  return path;
}

}  // namespace

std::string command_word_problem(const CLI::App& app, int argc, const char* const* argv) {
  const auto all = [](const CLI::App*) { return true; };
  const CLI::App* level = &app;
  std::vector<std::string> words;  // the commands read so far
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (level->get_subcommands(all).empty() || word.empty() || word[0] == '-') return "";  // options: CLI11's job
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : level->get_subcommands(all))
      if (sub->check_name(word)) next = sub;
    if (next == nullptr)
      return cat("unknown command '", word, "'; the commands of ", command_path(words), " are: ", listed_commands(*level),
                 " (", command_path(words), " --help)");
    level = next;
    words.push_back(word);
  }
  if (level->get_subcommands(all).empty() || level->get_require_subcommand_min() == 0) return "";
  return cat("no command given; the commands of ", command_path(words), " are: ", listed_commands(*level), " (",
             command_path(words), " --help)");
}

}  // namespace tc::cli
