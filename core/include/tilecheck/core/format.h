// printf-style formatting into a std::string, for messages with fixed-width numbers (cat, in
// error.h, writes values as streams do). Up to 511 characters; longer text is cut.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>

namespace tc {

inline std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
inline std::string format(const char* fmt, ...) {
  char buffer[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  return buffer;
}

}  // namespace tc
