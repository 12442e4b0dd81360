// Speed of the comparator on a large layer: 128 x 28672 output, K = 8192, group 128, fp32 contract,
// the 256x64 tile (m4n16k4g8) on 132 SMs. Measures, each on its own:
//   Bounds        tc::output_bounds (the admissible interval of every element, reference/)
//   Judge         tc::compare: verdicts, tiers, tiles, hints
//   Report        tc::report: the text
//   BoundsJudgeReport  the three together: what "judging an output with its bounds and writing the
//                 report" costs (target: <= 0.5 s, docs/results/compare-speed.md)
//   ErrorMap      tc::write_error_map to a temporary file (for information)
// for a passing output (the expected one with +-1 ULP noise in 1% of the elements) and a failing
// one (1% of the elements pushed out of their bound, so the hints run too).
// Run: build/<preset>/compare/compare_speed_bench [--benchmark_repetitions=5]
// Setup (inputs and the float64 Eigen reference GEMM) takes tens of seconds and is not timed.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "tilecheck/compare/compare.h"
#include "tilecheck/compare/errormap.h"
#include "tilecheck/compare/report.h"
#include "tilecheck/reference/rng.h"

namespace {

using namespace tc;

constexpr Shape kShape{128, 28672, 8192, 128};
constexpr int kSms = 132;

struct Data {
  Expectation e;
  HalfMatrix passing, failing;
};

const Data& data() {
  static const std::unique_ptr<Data> d = [] {
    const auto start = std::chrono::steady_clock::now();
    const CounterRng ra(7, "A"), rw(7, "W"), rn(7, "noise");
    HalfMatrix A(kShape.M, kShape.K);
    for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = round_to_half(std::ldexp(double(ra.normal_units(i)), -32));
    QuantizedWeights w;  // quantize() of a normal matrix, without materialising 235M doubles
    w.group = kShape.group;
    w.codes.resize(kShape.K, kShape.N);
    w.scales.resize(kShape.K / kShape.group, kShape.N);
    for (Eigen::Index i = 0; i < w.codes.size(); ++i) w.codes.data()[i] = static_cast<std::uint8_t>(rw.integer(i, 1, 15));
    for (Eigen::Index i = 0; i < w.scales.size(); ++i)
      w.scales.data()[i] = round_to_half(0.2 + 0.1 * std::ldexp(double(rw.bits(~std::uint64_t(i)) >> 11), -53));
    const Schedule s = make_schedule(kShape, choose_config(kShape), kSms);
    ReferenceOutput ref = reference_gemm(A, w, Contract::fp32, GemmPath::eigen);
    auto out = std::make_unique<Data>();
    out->e = make_expectation(std::move(A), std::move(w), Contract::fp32, std::move(ref), s,
                            CaseInfo{"speed_m128_n28672_k8192_g128_fp32", "normal", 7, "compare_speed_bench", "fp16-uint4b8"});
    out->passing = out->failing = out->e.ref.expected;
    for (Eigen::Index i = 0; i < out->passing.size(); ++i) {
      const std::uint64_t r = rn.bits(i) % 100;
      const int row = static_cast<int>(i / kShape.N), col = static_cast<int>(i % kShape.N);
      const half_bits x = out->e.ref.expected.data()[i];
      if (r == 0 && is_finite(x)) {
        const Admissible adm = out->e.bounds.at(row, col);
        const std::int32_t k = std::clamp(half_key(x) + (rn.bits(i + 1) % 2 ? 1 : -1), adm.key_lo, adm.key_hi);
        out->passing.data()[i] = half_from_key(k);
        out->failing.data()[i] = half_from_key(std::min(adm.key_hi + 2, kHalfInfKey - 1));
      }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("setup (inputs, Eigen reference, bounds): %.1f s; config %s, %d x %d tiles\n", seconds,
                name(s.config).c_str(), out->e.grid.rows, out->e.grid.cols);
    return out;
  }();
  return *d;
}

const HalfMatrix& output(const Data& d, int which) { return which == 0 ? d.passing : d.failing; }

void Bounds(benchmark::State& state) {
  const Data& d = data();
  for (auto _ : state)
    benchmark::DoNotOptimize(output_bounds(d.e.A, d.e.w, d.e.ref.y_exact, d.e.ref.S, d.e.contract, d.e.schedule));
}

void Judge(benchmark::State& state) {
  const Data& d = data();
  for (auto _ : state) benchmark::DoNotOptimize(compare(d.e, output(d, int(state.range(0)))));
}

void Report(benchmark::State& state) {
  const Data& d = data();
  const Comparison c = compare(d.e, output(d, int(state.range(0))));
  for (auto _ : state) benchmark::DoNotOptimize(report(d.e, c));
  state.counters["chars"] = static_cast<double>(report(d.e, c).size());
}

void BoundsJudgeReport(benchmark::State& state) {
  const Data& d = data();
  for (auto _ : state) {
    OutputBounds b = output_bounds(d.e.A, d.e.w, d.e.ref.y_exact, d.e.ref.S, d.e.contract, d.e.schedule);
    benchmark::DoNotOptimize(b);  // non-const: the const-reference overload is deprecated
    const Comparison c = compare(d.e, output(d, int(state.range(0))));
    benchmark::DoNotOptimize(report(d.e, c));
  }
}

void ErrorMap(benchmark::State& state) {
  const Data& d = data();
  const Comparison c = compare(d.e, output(d, int(state.range(0))));
  const std::string path =
      (std::filesystem::temp_directory_path() / ("tc_compare_speed_" + std::to_string(getpid()) + ".errmap.h5")).string();
  for (auto _ : state) write_error_map(path, d.e, c);
  state.counters["MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
  std::filesystem::remove(path);
}

// Arg 0: passing output, 1: failing output.
BENCHMARK(Bounds)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Judge)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(Report)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BoundsJudgeReport)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ErrorMap)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
