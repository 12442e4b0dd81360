// What the kit's GPU tests share: each kit library's path, a fresh scratch directory per test, and
// the victim's printing and test-name suffix.
#pragma once
#include <filesystem>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "misbehaving_plugin.h"

namespace tc_kit {

inline void PrintTo(const Victim& v, std::ostream* out) { *out << v.variant; }

// "kit-wrong-tile" -> "wrong_tile": the library's file name part and the test-name suffix.
inline std::string behaviour_name(const Victim& v) {
  std::string name = v.variant + 4;
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
}

inline std::string library(const Victim& v) { return std::string(TC_KIT_DIR) + "/libtc_kit_" + behaviour_name(v) + ".so"; }

inline std::string victim_name(const ::testing::TestParamInfo<Victim>& info) { return "kit_" + behaviour_name(info.param); }

// An empty directory of the test's own under the test temp directory.
inline std::filesystem::path scratch(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / ("tc_kit_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace tc_kit
