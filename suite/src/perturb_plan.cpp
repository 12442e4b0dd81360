#include "tilecheck/suite/perturb_plan.h"

#include <cmath>
#include <cstdio>

#include "tilecheck/core/error.h"

namespace tc {
namespace {

// splitmix64: one step of a counter-based generator, so that round i of a cell never depends on
// how many values earlier rounds drew.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
  return h;
}

template <typename T, std::size_t N>
T pick(const T (&choices)[N], std::uint64_t draw) {
  return choices[draw % N];
}

}  // namespace

const char* name(NoiseOrder o) { return o == NoiseOrder::noise_first ? "noise first" : "kernel first"; }
const char* name(StreamPriority p) { return p == StreamPriority::high ? "high" : "low"; }

bool operator==(const PerturbRound& a, const PerturbRound& b) {
  return a.index == b.index && a.noise_sm_percent == b.noise_sm_percent &&
         a.noise_blocks_per_sm == b.noise_blocks_per_sm && a.noise_threads == b.noise_threads &&
         a.noise_smem_kib == b.noise_smem_kib && a.noise_crowd_warp == b.noise_crowd_warp && a.order == b.order && a.priority == b.priority && a.seed == b.seed &&
         a.noise_limit_ms == b.noise_limit_ms;
}

std::string describe(const PerturbRound& r) {
  char seed[16];
  std::snprintf(seed, sizeof seed, "0x%08x", static_cast<unsigned>(r.seed));
  const std::string what = r.noise_crowd_warp < 0
                               ? cat(r.noise_smem_kib, " KiB shared each")
                               : cat("crowding warp scheduler ", r.noise_crowd_warp);
  return cat("round ", r.index, ": noise on ", r.noise_sm_percent, " % of SMs x ", r.noise_blocks_per_sm, " block",
             r.noise_blocks_per_sm == 1 ? "" : "s", " of ", r.noise_threads, " threads, ", what, ", ", name(r.order),
             ", kernel stream ", name(r.priority), " priority, seed ", seed);
}

int noise_blocks(const PerturbRound& r, int multiprocessors) {
  return (r.noise_sm_percent * multiprocessors + 99) / 100 * r.noise_blocks_per_sm;
}

void check_round(const PerturbRound& r) {
  require(r.index >= 0 && r.index < kMaxRounds, "perturbation round index ", r.index, " (expected 0 to ",
          kMaxRounds - 1, ")");
  require(r.noise_sm_percent >= 0 && r.noise_sm_percent <= 100, "perturbation round ", r.index,
          ": noise_sm_percent=", r.noise_sm_percent, " (expected 0 to 100)");
  require(r.noise_blocks_per_sm >= 1 && r.noise_blocks_per_sm <= 32, "perturbation round ", r.index,
          ": noise_blocks_per_sm=", r.noise_blocks_per_sm, " (expected 1 to 32)");
  require(r.noise_threads >= 32 && r.noise_threads <= 1024 && r.noise_threads % 32 == 0, "perturbation round ",
          r.index, ": noise_threads=", r.noise_threads, " (expected a multiple of 32 from 32 to 1024)");
  require(r.noise_smem_kib >= 0 && r.noise_smem_kib <= 227, "perturbation round ", r.index, ": noise_smem_kib=",
          r.noise_smem_kib, " (expected 0 to 227, the most one block may ask for)");
  require(r.noise_crowd_warp >= -1 && r.noise_crowd_warp <= 3, "perturbation round ", r.index,
          ": noise_crowd_warp=", r.noise_crowd_warp, " (expected -1, or a warp scheduler 0 to 3)");
  require(r.order == NoiseOrder::noise_first || r.order == NoiseOrder::kernel_first, "perturbation round ",
          r.index, ": order=", static_cast<int>(r.order), " (expected noise first 0 or kernel first 1)");
  require(r.priority == StreamPriority::high || r.priority == StreamPriority::low, "perturbation round ", r.index,
          ": priority=", static_cast<int>(r.priority), " (expected high 0 or low 1)");
  require(std::isfinite(r.noise_limit_ms) && r.noise_limit_ms > 0 && r.noise_limit_ms <= kMaxNoiseLimitMs,
          "perturbation round ", r.index, ": noise_limit_ms=", r.noise_limit_ms, " (expected more than 0, at most ",
          kMaxNoiseLimitMs, ")");
}

std::vector<PerturbRound> plan_rounds(std::uint64_t seed, const std::string& cell, int rounds, double noise_limit_ms) {
  require(rounds >= 1 && rounds <= kMaxRounds, "--rounds ", rounds, " (expected 1 to ", kMaxRounds, ")");
  require(std::isfinite(noise_limit_ms) && noise_limit_ms > 0 && noise_limit_ms <= kMaxNoiseLimitMs,
          "--noise-limit-ms ", noise_limit_ms, " (expected more than 0, at most ", kMaxNoiseLimitMs, ")");
  const std::uint64_t base = mix(seed ^ mix(fnv1a(cell)));
  std::vector<PerturbRound> plan;
  for (int i = 0; i < rounds; ++i) {
    // Independent draws for each value: one counter step per (round, value).
    const auto draw = [&](std::uint64_t value) { return mix(base + 8 * static_cast<std::uint64_t>(i) + value); };
    PerturbRound r;
    r.index = i;
    r.order = i % 2 == 0 ? NoiseOrder::noise_first : NoiseOrder::kernel_first;
    r.priority = i / 2 % 2 == 0 ? StreamPriority::high : StreamPriority::low;
    r.noise_sm_percent = pick(NoiseChoices::sm_percent, draw(0));
    r.noise_blocks_per_sm = pick(NoiseChoices::blocks_per_sm, draw(1));
    r.noise_threads = pick(NoiseChoices::threads, draw(2));
    r.noise_smem_kib = pick(NoiseChoices::smem_kib, draw(3));
    r.seed = static_cast<std::uint32_t>(draw(4) >> 32);
    if (draw(5) >> 63) {  // half of the rounds crowd one warp scheduler instead
      r.noise_blocks_per_sm = pick(NoiseChoices::crowd_blocks_per_sm, draw(6));
      r.noise_threads = 128;
      r.noise_smem_kib = 0;
      r.noise_crowd_warp = static_cast<int>(draw(7) % 4);
    }
    r.noise_limit_ms = noise_limit_ms;
    plan.push_back(r);
  }
  return plan;
}

}  // namespace tc
