#include "output_paths.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "tilecheck/core/error.h"

namespace tc::cli {
namespace fs = std::filesystem;
namespace {

// The same file: an existing pair compared by identity (links included), otherwise by the
// normalised absolute path (two outputs not yet written).
bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

// The deepest ancestor of `path` (itself included) that exists; "." for a relative path none of
// whose parts exist.
fs::path nearest_existing(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  while (!p.empty() && !fs::exists(p, ec) && p != p.parent_path()) p = p.parent_path();
  return p;
}

void check_output_file(const std::string& option, const std::string& path) {
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  require(!fs::is_directory(status), option, " ", path, ": is a directory; expected the path of a file to write");
  require(!fs::exists(status) || fs::is_regular_file(status), option, " ", path,
          ": exists and is not a regular file; expected the path of a file to write");
  fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) parent = ".";
  const fs::file_status dir = fs::status(parent, ec);
  require(fs::exists(dir), option, " ", path, ": the directory ", parent.string(), " does not exist");
  require(fs::is_directory(dir), option, " ", path, ": ", parent.string(), " is not a directory");
  require_writable_directory(option, path, parent.string());
}

void check_output_dir(const std::string& option, const std::string& path) {
  std::error_code ec;
  const fs::path existing = nearest_existing(path);
  require(fs::is_directory(existing, ec), option, " ", path, ": ", existing.string(),
          " is a file, not a directory; expected a directory to write into");
  require_writable_directory(option, path, existing.string());
}

}  // namespace

void require_writable_directory(const std::string& option, const std::string& given, const std::string& dir) {
  // Named like an atomic write's temporary, so a run killed right here leaves nothing a later
  // run would not remove (tc::remove_stale_temporaries).
  const std::string probe = (fs::path(dir) / cat(".tilecheck-write-probe.tmp.", static_cast<long>(getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const int error = errno;
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
    return;
  }
  throw Error(cat(option, " ", given, ": cannot write in ", dir, ": ", std::strerror(error)));
}

PathPlan& PathPlan::input(const std::string& option, const std::string& path) {
  if (!path.empty()) inputs_.push_back({option, path});
  return *this;
}

PathPlan& PathPlan::input_case(const std::string& option, const std::string& file_or_id, const GoldenPaths& paths) {
  std::error_code ec;
  if (file_or_id.empty() || fs::exists(file_or_id, ec)) return input(option, file_or_id);
  try {
    const Catalogue catalogue = load_catalogue(paths.catalogue());
    if (const CatalogueEntry* e = catalogue.find(file_or_id)) return input(option, paths.location(*e));
  } catch (const Error&) {
    // no catalogue here: the command itself reports that
  }
  return *this;
}

PathPlan& PathPlan::inputs_in(const std::string& what, const std::string& dir) {
  if (!dir.empty()) input_dirs_.push_back({what, dir});
  return *this;
}

PathPlan& PathPlan::fixtures(const GoldenPaths& paths) {
  return input("the catalogue", paths.catalogue()).input("the manifest", paths.manifest()).inputs_in(
      "the golden fixtures", paths.golden_dir());
}

PathPlan& PathPlan::output_file(const std::string& option, const std::string& path) {
  if (!path.empty()) output_files_.push_back({option, path});
  return *this;
}

PathPlan& PathPlan::output_dir(const std::string& option, const std::string& path) {
  if (!path.empty()) output_dirs_.push_back({option, path});
  return *this;
}

void PathPlan::check() const {
  for (const Entry& out : output_files_) {
    for (const Entry& in : inputs_)
      require(!same_file(out.path, in.path), out.option, " ", out.path, " is the same file as ", in.option, " ",
              in.path, ": refusing to overwrite an input");
    std::error_code ec;
    for (const Entry& dir : input_dirs_) {
      const fs::path parent = fs::path(out.path).parent_path().empty() ? "." : fs::path(out.path).parent_path();
      require(!(fs::exists(out.path, ec) && fs::equivalent(parent, dir.path, ec)), out.option, " ", out.path,
              " is one of ", dir.option, " in ", dir.path, ": refusing to overwrite an input");
    }
    for (const Entry& other : output_files_)
      require(&other == &out || !same_file(out.path, other.path), out.option, " ", out.path,
              " is the same file as ", other.option, " ", other.path, ": give each output its own file");
    check_output_file(out.option, out.path);
  }
  for (const Entry& dir : output_dirs_) {
    for (const Entry& in : inputs_)
      require(!same_file(dir.path, in.path), dir.option, " ", dir.path, " is the input ", in.option,
              ": expected a directory to write into");
    check_output_dir(dir.option, dir.path);
  }
}

}  // namespace tc::cli
