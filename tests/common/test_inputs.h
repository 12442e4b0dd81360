// Random test inputs for the reference tests, from the counter-based RNG only.
#pragma once
#include <cmath>
#include <cstdint>

#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/quantize.h"
#include "tilecheck/reference/rng.h"

namespace tc::test_support {

inline HalfMatrix normal_half(int rows, int cols, std::uint64_t seed, const char* stream) {
  const CounterRng rng(seed, stream);
  HalfMatrix out(rows, cols);
  for (Eigen::Index i = 0; i < out.size(); ++i)
    out.data()[i] = round_to_half(std::ldexp(double(rng.normal_units(i)), -32));
  return out;
}

inline QuantizedWeights normal_weights(int K, int N, int group, std::uint64_t seed) {
  const CounterRng rng(seed, "W");
  F64Matrix W(K, N);
  for (Eigen::Index i = 0; i < W.size(); ++i) W.data()[i] = std::ldexp(double(rng.normal_units(i)), -32);
  return quantize(W, group);
}

}  // namespace tc::test_support
