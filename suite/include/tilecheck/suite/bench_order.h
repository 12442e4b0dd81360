// The order in which `tilecheck bench` times its kernel libraries in each round: rotated by one
// library per round, so every library goes first equally often (over a multiple of their number of
// rounds). Timed in a fixed order, the library timed first in each round drew the lower median at
// most points where two builds of the same code were compared (run 49: up to 1.5 %).
#pragma once
#include <cstddef>
#include <vector>

namespace tc {

// Library indices 0 .. libraries - 1 in the order round `round` (0-based) times them.
inline std::vector<std::size_t> round_order(std::size_t libraries, int round) {
  std::vector<std::size_t> order(libraries);
  for (std::size_t j = 0; j < libraries; ++j) order[j] = (static_cast<std::size_t>(round) + j) % libraries;
  return order;
}

}  // namespace tc
