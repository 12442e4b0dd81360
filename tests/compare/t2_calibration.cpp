// Calibration of the statistics tier (T2): runs the kernel model of synthetic.h correct, with fp16
// accumulation, and with a truncating epilogue, over shapes, grid sizes, both contracts and two
// input distributions, and prints T1's failure share and T2's statistics for each. The thresholds in
// tilecheck/compare/compare.h and their justification in docs/numerics.md ("Statistics tier (T2)") come
// from this table. Not a test: run build/<preset>/tests/compare/compare_t2_calibration (about 3 minutes).
#include <algorithm>
#include <cstdio>

#include "synthetic.h"
#include "tilecheck/compare/compare.h"

namespace {

using namespace tc;
using namespace tc::synthetic;

struct Worst {
  double rms = 0, bias = 0;
  void add(const Comparison& c) {
    rms = std::max(rms, c.stats.rms);
    bias = std::max({bias, std::fabs(c.stats.bias), std::fabs(c.stats.bias_toward_zero)});
  }
};

}  // namespace

int main() {
  struct Case {
    Shape shape;
    TileConfig config;
  };
  const Case cases[] = {
      {{16, 512, 256, 32}, {1, 8, 8, 2}},      {{16, 512, 1024, 128}, {1, 8, 8, 8}},
      {{16, 512, 4096, 128}, {1, 8, 8, 8}},    {{64, 512, 1024, -1}, {4, 16, 4, -1}},
      {{16, 512, 4096, -1}, {1, 8, 8, -1}},    {{32, 512, 2048, 64}, {2, 16, 4, 4}},
  };
  Worst correct;
  std::printf("%-50s %-34s | %-24s | %s\n", "case", "correct: T1 fails, rms, |bias|", "fp16 accumulation: T1, rms",
              "truncating epilogue: T1, toward0, rms");
  for (const char* distribution : {"normal", "positive"}) {
    for (const Case& c : cases) {
      for (Contract contract : {Contract::fp32, Contract::marlin}) {
        for (int sms : {1, 5, 24, 96}) {
          const Problem p{c.shape, c.config, sms, contract, distribution, 3};
          const Expectation e = synthetic_expectation(p);
          const Comparison ok = compare(e, model_kernel(e));
          Faults f16, rz;
          f16.fp16_accumulation = true;
          rz.epilogue_toward_zero = true;
          const Comparison bad = compare(e, model_kernel(e, f16));
          const Comparison z = compare(e, model_kernel(e, rz));
          correct.add(ok);
          const auto pct = [](const Comparison& x) { return 100.0 * x.counts.mismatched() / x.counts.elements; };
          std::printf("%-50s %5.1f%% %6.3f %6.3f %-12s | %5.1f%% %6.3f %-10s | %5.1f%% %+6.3f %6.3f %s\n",
                      name(p).c_str(), pct(ok), ok.stats.rms, std::max(std::fabs(ok.stats.bias), std::fabs(ok.stats.bias_toward_zero)),
                      ok.passed() ? "pass" : "FAIL", pct(bad), bad.stats.rms, bad.passed() ? "missed" : "caught", pct(z),
                      z.stats.bias_toward_zero, z.stats.rms, z.passed() ? "missed" : "caught");
          std::fflush(stdout);
        }
      }
    }
  }
  std::printf("correct model, worst over all cases: rms %.3f, |bias| %.3f\n", correct.rms, correct.bias);
}
