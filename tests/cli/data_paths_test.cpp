// Where the CLI finds its data (cli/data_paths.h): --fixtures, then $TILECHECK_HOME, then the
// install layout beside the executable; a source that is given but wrong is an error naming it,
// never a silent fall-through; nothing found names every place searched.
#include "data_paths.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/temp_dir.h"
#include "tilecheck/core/error.h"

namespace tc::cli {
namespace {

namespace fs = std::filesystem;

// A data directory <root>/share/tilecheck with fixtures/catalogue.txt, as an install prefix has.
fs::path make_prefix(const fs::path& root) {
  const fs::path fixtures = root / "share" / "tilecheck" / "fixtures";
  fs::create_directories(fixtures);
  std::ofstream(fixtures / "catalogue.txt") << "# empty\n";
  return root;
}

std::string error_of(const DataSearch& s) {
  try {
    find_data(s);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DataPaths, TheInstallLayoutBesideTheExecutable) {
  TempDir dir;
  const fs::path prefix = make_prefix(dir.path() / "prefix");
  DataSearch s;
  s.executable = (prefix / "bin" / "tilecheck").string();
  s.cache = (dir.path() / "cache").string();
  const DataPaths p = find_data(s);
  EXPECT_EQ(p.golden.fixtures_dir, (prefix / "share/tilecheck/fixtures").string());
  EXPECT_EQ(p.recordings_dir, (prefix / "share/tilecheck/fixtures/recordings").string());
  EXPECT_EQ(p.golden.generated_dir, (dir.path() / "cache/tilecheck/generated").string())
      << "no <data>/generated: the user's cache";
  EXPECT_EQ(p.found_by, "the executable's location");
  EXPECT_EQ(kernel_dir(s.executable), (prefix / "lib/tilecheck").string());

  fs::create_directories(prefix / "share/tilecheck/generated");  // the build tree has one
  EXPECT_EQ(find_data(s).golden.generated_dir, (prefix / "share/tilecheck/generated").string());
  s.generated = (dir.path() / "mine").string();
  EXPECT_EQ(find_data(s).golden.generated_dir, s.generated);
}

TEST(DataPaths, FixturesOptionThenHomeComeFirst) {
  TempDir dir;
  const fs::path beside = make_prefix(dir.path() / "beside");
  const fs::path home = make_prefix(dir.path() / "home") / "share" / "tilecheck";
  const fs::path other = make_prefix(dir.path() / "other") / "share" / "tilecheck" / "fixtures";
  DataSearch s;
  s.executable = (beside / "bin" / "tilecheck").string();
  s.cache = (dir.path() / "cache").string();
  s.home = home.string();
  EXPECT_EQ(find_data(s).golden.fixtures_dir, (home / "fixtures").string());
  EXPECT_EQ(find_data(s).found_by, "$TILECHECK_HOME");
  s.fixtures = other.string();
  EXPECT_EQ(find_data(s).golden.fixtures_dir, other.string());
  EXPECT_EQ(find_data(s).found_by, "--fixtures");
}

TEST(DataPaths, AGivenSourceWithoutDataIsAnErrorNamingIt) {
  TempDir dir;
  const fs::path beside = make_prefix(dir.path() / "beside");  // would be found, but is not asked
  DataSearch s;
  s.executable = (beside / "bin" / "tilecheck").string();
  s.cache = (dir.path() / "cache").string();
  s.home = (dir.path() / "nothing").string();
  EXPECT_NE(error_of(s).find("TILECHECK_HOME=" + *s.home + ": no fixtures/catalogue.txt there"), std::string::npos)
      << error_of(s);
  s.home = "";
  EXPECT_NE(error_of(s).find("TILECHECK_HOME is set but empty"), std::string::npos) << error_of(s);
  s.fixtures = (dir.path() / "nothing").string();
  EXPECT_NE(error_of(s).find("--fixtures " + s.fixtures + ": no catalogue.txt there"), std::string::npos)
      << error_of(s);
}

TEST(DataPaths, NothingFoundNamesEveryPlaceSearched) {
  TempDir dir;
  DataSearch s;
  s.executable = (dir.path() / "copy" / "tilecheck").string();  // a binary copied on its own
  s.cache = (dir.path() / "cache").string();
  const std::string message = error_of(s);
  EXPECT_NE(message.find("no tilecheck data found"), std::string::npos) << message;
  EXPECT_NE(message.find("--fixtures not given"), std::string::npos) << message;
  EXPECT_NE(message.find("TILECHECK_HOME not set"), std::string::npos) << message;
  EXPECT_NE(message.find((dir.path() / "share/tilecheck/fixtures").string()), std::string::npos) << message;
  EXPECT_NE(message.find(s.executable), std::string::npos) << message;
}

TEST(DataPaths, NoCacheAndNoGeneratedDirectoryAsksForOne) {
  TempDir dir;
  const fs::path prefix = make_prefix(dir.path() / "prefix");
  DataSearch s;
  s.executable = (prefix / "bin" / "tilecheck").string();
  EXPECT_NE(error_of(s).find("give --generated DIR"), std::string::npos) << error_of(s);
}

}  // namespace
}  // namespace tc::cli
