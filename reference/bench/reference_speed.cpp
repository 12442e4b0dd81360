// Speed of the reference's Eigen float64 path on one large layer: prints GFLOP/s of
// reference_gemm(..., GemmPath::eigen) (y*, S and the expected output; 2 GEMMs counted).
//   reference_speed [M K N]   default 16 8192 28672
// scripts/bench-reference.py runs it next to a NumPy float64 matmul of the same shape.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "tilecheck/reference/gemm.h"
#include "tilecheck/reference/rng.h"

int main(int argc, char** argv) {
  const int M = argc > 1 ? std::atoi(argv[1]) : 16;
  const int K = argc > 2 ? std::atoi(argv[2]) : 8192;
  const int N = argc > 3 ? std::atoi(argv[3]) : 28672;
  const tc::CounterRng ra(1, "A"), rq(1, "codes");
  tc::HalfMatrix A(M, K);
  for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = tc::round_to_half(std::ldexp(double(ra.normal_units(i)), -32));
  tc::QuantizedWeights w;
  w.group = 128;
  w.codes.resize(K, N);
  for (Eigen::Index i = 0; i < w.codes.size(); ++i) w.codes.data()[i] = static_cast<std::uint8_t>(rq.integer(i, 0, 15));
  w.scales = tc::HalfMatrix::Constant(K / 128, N, tc::round_to_half(0.01));
  double best = 1e30;
  for (int r = 0; r < 3; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const tc::ReferenceOutput out = tc::reference_gemm(A, w, tc::Contract::fp32, tc::GemmPath::eigen);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (out.expected.size() == 0) return 1;
  }
  const double flops = 2.0 * 2.0 * M * double(K) * N;  // y* and S
  std::printf("eigen reference_gemm M=%d K=%d N=%d: %.3f s (best of 3), %.1f GFLOP/s (float64, 2 GEMMs)\n", M, K,
              N, best, flops / best / 1e9);
  return 0;
}
