// Speed of the reference GEMM on one large layer: y*, S and the expected output of reference_gemm.
//   reference_speed [--path exact|float64|scalar] [M K N]     default exact 16 8192 28672, best of 3
//   reference_speed --serve [M K N]    one run per line read from stdin ("exact", "float64" or
//                                      "scalar"); prints "<path> <wall s> <cpu s> <fixed-point elements>
//                                      <simd>" (TC_REFERENCE_SIMD picks the register tile, gemm.h)
// scripts/bench-reference.py drives --serve, interleaving its rounds with NumPy float64 matmuls.
// Inputs: A ~ N(0, 1) in fp16, uniform codes, group 128, scales 0.01 to 0.02 (varied, as a real layer's).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <iostream>
#include <string>

#include "tilecheck/reference/gemm.h"
#include "tilecheck/reference/rng.h"

namespace {

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

bool parse_path(const std::string& text, tc::GemmPath& path) {
  if (text == "exact") path = tc::GemmPath::exact;
  else if (text == "float64") path = tc::GemmPath::float64;
  else if (text == "scalar") path = tc::GemmPath::scalar;
  else return false;
  return true;
}

struct Timing {
  double wall, cpu;
  long long fixed_point;
  const char* simd;
};

Timing run(const tc::HalfMatrix& A, const tc::QuantizedWeights& w, tc::GemmPath path) {
  tc::GemmCounts counts;
  const double cpu0 = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  const tc::ReferenceOutput out = tc::reference_gemm(A, w, tc::Contract::fp32, path, &counts);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (out.expected.size() == 0) std::abort();
  return {wall, process_cpu_seconds() - cpu0, static_cast<long long>(counts.fixed_point_elements), counts.simd};
}

}  // namespace

int main(int argc, char** argv) {
  tc::GemmPath path = tc::GemmPath::exact;
  bool serve = false;
  int shape[3] = {16, 8192, 28672}, given = 0;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--serve") {
      serve = true;
    } else if (arg == "--path" && a + 1 < argc) {
      if (!parse_path(argv[++a], path)) {
        std::fprintf(stderr, "reference_speed: unknown path '%s' (expected exact, float64 or scalar)\n", argv[a]);
        return 2;
      }
    } else if (given < 3 && std::atoi(arg.c_str()) > 0) {
      shape[given++] = std::atoi(arg.c_str());
    } else {
      std::fprintf(stderr, "reference_speed: unexpected argument '%s' (usage: [--serve | --path P] [M K N])\n",
                   arg.c_str());
      return 2;
    }
  }
  const int M = shape[0], K = shape[1], N = shape[2];
  const tc::CounterRng ra(1, "A"), rq(1, "codes"), rs(1, "scales");
  tc::HalfMatrix A(M, K);
  for (Eigen::Index i = 0; i < A.size(); ++i)
    A.data()[i] = tc::round_to_half(std::ldexp(double(ra.normal_units(i)), -32));
  tc::QuantizedWeights w;
  w.group = 128;
  w.codes.resize(K, N);
  for (Eigen::Index i = 0; i < w.codes.size(); ++i) w.codes.data()[i] = static_cast<std::uint8_t>(rq.integer(i, 0, 15));
  w.scales.resize(K / 128, N);
  for (Eigen::Index i = 0; i < w.scales.size(); ++i)
    w.scales.data()[i] = tc::round_to_half(0.01 * (1.0 + double(rs.integer(i, 0, 1023)) / 1024.0));

  if (serve) {
    std::string line;
    while (std::getline(std::cin, line)) {
      if (!parse_path(line, path)) {
        std::printf("error unknown path '%s'\n", line.c_str());
      } else {
        const Timing t = run(A, w, path);
        std::printf("%s %.4f %.4f %lld %s\n", line.c_str(), t.wall, t.cpu, t.fixed_point, t.simd);
      }
      std::fflush(stdout);
    }
    return 0;
  }
  Timing best{1e30, 0, 0, ""};
  for (int r = 0; r < 3; ++r) {
    const Timing t = run(A, w, path);
    if (t.wall < best.wall) best = t;
  }
  const double flops = 2.0 * M * double(K) * N;  // one GEMM's worth
  std::printf("reference_gemm M=%d K=%d N=%d: %.3f s (best of 3, %.3f s CPU), %.1f GFLOP/s (one GEMM's 2MNK), "
              "%lld elements in fixed point, %s tile\n",
              M, K, N, best.wall, best.cpu, flops / best.wall / 1e9, best.fixed_point, best.simd);
  return 0;
}
