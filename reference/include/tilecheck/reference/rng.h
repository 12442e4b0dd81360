// Counter-based random numbers: every value is a pure function of (seed, stream name, index), so
// generation is order-free, parallel-safe and identical on every platform. splitmix64 (Steele, Lea
// and Flood, OOPSLA 2014) mixes the counter; FNV-1a names the stream. Only integer arithmetic is
// used: no std:: distributions, no libm, so no platform can round differently.
#pragma once
#include <cstdint>
#include <string_view>

namespace tc {

constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

constexpr std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return h;
}

class CounterRng {
 public:
  static constexpr std::string_view kName = "splitmix64-ctr-v1";

  CounterRng(std::uint64_t seed, std::string_view stream)
      : key_(splitmix64(seed ^ splitmix64(fnv1a64(stream)))) {}

  std::uint64_t bits(std::uint64_t index) const { return splitmix64(key_ + index * 0xD1B54A32D192ED03ull); }

  // Uniform integer in [lo, hi] (inclusive), by 128-bit multiply-shift (bias below 2^-32).
  std::int64_t integer(std::uint64_t index, std::int64_t lo, std::int64_t hi) const {
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    __extension__ typedef unsigned __int128 u128;
    return lo + static_cast<std::int64_t>((static_cast<u128>(bits(index)) * span) >> 64);
  }

  // Approximately N(0, 1): the Irwin-Hall sum of 12 uniform 32-bit integers, centred, as an exact
  // integer count of 2^-32 (range [-6, 6)). Convert with std::ldexp(value, -32).
  std::int64_t normal_units(std::uint64_t index) const {
    std::int64_t sum = 0;
    for (std::uint64_t i = 0; i < 6; ++i) {
      const std::uint64_t b = bits(index * 6 + i);
      sum += static_cast<std::int64_t>(b & 0xFFFFFFFFu) + static_cast<std::int64_t>(b >> 32);
    }
    return sum - 6 * (std::int64_t{1} << 32);
  }

 private:
  std::uint64_t key_;
};

}  // namespace tc
