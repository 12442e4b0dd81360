// fp16_reduction: the cross-block reduction done at fp16 precision, tested bit for bit. For an element
// of a tile that several blocks sum (its slices, in reduction order), each slice's sum s_b comes
// from the inputs' k-chunk sums, and two reductions are replayed:
//   fp16 partials  p_1 = RN16(s_1), p_b = RN16(s_b + p_{b-1}), the writer adds s_n + p_{n-1}:
//                  partial sums stored in fp16 where the contract keeps them in fp32;
//   fp16 adds      p_1 = RN16(s_1), p_b = RN16(RN16(s_b) + p_{b-1}), the writer adds RN16(s_n) + p_{n-1}:
//                  each block rounds its own fp32 sum before adding the partial it reads (vLLM #5793).
// The writer's sum goes through the contract's epilogue. A hypothesis explains an element when it
// gives got exactly and the contract does not. The errors of these bugs are a rounding or two, often
// within the bound, so the rule reads the elements that differ at all: failing, or not exact.

#include <set>
#include <utility>

#include "hints_internal.h"
#include "tilecheck/reference/contract.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/fp16.h"
#include "tilecheck/reference/numerics.h"

namespace tc::hints {
namespace {

constexpr size_t kReductionSamples = 64;

enum class Reduction { fp16_partials, fp16_adds };

// The writer's fp32 sum under the hypothesis, from the slices' sums in reduction order.
double replay(Reduction r, const std::vector<double>& sums) {
  double partial = half_to_double(round_to_half(sums.front()));
  for (size_t b = 1; b < sums.size(); ++b) {
    const double own = r == Reduction::fp16_adds ? half_to_double(round_to_half(sums[b])) : sums[b];
    const double sum = own + partial;
    if (b + 1 == sums.size()) return sum;
    partial = half_to_double(round_to_half(sum));
  }
  return partial;
}

// The elements that differ from expected (failing, or not bit for bit equal) in tiles with several
// slices, spread over the output.
std::vector<Element> differing_in_shared_tiles(const Expectation& e, const Comparison& c) {
  std::vector<Element> all;
  for (int i = 0; i < c.M; ++i)
    for (int j = 0; j < c.N; ++j)
      if ((c.verdict(i, j) != static_cast<std::uint8_t>(Verdict::pass) ||
           c.mark(i, j) != static_cast<std::uint8_t>(Mark::exact)) &&
          e.grid.at(i, j).slice_count() > 1)
        all.push_back({i, j});
  if (all.size() <= kReductionSamples) return all;
  std::vector<Element> out;
  for (size_t k = 0; k < kReductionSamples; ++k) out.push_back(all[k * all.size() / kReductionSamples]);
  return out;
}

}  // namespace

void fp16_reduction(const Expectation& e, const Comparison& c, std::vector<Hint>& out) {
  if (e.numerics.schedule != ScheduleKind::model) return;  // the slices must be known
  const std::vector<Element> sample = differing_in_shared_tiles(e, c);
  if (sample.size() < 3) return;
  const Contract epilogue_order = epilogue_contract(e.numerics.numerics.epilogue);
  const bool fp32_partials = e.numerics.numerics.partials == Partials::fp32;
  const int kb = e.schedule.config.k_blocks;
  size_t explained[2] = {0, 0};
  std::set<std::pair<int, int>> tiles[2];  // (tile row, tile column) of the explained elements
  const TileInfo* example[2] = {nullptr, nullptr};
  size_t usable = 0;
  for (const Element& x : sample) {
    const half_bits got = c.got(x.first, x.second), expected = e.ref.expected(x.first, x.second);
    if (got == expected) continue;  // differs only in the guard band's sense: nothing to replay
    const std::vector<double> cs = chunk_sums(e, x.first, x.second);
    std::vector<double> sums;
    for (const Slice& s : e.grid.at(x.first, x.second).slices) sums.push_back(slice_sum(cs, s, kb));
    const half_bits scale = e.w.scales(0, x.second);
    ++usable;
    for (const Reduction r : {Reduction::fp16_partials, Reduction::fp16_adds}) {
      if (r == Reduction::fp16_partials && !fp32_partials) continue;  // that is the contract itself
      const double acc = replay(r, sums);
      const half_bits hypothesis = epilogue(acc, acc * half_to_double(scale), scale, e.w.group, epilogue_order);
      if (hypothesis != got) continue;
      const TileInfo& tile = e.grid.at(x.first, x.second);
      ++explained[int(r)];
      tiles[int(r)].insert({tile.tile_row, tile.tile_col});
      if (example[int(r)] == nullptr) example[int(r)] = &tile;
    }
  }
  if (usable < 3) return;
  const int best = explained[1] >= explained[0] ? 1 : 0;
  if (explained[best] < needed(usable)) return;
  out.push_back(
      {HintKind::fp16_reduction,
       cat("got = the cross-block reduction replayed with ",
           best == 1 ? "each block's own fp32 sum rounded to fp16 before it adds the partial it reads"
                     : "the partial sums stored in fp16 (the contract keeps them in fp32)",
           ", bit for bit, for ", explained[best], " of ", usable, " sampled differing elements, in ",
           tiles[best].size(), " tile(s) that several blocks sum (e.g. tile (", example[best]->tile_row, ", ",
           example[best]->tile_col, "): rows ", example[best]->row0, "-", example[best]->row0 + example[best]->rows - 1,
           ", columns ", example[best]->col0, "-", example[best]->col0 + example[best]->cols - 1, ", ",
           example[best]->slice_count(), " slices) -> reduction precision: the partials are ",
           best == 1 ? "added in fp16 instead of fp32" : "rounded to fp16 between blocks")});
}

}  // namespace tc::hints
