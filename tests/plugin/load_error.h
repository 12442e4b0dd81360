// What the loader tests assert on: the message KernelPlugin::load throws for a library, or "loaded".
#pragma once

#include <string>

#include "tilecheck/core/error.h"
#include "tilecheck/plugin/plugin_loader.h"

namespace tc::test_support {

inline std::string load_error(const std::string& path) {
  try {
    KernelPlugin::load(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "loaded";
}

}  // namespace tc::test_support
