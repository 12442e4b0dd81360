// Where tilecheck finds its data at run time, so that the build tree, an installed copy and a moved
// install prefix all work and no path of the source tree is compiled into the binary:
//
//   fixtures  (catalogue.txt, MANIFEST.json, golden/, recordings/), the first of
//     1. --fixtures DIR
//     2. $TILECHECK_HOME/fixtures                    (TILECHECK_HOME: a data directory, or a checkout)
//     3. <bin>/../share/tilecheck/fixtures          (<bin>: the directory of the running tilecheck)
//   A source that is given must hold catalogue.txt, or it is an error naming it: a wrong setting
//   never falls through to another tree. With none given and none found, the error names every
//   place searched.
//   cases made on demand: --generated DIR, else <data>/generated if it exists (the build tree has
//     one), else $XDG_CACHE_HOME/tilecheck/generated (~/.cache when unset).
//   kernel plugin libraries: <bin>/../lib/tilecheck.
//
// An install prefix has exactly this layout (cmake/TilecheckInstall.cmake); the build tree makes
// the same one with links at configure time: build/<preset>/share/tilecheck/fixtures -> the
// source's fixtures/, share/tilecheck/generated -> fixtures/generated, lib/tilecheck -> kernel/.
#pragma once
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "tilecheck/fixtures/golden.h"

namespace tc::cli {

// The inputs of the search; from_environment() fills them for this process, tests set their own.
struct DataSearch {
  std::string fixtures;               // --fixtures; empty: not given
  std::string generated;              // --generated; empty: not given
  std::optional<std::string> home;    // $TILECHECK_HOME, if set
  std::string executable;             // the running program, links resolved
  std::string cache;                  // $XDG_CACHE_HOME, else $HOME/.cache; empty: neither set
  static DataSearch from_environment(const std::string& fixtures, const std::string& generated);
};

struct DataPaths {
  GoldenPaths golden;          // fixtures_dir and generated_dir
  std::string recordings_dir;  // <fixtures>/recordings
  std::string found_by;        // "--fixtures", "$TILECHECK_HOME" or "the executable's location"
};

// Throws tc::Error naming the places searched when no fixtures directory is found.
DataPaths find_data(const DataSearch& search);

// <directory of `executable`>/../lib/tilecheck
std::string kernel_dir(const std::string& executable);

// <kernel_dir>/<file> of the running program; throws tc::Error naming it when it does not exist.
std::string bundled_kernel(const std::string& file);
std::string default_kernel_library();       // libtc_kernel_upstream.so
std::string default_dump_kernel_library();  // libtc_kernel_upstream_dump.so (built by preset gpu)

// The symbolic defaults --help shows (never a path of this machine).
inline constexpr const char* kDefaultKernelHelp = "<bin>/../lib/tilecheck/libtc_kernel_upstream.so";
inline constexpr const char* kDefaultRecordingHelp = "<fixtures>/recordings/h200.h5";

// --fixtures and --generated on a command that reads fixtures.
struct DataOptions {
  std::string fixtures;
  std::string generated;
  void add_to(CLI::App* app);
  DataPaths find() const { return find_data(DataSearch::from_environment(fixtures, generated)); }
};

}  // namespace tc::cli
