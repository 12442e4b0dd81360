#include "data_paths.h"

#include <cstdlib>
#include <filesystem>

#include "tilecheck/core/error.h"

namespace tc::cli {
namespace fs = std::filesystem;
namespace {

const char* env(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? value : nullptr;
}

bool holds_fixtures(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "catalogue.txt", ec);
}

bool is_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec);
}

// `dir` made absolute and tidy ("a/b/../c" -> "a/c"), without resolving links: messages show the
// path the way it was reached (an install prefix, not the link target of the build tree).
std::string tidy(const fs::path& dir) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(dir, ec);
  return (ec ? dir : absolute).lexically_normal().string();
}

fs::path bin_dir(const std::string& executable) { return fs::path(executable).parent_path(); }

// <bin>/.. taken lexically: the prefix of <prefix>/bin/tilecheck.
fs::path prefix_of(const std::string& executable) { return bin_dir(executable).parent_path(); }

// Where the large cases are made: --generated, <data>/generated when the data directory has one,
// else the user's cache.
std::string generated_dir(const DataSearch& s, const std::optional<fs::path>& data) {
  if (!s.generated.empty()) return tidy(s.generated);
  if (data && is_dir(*data / "generated")) return tidy(*data / "generated");
  require(!s.cache.empty(), "nowhere to make the large on-demand cases: no <data>/generated directory, and neither "
                            "$XDG_CACHE_HOME nor $HOME is set; give --generated DIR");
  return tidy(fs::path(s.cache) / "tilecheck" / "generated");
}

DataPaths found(const fs::path& fixtures, const std::string& generated, const char* by) {
  DataPaths p;
  p.golden.fixtures_dir = tidy(fixtures);
  p.golden.generated_dir = generated;
  p.recordings_dir = tidy(fixtures / "recordings");
  p.found_by = by;
  return p;
}

}  // namespace

DataSearch DataSearch::from_environment(const std::string& fixtures, const std::string& generated) {
  DataSearch s;
  s.fixtures = fixtures;
  s.generated = generated;
  if (const char* home = std::getenv("TILECHECK_HOME")) s.home = home;
  std::error_code ec;
  s.executable = fs::read_symlink("/proc/self/exe", ec).string();
  if (const char* cache = env("XDG_CACHE_HOME"))
    s.cache = cache;
  else if (const char* home = env("HOME"))
    s.cache = (fs::path(home) / ".cache").string();
  return s;
}

DataPaths find_data(const DataSearch& s) {
  if (!s.fixtures.empty()) {
    require(holds_fixtures(s.fixtures), "--fixtures ", s.fixtures, ": no catalogue.txt there (expected a fixtures ",
            "directory: catalogue.txt, MANIFEST.json, golden/)");
    return found(s.fixtures, generated_dir(s, std::nullopt), "--fixtures");
  }
  if (s.home) {
    require(!s.home->empty(), "TILECHECK_HOME is set but empty (expected a data directory holding fixtures/)");
    const fs::path data = *s.home;
    require(holds_fixtures(data / "fixtures"), "TILECHECK_HOME=", *s.home, ": no fixtures/catalogue.txt there ",
            "(expected <prefix>/share/tilecheck or a tilecheck checkout)");
    return found(data / "fixtures", generated_dir(s, data), "$TILECHECK_HOME");
  }
  require(!s.executable.empty(), "cannot tell where this tilecheck is (/proc/self/exe unreadable); give --fixtures DIR "
                                 "or set TILECHECK_HOME");
  const fs::path data = prefix_of(s.executable) / "share" / "tilecheck";
  require(holds_fixtures(data / "fixtures"), "no tilecheck data found: --fixtures not given, TILECHECK_HOME not set, ",
          "and ", tidy(data / "fixtures"), " (beside ", s.executable, ") has no catalogue.txt. Give --fixtures DIR, ",
          "set TILECHECK_HOME, or run a tilecheck from a build tree or an install prefix (cmake --install)");
  return found(data / "fixtures", generated_dir(s, data), "the executable's location");
}

std::string kernel_dir(const std::string& executable) {
  return tidy(prefix_of(executable) / "lib" / "tilecheck");
}

std::string bundled_kernel(const std::string& file) {
  const DataSearch s = DataSearch::from_environment("", "");
  const std::string path = (fs::path(kernel_dir(s.executable)) / file).string();
  std::error_code ec;
  require(fs::exists(path, ec), "no kernel library ", path, " (the default beside this tilecheck); give --kernel PATH");
  return path;
}

std::string default_kernel_library() { return bundled_kernel("libtc_kernel_upstream.so"); }
std::string default_dump_kernel_library() { return bundled_kernel("libtc_kernel_upstream_dump.so"); }

void DataOptions::add_to(CLI::App* app) {
  app->add_option("--fixtures", fixtures,
                  "Fixtures directory: catalogue.txt, MANIFEST.json, golden/, recordings/ "
                  "[default: <data>/fixtures; <data> is $TILECHECK_HOME, else <bin>/../share/tilecheck, <bin> "
                  "being the directory of this tilecheck]");
  app->add_option("--generated", generated,
                  "Directory for the large cases made on demand "
                  "[default: <data>/generated if it exists, else $XDG_CACHE_HOME/tilecheck/generated]");
}

}  // namespace tc::cli
