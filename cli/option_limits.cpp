#include "option_limits.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <thread>

#include "tilecheck/kernel/configs.h"
#include "tilecheck/core/error.h"

namespace tc::cli {
namespace {

// The whole text as an integer, or false ("12x" and "" are not numbers).
bool parse_long(const std::string& text, long long& value) {
  if (text.empty()) return false;
  std::size_t used = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size();
}

std::string range_check(const std::string& text, long long lo, long long hi, const std::string& what) {
  long long v = 0;
  if (!parse_long(text, v)) return cat("'", text, "' is not a whole number (expected ", what, ")");
  if (v < lo || v > hi) return cat(text, " is out of range (expected ", what, ")");
  return "";
}

}  // namespace

int max_m_blocks() {
  int most = 0;
  for (const TileConfig& c : kLibraryConfigs) most = std::max(most, c.m_blocks);
  return most;
}

std::string library_tiles() {
  std::vector<std::string> tiles;
  for (const TileConfig& c : kLibraryConfigs) {
    const std::string tile = cat(c.tile_n(), "x", c.tile_k());
    if (std::find(tiles.begin(), tiles.end(), tile) == tiles.end()) tiles.push_back(tile);
  }
  std::string text;
  for (const std::string& t : tiles) text += (text.empty() ? "" : ", ") + t;
  return text;
}

unsigned max_judge_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

double max_timeout_seconds() { return INT_MAX / 1000.0; }

CLI::Validator grid_size(int min_sms) {
  const std::string what = cat(min_sms, "..", kMaxGridSize, min_sms == 0 ? ", 0 for every multiprocessor" : "",
                               ": the grid sizes the plugin ABI accepts");
  return CLI::Validator([=](std::string& text) { return range_check(text, min_sms, kMaxGridSize, what); },
                        cat("INT in [", min_sms, " - ", kMaxGridSize, "]"));
}

CLI::Validator library_m_blocks() {
  const int most = max_m_blocks();
  return CLI::Validator(
      [=](std::string& text) { return range_check(text, 1, most, cat("1..", most, ", the kernel library's m-blocks")); },
      cat("INT in [1 - ", most, "]"));
}

CLI::Validator library_tile() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        for (const TileConfig& c : kLibraryConfigs)
          if (text == cat(c.tile_n(), "x", c.tile_k())) return "";
        return cat("'", text, "' is not a tile of the kernel library (expected one of ", library_tiles(), ")");
      },
      "NxK");
}

CLI::Validator judge_threads() {
  const unsigned most = max_judge_threads();
  return CLI::Validator(
      [=](std::string& text) {
        return range_check(text, 0, most, cat("0..", most, ": 0 for one per hardware thread, at most this machine's ",
                                              most, " hardware threads"));
      },
      cat("INT in [0 - ", most, "]"));
}

CLI::Validator timeout_seconds(bool zero_allowed) {
  const double most = max_timeout_seconds();
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool number = !text.empty() && end == text.c_str() + text.size() && std::isfinite(v);
        const bool in_range = zero_allowed ? v >= 0 : v > 0;
        if (number && in_range && v <= most) return "";
        char limit[32];
        std::snprintf(limit, sizeof limit, "%.0f", most);
        return cat("'", text, "' is not a number of seconds in ", zero_allowed ? "[0, " : "(0, ", limit,
                   "] (the longest wait poll() can express)", zero_allowed ? "; 0 derives it from the problem" : "");
      },
      "SECONDS");
}

CLI::Validator dimension(bool zero_allowed, int multiple) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        long long v = 0;
        const bool ok = parse_long(text, v) && v <= INT_MAX && (v > 0 ? v % multiple == 0 : zero_allowed && v == 0);
        if (ok) return "";
        const std::string positive = multiple == 1 ? "a positive whole number" : cat("a positive multiple of ", multiple);
        return cat("'", text, "' is not ", zero_allowed ? "0 or " : "", positive, " up to ", INT_MAX);
      },
      "INT");
}

void check_problem_size(long long M, long long N, long long K) {
  const auto check = [](const char* what, long long a, long long b) {
    require(a * b <= INT_MAX, what, " = ", a * b, " elements is more than the plugin ABI's int sizes index (",
            INT_MAX, ")");
  };
  check("M*K", M, K);
  check("K*N", K, N);
  check("M*N", M, N);
}

}  // namespace tc::cli
