// `tilecheck run`: the main job. Until the kernel exists it is the reference's self-check: for a
// set of shapes it checks that the two reference GEMM paths agree within the exact path's bound,
// that packing round-trips, and that the schedule covers every (column, k-tile) exactly once.
#include <chrono>
#include <cstdio>

#include "commands.h"
#include "tilecheck/bound.h"
#include "tilecheck/gemm.h"
#include "tilecheck/marlin_format.h"
#include "tilecheck/rng.h"
#include "tilecheck/schedule.h"

namespace tc::cli {
namespace {

struct SelfCheckCase {
  Shape shape;
  Contract contract;
};

bool check_case(const SelfCheckCase& c, std::uint64_t seed) {
  const Shape& s = c.shape;
  const CounterRng ra(seed, "A"), rw(seed, "W");
  HalfMatrix A(s.M, s.K);
  for (int i = 0; i < s.M * s.K; ++i) A.data()[i] = round_to_half(std::ldexp(double(ra.normal_units(i)), -32));
  F64Matrix W(s.K, s.N);
  for (int i = 0; i < s.K * s.N; ++i) W.data()[i] = std::ldexp(double(rw.normal_units(i)), -32);
  const QuantizedWeights q = quantize(W, s.group);
  const ReferenceOutput exact = reference_gemm(A, q, c.contract, GemmPath::exact);
  const ReferenceOutput eigen = reference_gemm(A, q, c.contract, GemmPath::eigen);
  int disagreements = 0;
  for (int i = 0; i < s.M; ++i)
    for (int j = 0; j < s.N; ++j)
      if (std::fabs(exact.y_exact(i, j) - eigen.y_exact(i, j)) > gamma(s.K, 0x1p-53) * exact.S(i, j))
        ++disagreements;
  const bool packs = unpack_weights(pack_weights(q.codes)) == q.codes &&
                     unpermute_scales(permute_scales(q.scales, s.group), s.group) == q.scales;
  const Schedule schedule = make_schedule(s, choose_config(s), 7);
  std::vector<int> covered(static_cast<size_t>(s.N / schedule.config.tile_n()) * (s.K / schedule.config.tile_k()) * schedule.tile_rows(), 0);
  int tile_row = 0;
  for (const LaunchSchedule& l : schedule.launches) {
    for (const Slice& slice : l.slices)
      for (int k = slice.k_tile_begin; k < slice.k_tile_end; ++k)
        ++covered[(static_cast<size_t>(tile_row + l.chunk_of(slice.column)) * l.n_tiles + l.n_tile_of(slice.column)) * l.k_tiles + k];
    tile_row += l.plan.par;
  }
  const bool covers = std::all_of(covered.begin(), covered.end(), [](int n) { return n == 1; });
  const bool ok = disagreements == 0 && packs && covers;
  std::printf("  %-5s M=%-5d N=%-5d K=%-5d group=%-4d %-6s exact==eigen:%s pack:%s schedule:%s\n",
              ok ? "PASS" : "FAIL", s.M, s.N, s.K, s.group, std::string(name(c.contract)).c_str(),
              disagreements == 0 ? "ok" : "NO", packs ? "ok" : "NO", covers ? "ok" : "NO");
  return ok;
}

}  // namespace

Command add_run(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "run", "Main job. Until the kernel exists: the CPU reference's self-check over a set of shapes");
  auto seed = std::make_shared<std::uint64_t>(1);
  app->add_option("--seed", *seed, "Seed of the self-check inputs")->capture_default_str();
  return {app, [seed] {
            std::printf("tilecheck run: no kernel is built yet; running the CPU reference self-check\n");
            const auto start = std::chrono::steady_clock::now();
            const SelfCheckCase cases[] = {
                {{1, 128, 128, 32}, Contract::fp32},    {{17, 256, 256, 64}, Contract::marlin},
                {{64, 512, 1024, 128}, Contract::fp32}, {{65, 256, 768, -1}, Contract::marlin},
                {{152, 512, 512, -1}, Contract::fp32},
            };
            int failed = 0;
            for (const auto& c : cases) failed += check_case(c, *seed) ? 0 : 1;
            const double seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::printf("self-check: %d of %zu cases passed in %.2f s\n", int(std::size(cases)) - failed,
                        std::size(cases), seconds);
            return failed == 0 ? 0 : 1;
          }};
}

}  // namespace tc::cli
