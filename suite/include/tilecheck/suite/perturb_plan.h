// The perturbation tier's rounds (docs/perturb.md): what one round does around a cell's launch — a
// noise kernel that occupies SMs and shared memory beside it, launched before or after it, on a
// stream of the other priority — drawn from a seed and the cell's name, so that a failing round is
// named by its values and repeated by its seed. Pure values: no CUDA here (the device side is
// tilecheck/suite/noise.h).
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace tc {

enum class NoiseOrder { noise_first, kernel_first };  // which is launched first (and so resident first)
enum class StreamPriority { high, low };              // the kernel's stream; the noise gets the other
const char* name(NoiseOrder o);      // "noise first", "kernel first"
const char* name(StreamPriority p);  // "high", "low"

// One round of one cell. Noise: `noise_sm_percent` % of the device's SMs' worth of blocks, times
// `noise_blocks_per_sm`, of `noise_threads` threads and `noise_smem_kib` KiB of shared memory each,
// spinning on shared and global memory with sleeps drawn from `seed` until the kernel has ended, and
// never longer than `noise_limit_ms`. `seed` also seeds a delay variant's delays (docs/perturb.md).
// With `noise_crowd_warp` 0-3 the noise crowds one warp scheduler instead: in each noise block only the
// warps w with w % 4 == noise_crowd_warp run, an issue-bound loop without memory traffic or sleeps, so
// the kernel's warps that share that scheduler of the SM fall behind the other warps of their block:
// the lagging warp a race between warps needs (-1: the memory noise above).
struct PerturbRound {
  int index = 0;  // 0, 1, ... within its cell
  int noise_sm_percent = 50;
  int noise_blocks_per_sm = 1;
  int noise_threads = 128;
  int noise_smem_kib = 0;
  int noise_crowd_warp = -1;  // -1, or the warp scheduler (0-3) the noise crowds
  NoiseOrder order = NoiseOrder::noise_first;
  StreamPriority priority = StreamPriority::high;
  std::uint32_t seed = 0;
  double noise_limit_ms = 10;
};
bool operator==(const PerturbRound& a, const PerturbRound& b);
inline bool operator!=(const PerturbRound& a, const PerturbRound& b) { return !(a == b); }

// "round 3: noise on 50 % of SMs x 2 blocks of 256 threads, 48 KiB shared each, kernel first,
// kernel stream high priority, seed 0x1a2b3c4d"
std::string describe(const PerturbRound& r);
inline std::ostream& operator<<(std::ostream& out, const PerturbRound& r) { return out << describe(r); }

// The noise's grid on a device of `multiprocessors` SMs: ceil(percent of them) x blocks per SM (none
// for 0 %).
int noise_blocks(const PerturbRound& r, int multiprocessors);

// Throws tc::Error naming the first field out of its range (a round from a file or a worker message).
void check_round(const PerturbRound& r);

// The values a round's noise is drawn from (every round takes one of each).
struct NoiseChoices {
  static constexpr int sm_percent[] = {25, 50, 75, 100};
  static constexpr int blocks_per_sm[] = {1, 2};
  static constexpr int threads[] = {128, 256, 512};
  static constexpr int smem_kib[] = {0, 16, 48, 96};
  // Rounds that crowd a scheduler (every other round, drawn) take 128-thread blocks without shared
  // memory, each holding one running warp. At most 4 a SM: the noise kernel has 32 registers a thread,
  // so 4 blocks take 16 K of an SM's 64 K registers and leave room for a 256-thread block of up to 192
  // (ours: 116-126, ptxas); 8 took 32 K, and on the H200 our kernel's block then waited for the noise to
  // end instead of running beside it (docs/results/perturb-2026-12-02.md).
  static constexpr int crowd_blocks_per_sm[] = {2, 4};
};

// Rounds 0 .. rounds-1 of the cell named `cell`. Order and priority go through their four
// combinations in every four rounds (round i: order i % 2, priority i / 2 % 2), so that even a few
// rounds try each; the noise's size and each round's seed are drawn from (seed, cell, i), so that
// cells differ from each other and a run repeats with its seed. Throws if rounds < 1 or the limit is
// out of range.
std::vector<PerturbRound> plan_rounds(std::uint64_t seed, const std::string& cell, int rounds, double noise_limit_ms);

// Limits of the tier's options, checked where they are given (cli/cmd_perturb.cpp) and here. The
// noise's limit stays below the adaptive watchdog's floor (WatchdogTimes::kFloor, 5 s), so that noise a
// kernel waits for can never by itself make a round a HANG.
constexpr int kMaxRounds = 100000;
constexpr double kMaxNoiseLimitMs = 1000;

}  // namespace tc
