// Errors at library boundaries: every tilecheck C++ library throws tc::Error with a message that
// names the offending value and what was expected. Libraries never exit; only cli/ turns errors into
// exit codes. (The kernels' C ABI, tilecheck/plugin/plugin.h, returns status codes instead.)
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace tc {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Builds a message from streamable parts: throw Error(cat("K=", K, " is not a multiple of 16")).
template <typename... Parts>
std::string cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

template <typename... Parts>
void require(bool ok, const Parts&... parts) {
  if (!ok) throw Error(cat(parts...));
}

}  // namespace tc
