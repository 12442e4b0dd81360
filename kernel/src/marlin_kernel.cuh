// The kernel under test: C = A * dequant(B) for 4-bit weights in the Marlin packed format.
//   A: (rows, K) fp16 or bf16 row-major   B: (K/16, 2N) int32 packed   scales: (G, N) fp16 or bf16 permuted
//   C: (rows, N) fp16 or bf16 row-major   zero_points (ZP, uint4): (G, N/8) int32 packed
// Written from the published Marlin algorithm: 256 threads, one block per SM, a striped partition
// of k-tiles (tilecheck/reference/stripe.h), a 6-stage cp.async pipeline (4 on short slices:
// tilecheck/kernel/pipeline_depth.h), ldmatrix and mma.sync m16n8k16 with fp32 accumulation
// (tilecheck/reference/mma_layout.h), a block reduction in shared
// memory, a cross-block reduction ordered by per-column locks, and per-column scales fetched by
// the last block (tilecheck/reference/scale_permutation.h).
//
// The kernel's phases: slice setup, pipeline, main loop, block reduction (thread_block_reduce,
// block_reduce.cuh), global reduction (take_lock, the fp32 partials, release_lock), write-out.
// Beside it: the fp32 tile both reductions and the write-out share (fp32_tile.cuh), dequantization
// (dequantize.cuh) and the uint4 instances' zero points (zero_points.cuh), the launch's arguments
// (kernel_args.h), the lock wait (lock_wait.cuh), the compile-time loops (static_loops.cuh:
// for_each_accumulator walks the accumulator registers). Compile-time variants and mutants:
// variants.h; the delay variants' seam (nothing in other builds): delays.cuh.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_fp16.h>

#include "block_reduce.cuh"
#include "delays.cuh"
#include "dequantize.cuh"
#include "element_type.cuh"
#include "fp32_partials.cuh"
#include "fp32_tile.cuh"
#include "kernel_args.h"
#include "lock_wait.cuh"
#include "ptx.cuh"
#include "static_loops.cuh"
#include "tilecheck/kernel/smem_layout.h"
#include "tilecheck/reference/mma_layout.h"
#include "tilecheck/reference/stripe.h"
#include "variants.h"
#include "write_out.cuh"
#include "zero_points.cuh"

namespace tc::device {

// ZP: uint4 codes with zero points (w = q - z); otherwise uint4b8 (w = q - 8). MAX_STAGES: the
// pipeline's depth at most (the short-slice instances are shallower: kernel_table.h).
template <int M_BLOCKS, int N_BLOCKS, int K_BLOCKS, int GROUP_BLOCKS, bool BF16, bool ZP,
          int MAX_STAGES = kMaxStages>
__global__ void __launch_bounds__(kThreads, 1) marlin_w4a16(const KernelArgs args) {
  using E = Element<BF16>;  // fp16 or bf16 (element_type.cuh)
  using Zeros = ZeroPoints<ZP, N_BLOCKS, K_BLOCKS, GROUP_BLOCKS>;  // zero_points.cuh; empty unless ZP
  constexpr bool kPerColumn = GROUP_BLOCKS < 0;
  constexpr SmemLayout L =
      smem_layout(M_BLOCKS, N_BLOCKS, K_BLOCKS, GROUP_BLOCKS, mutant(kMutScalesInReduceScratch), ZP, MAX_STAGES);
  static_assert(L.tile_bytes <= L.scale_begin, "the epilogue tile must fit in the stage area");
  constexpr int kWarpCols = 16 * N_BLOCKS / mma::kWarpTileCols;  // each owns 64 columns of the tile
  constexpr int kWarpRows = 8 / kWarpCols;          // warps sharing those columns split K
  constexpr int kSubTiles = K_BLOCKS / kWarpRows;   // 16-deep sub-tiles per warp per stage
  static_assert(K_BLOCKS % kWarpRows == 0, "k_blocks must split evenly over the warp rows");
  constexpr int kTileRows = 16 * M_BLOCKS;
  constexpr int kTileCols = 16 * N_BLOCKS;
  constexpr int kAChunks = 2 * K_BLOCKS;            // 16-byte chunks per row of an A stage
  constexpr int kAStage = kTileRows * kAChunks;     // int4 per A stage
  constexpr int kBRow = 8 * N_BLOCKS;               // int4 per 16-deep slab of a B stage
  constexpr int kBStage = K_BLOCKS * kBRow;
  constexpr int kScaleRow = 2 * N_BLOCKS;           // int4 per row of tile scales
  constexpr int kStages = L.stages;
  constexpr int kScaleSlot = L.scale_slot / 16;
  constexpr int kZeroSlot = L.zero_slot / 16;
  if constexpr (ZP && !kPerColumn) static_assert(kZeroSlot == Zeros::kSlot && kZeroSlot <= kThreads, "zero-point slot");
  constexpr int kGroupTiles = GROUP_BLOCKS > K_BLOCKS ? GROUP_BLOCKS / K_BLOCKS : 1;
  // The main loop unrolled over the stages with one or two m-blocks, where it is faster (grouped m1
  // 5-8 % on the large layers, per column m1 and m2 1-2 % with the explicit register cap); m3 and m4
  // unrolled were slower (docs/kernel-speed-diagnosis.md). A stage then refills with k-tiles of one
  // place in their group: kStages % kGroupTiles == 0.
  constexpr bool kUnrollStages = M_BLOCKS <= 2 && kStages % kGroupTiles == 0;
  // The copies of one stage: thread tid takes 16-byte chunks tid, tid + 256, ... of A's and B's
  // stage, so the trip counts are constants and a thread's chunks keep their column (A) or their
  // place in a slab (B) from one to the next.
  constexpr int kAIters = (kAStage + kThreads - 1) / kThreads;
  constexpr int kARowStep = kThreads / kAChunks;  // rows between a thread's A chunks
  constexpr int kBIters = kBStage / kThreads;
  constexpr int kBSlabStep = kThreads / kBRow;    // slabs between a thread's B chunks
  constexpr int kScaleThreads = L.scale_rows * kScaleRow;
  static_assert(kThreads % kAChunks == 0 && kARowStep % 8 == 0, "a thread's A chunks share their swizzle");
  static_assert(kBStage % kThreads == 0 && kThreads % kBRow == 0, "B stages split evenly over the threads");
  static_assert(kScaleThreads <= kThreads, "one scale chunk per thread at most");
  using Tile = Fp32Tile<M_BLOCKS, N_BLOCKS, L.tile_pitch>;  // the fp32 tile and the epilogue's passes over it

  extern __shared__ int4 smem[];
  char* const smem_bytes = reinterpret_cast<char*>(smem);
  int4* const sh_a = reinterpret_cast<int4*>(smem_bytes + L.a_begin);
  int4* const sh_b = reinterpret_cast<int4*>(smem_bytes + L.b_begin);
  int4* const sh_s = reinterpret_cast<int4*>(smem_bytes + L.scale_begin);
  int4* const sh_col_s = reinterpret_cast<int4*>(smem_bytes + L.column_scale_begin);
  [[maybe_unused]] int4* const sh_z = reinterpret_cast<int4*>(smem_bytes + L.zero_begin);
  const Tile sums{reinterpret_cast<float*>(smem_bytes + L.tile_begin)};  // the fp32 tile (fp32_tile.cuh)

  // Thread indices. Divided as int, tid / 8 and tid % 8 carry sign fix-ups (the compiler does not
  // know tid >= 0). The slice setup, the reductions and the epilogue split `utid` instead (unsigned:
  // shifts and masks; 20 % fewer PTX instructions in the per-column m1 kernel, paid on every
  // slice's critical path: 2-5 % faster on 4096²). The main loop keeps int indices (its PTX
  // unchanged) except where it is unrolled (m1, m2): there tid's range, assumed, wins 1-3 %.
  const int tid = threadIdx.x;
  if constexpr (kUnrollStages) __builtin_assume(tid >= 0 && tid < kThreads);
  const int lane = tid % 32, warp = tid / 32;
  const unsigned utid = threadIdx.x;
  const int warp_col = warp % kWarpCols, warp_row = warp / kWarpCols;

  const int k_tiles = args.K / (16 * K_BLOCKS);
  const int n_tiles = args.N / kTileCols;
  const int columns = n_tiles * args.par;
  const int iters = stripe::iters_per_block(k_tiles, columns, gridDim.x, K_BLOCKS, GROUP_BLOCKS);
  const int total = k_tiles * columns;
  const int a_row = args.K / 8;  // int4 per row of A
  const int b_row = args.N / 2;  // int4 per packed row of B: 2N words
  const int s_row = args.N / 8;  // int4 per row of scales, and per row of C
  const int groups = kPerColumn ? 1 : args.K / (16 * GROUP_BLOCKS);
  int* const trace = args.trace ? args.trace + blockIdx.x * (1 + 5 * args.trace_capacity) : nullptr;
  int traced = 0;
  Delays<kDelays> delays;  // the delay variants' lagging warps (delays.cuh); empty otherwise

  float acc[M_BLOCKS][4][2][4];

  int t = iters * blockIdx.x;
  const int end = min(total, t + iters);
  while (t < end) {
    // ---- slice setup: which column, which k-tiles, where in the column's reduction order ----
    const int column = t / k_tiles;
    const int k_begin = t % k_tiles;
    const int n_iters = min(k_tiles - k_begin, end - t);
    const int slice_idx = stripe::slice_index(blockIdx.x, column, k_tiles, iters);
    const int slice_count = stripe::slice_count(column, k_tiles, iters);
    const bool last = slice_idx == slice_count - 1;
    const int chunk = column / n_tiles, n_tile = column % n_tiles;
    const int row0 = chunk * kTileRows;
    const int rows_valid = min(kTileRows, args.rows - row0);
    if (trace && tid == 0) {
      if (traced < args.trace_capacity) {
        int* record = trace + 1 + 5 * traced;
        record[0] = column, record[1] = k_begin, record[2] = k_begin + n_iters;
        record[3] = slice_idx, record[4] = slice_count;
      }
      ++traced;
    }

    // ---- pipeline: copy the slice's next k-tile of A, B (and its group scales) into a stage ----
    // Where this thread's chunks come from is fixed for the slice: each copy walks its own pointer
    // one k-tile on, so the main loop computes no addresses. The copies are predicated on `issue`
    // rather than branched around, which keeps the main loop's body one block for the scheduler
    // (3-10 % faster at M <= 32 on the large layers, measured). A rows past `rows_valid` are
    // zero-filled from row 0's address (nothing is read).
    const int4* a_src[kAIters];
    bool a_copy[kAIters], a_valid[kAIters];
#pragma unroll
    for (int i = 0; i < kAIters; ++i) {
      const int r = int(utid / kAChunks) + i * kARowStep;
      a_copy[i] = r < kTileRows;
      a_valid[i] = r < rows_valid;
      a_src[i] = args.A + ((row0 + (a_valid[i] ? r : 0)) * a_row + int(utid % kAChunks) + k_begin * kAChunks);
    }
    // XOR swizzle: the 8 rows an ldmatrix reads hit distinct banks; a_dst + i * kThreads for chunk i.
    // (From int tid: the main loop's copies use it.)
    const int a_dst = (tid / kAChunks) * kAChunks + ((tid % kAChunks) ^ ((tid / kAChunks) % 8));
    const int b_tile = K_BLOCKS * b_row;  // int4 per k-tile of B
    const int4* b_src[kBIters];
#pragma unroll
    for (int i = 0; i < kBIters; ++i)
      b_src[i] = args.B + ((int(utid / kBRow) + i * kBSlabStep) * b_row + n_tile * kBRow + int(utid % kBRow) + k_begin * b_tile);
    // Group scales: this thread's row of the next fetch; with groups longer than a k-tile it moves
    // on after the last k-tile of each group, otherwise every fetch. `phase` is the fetched k-tile's
    // place in its group: its index in the slice mod kGroupTiles, since every slice starts on a
    // group boundary (stripe::iters_per_block rounds stripes to whole groups).
    static_assert((kGroupTiles & (kGroupTiles - 1)) == 0, "k-tiles per group: a power of two");
    const int first_group = kPerColumn ? 0 : k_begin * K_BLOCKS / GROUP_BLOCKS + int(utid / kScaleRow);
    const int4* s_src = args.scales + (first_group * s_row + n_tile * kScaleRow + int(utid % kScaleRow));
    [[maybe_unused]] int fetch_kt = k_begin;  // the k-tile the next fetch copies (mutant 10 only)
    Zeros zeros(args, k_begin, n_tile, utid);  // grouped zero points: their copies follow the scales'
    const auto fetch_next = [&](int stage, bool issue, [[maybe_unused]] int phase) {
      int4* a_dst_stage = sh_a + stage * kAStage + a_dst;
#pragma unroll
      for (int i = 0; i < kAIters; ++i) {
        cp_async16_if(issue && a_copy[i], a_dst_stage + i * kThreads, a_src[i], a_valid[i]);
        a_src[i] += kAChunks;
      }
      int4* b_dst_stage = sh_b + stage * kBStage + tid;
#pragma unroll
      for (int i = 0; i < kBIters; ++i) {
        cp_async16_if(issue, b_dst_stage + i * kThreads, b_src[i], true);
        b_src[i] += b_tile;
      }
      if constexpr (!kPerColumn) {
        const bool fetch = !mutant(kMutSharedGroupScaleSlot) || phase == 0;
        const int4* src = s_src;
        if constexpr (mutant(kMutGroupOffByOne)) {
          const int group = fetch_kt * K_BLOCKS / GROUP_BLOCKS + tid / kScaleRow;
          src += ((group + 1) % groups - group) * s_row;
        }
        cp_async16_if(issue && fetch && tid < kScaleThreads, sh_s + stage * kScaleSlot + tid, src, true);
        zeros.fetch(args, sh_z + stage * kZeroSlot, tid, issue, phase);
        if constexpr (GROUP_BLOCKS <= K_BLOCKS) {
          s_src += (K_BLOCKS / GROUP_BLOCKS) * s_row;
        } else if (phase == kGroupTiles - 1) {
          s_src += s_row;
        }
      }
      ++fetch_kt;
    };
    const auto fetch_column_scales = [&] {
      if (tid < kScaleRow) cp_async16(sh_col_s + tid, args.scales + n_tile * kScaleRow + tid, true);
    };
    // Wait until at most `pending` of this thread's copy groups are in flight, then publish every
    // thread's landed copies (a wait covers only the thread's own); the mutants wait one group short
    // or skip the barrier.
    const auto wait_stage = [&](auto pending) {
      cp_async_wait<decltype(pending)::value + (mutant(kMutWaitOneTooFew) ? 1 : 0)>();
      if constexpr (!mutant(kMutNoStageBarrier)) __syncthreads();
      delays.at(DelaySite::stage_wait);
    };

    // ---- fragments: what one warp reads of one 16-deep sub-tile, double-buffered in registers ----
    // While a sub-tile's MMAs run, the next sub-tile's fragments are already loading.
    static_assert(kSubTiles % 2 == 0, "the fragment double buffer alternates within a k-tile");
    std::uint32_t frag_a[2][M_BLOCKS][4];  // ldmatrix: A rows of each 16-row block
    std::uint32_t frag_w[2][4];            // packed B words, one per n16 tile
    typename E::Pair frag_s[2][4];  // grouped: per n16 tile t, the scales of this lane's column in n8 blocks 2t, 2t+1
    [[maybe_unused]] std::uint32_t frag_z[2];  // ZP: this lane's zero-point word (zero_points.cuh)
    if constexpr (ZP && kPerColumn) frag_z[0] = frag_z[1] = Zeros::column_word(args, n_tile, warp_col, lane);
    const auto load_fragments = [&](int buf, int stage, int j, int kt_in_slice) {
      const int sub = warp_row + kWarpRows * j;
      const int4* a_src = sh_a + stage * kAStage;
#pragma unroll
      for (int mb = 0; mb < M_BLOCKS; ++mb) {
        const int r = mb * 16 + lane % 16, ch = 2 * sub + lane / 16;
        ldmatrix_x4(frag_a[buf][mb], a_src + r * kAChunks + (ch ^ (r % 8)));
      }
      const int4 packed = sh_b[stage * kBStage + sub * kBRow + warp_col * 32 + lane];
      frag_w[buf][0] = packed.x, frag_w[buf][1] = packed.y, frag_w[buf][2] = packed.z, frag_w[buf][3] = packed.w;
      if constexpr (!kPerColumn) {
        int slot = stage;
        if constexpr (mutant(kMutSharedGroupScaleSlot)) slot = (kt_in_slice - kt_in_slice % kGroupTiles) % kStages;
        const int q = GROUP_BLOCKS < K_BLOCKS ? sub / GROUP_BLOCKS : 0;
        const int4 sc = sh_s[slot * kScaleSlot + q * kScaleRow + 8 * warp_col + lane / 4];
        frag_s[buf][0] = E::scales(sc.x), frag_s[buf][1] = E::scales(sc.y);
        frag_s[buf][2] = E::scales(sc.z), frag_s[buf][3] = E::scales(sc.w);
        if constexpr (ZP) frag_z[buf] = Zeros::word(sh_z + stage * kZeroSlot, q, warp_col, lane);
      }
    };
    // The MMAs of one sub-tile: dequantize each word (and scale it: w^ = RN16((q - 8) * s), or
    // (q - z) * s, before the MMA), then one m16n8k16 per 16-row block and n8 block.
    const auto mma_fragments = [&](int buf) {
#pragma unroll
      for (int tile = 0; tile < 4; ++tile) {
        std::uint32_t b0[2], b1[2];
        if constexpr (ZP) {
          E::dequantize_zp(frag_w[buf][tile], frag_z[buf] >> zero_point_lanes::shift(tile), b0, b1);
        } else {
          E::dequantize(frag_w[buf][tile], b0, b1);
        }
        if constexpr (!kPerColumn) {
          const typename E::Pair s0 = E::low2(frag_s[buf][tile]), s1 = E::high2(frag_s[buf][tile]);
          b0[0] = E::bits(E::mul(E::pair(b0[0]), s0)), b0[1] = E::bits(E::mul(E::pair(b0[1]), s0));
          b1[0] = E::bits(E::mul(E::pair(b1[0]), s1)), b1[1] = E::bits(E::mul(E::pair(b1[1]), s1));
        }
#pragma unroll
        for (int mb = 0; mb < M_BLOCKS; ++mb) {
          E::mma(acc[mb][tile][0], frag_a[buf][mb], b0);
          E::mma(acc[mb][tile][1], frag_a[buf][mb], b1);
        }
      }
    };

    // ---- main loop: k-tile kt of the slice lives in stage kt % kStages ----
    // All kStages stages start in flight. In iteration it, once the warp has loaded the fragments
    // of the k-tile's last sub-tile, one barrier both publishes stage it + 1 and frees stage it,
    // which is refilled with k-tile it + kStages at once; the last sub-tile's MMAs then overlap
    // the next k-tile's first fragment loads. Sums: per accumulator the same MMAs in the same
    // order as one k-tile after another, sub-tile after sub-tile.
    for (int s = 0; s < kStages; ++s) {
      if (s < n_iters) fetch_next(s, true, s % kGroupTiles);
      if (kPerColumn && kFetchOrder == FetchOrder::hoisted && last && s == 0) fetch_column_scales();
      cp_async_commit();
    }
    for_each_accumulator<M_BLOCKS>([&](int mb, int tile, int b, int i) { acc[mb][tile][b][i] = 0.0f; });
    wait_stage(std::integral_constant<int, kStages - 1>{});  // stage 0 has landed
    load_fragments(0, 0, 0, 0);
    [[maybe_unused]] const bool dumping = kAccDump && args.dump != nullptr && column == args.dump_column;
    [[maybe_unused]] const int tile_elems = kTileRows * kTileCols;
    const auto k_tile = [&](int it, int stage, int next_stage, int fetch_phase) {
#pragma unroll
      for (int j = 0; j < kSubTiles; ++j) {
        const int next = (j + 1) % 2;
        if (j + 1 < kSubTiles) {
          load_fragments(next, stage, j + 1, it);
        } else {  // every fragment of this stage is loaded (or loading): the stage can go
          wait_stage(std::integral_constant<int, kStages - 2>{});  // stage it + 1 has landed
          fetch_next(stage, it + kStages < n_iters, fetch_phase);  // k-tile it + kStages, if the slice has it
          cp_async_commit();
          if (it + 1 < n_iters) load_fragments(next, next_stage, 0, it + 1);
        }
        mma_fragments(j % 2);
      }
      if constexpr (kAccDump) {  // this warp row's sums so far, in tile coordinates
        if (dumping) {
          float* d = args.dump + ((k_begin + it) * kWarpRows + warp_row) * tile_elems;
          for_each_accumulator<M_BLOCKS>([&](int mb, int tile, int b, int i) {
            d[(mb * 16 + mma::accumulator_row(lane, i)) * kTileCols + warp_col * mma::kWarpTileCols + tile * 16 +
              b * 8 + mma::accumulator_col(lane, i)] = acc[mb][tile][b][i];
          });
        }
      }
    };
    if constexpr (kUnrollStages) {  // every stage index, and so every shared-memory offset, a constant
      for (int it0 = 0; it0 < n_iters; it0 += kStages) {
        static_for<kStages>([&](auto s) {
          constexpr int stage = decltype(s)::value;
          if (it0 + stage < n_iters) k_tile(it0 + stage, stage, (stage + 1) % kStages, stage % kGroupTiles);
        });
      }
    } else {
      int stage = 0;  // it % kStages, counted without a division
      for (int it = 0; it < n_iters; ++it) {
        const int next_stage = stage + 1 == kStages ? 0 : stage + 1;
        k_tile(it, stage, next_stage, (it + kStages) & (kGroupTiles - 1));
        stage = next_stage;
      }
    }
    cp_async_wait<0>();  // only empty groups remain

    // ---- block reduction (block_reduce.cuh), then the per-column scales ----
    // The seed issue's question is the order of these two: the last block's per-column scale copy
    // issued before thread_block_reduce (upstream: its latency hides behind the reduction), after it
    // (swapped), or with the pipeline's first stage (hoisted); variants.h, docs/case-study-cp-async.md.
    const bool fetch_scales_here = kPerColumn && last && kFetchOrder != FetchOrder::hoisted;
    if (fetch_scales_here && kFetchOrder == FetchOrder::upstream) {
      fetch_column_scales();
      cp_async_commit();
    }
    thread_block_reduce<kWarpRows>(acc, sums, warp_row, warp_col, utid);
    if (fetch_scales_here && kFetchOrder == FetchOrder::swapped) {
      fetch_column_scales();
      cp_async_commit();
    }
    if (fetch_scales_here) {
      if constexpr (!mutant(kMutNoScaleWait)) cp_async_wait<0>();
      __syncthreads();  // a thread's wait covers its own copies; the barrier publishes them
      delays.at(DelaySite::scale_wait);
    }

    // ---- global reduction: blocks sharing the column add in slice order, one at a time ----
    // Between taking the lock and releasing it a block reads the running sum of the blocks before
    // it, adds its own and hands the sum on (or, last, writes C): this is the serial part of a
    // column, so it is one pass over the thread's chunks with every load issued first.
    const bool reduce = slice_count > 1;
    const bool fp32_partials = args.contract == TC_CONTRACT_FP32;
    int* const lock = args.locks + column;
    const auto take_lock = [&] {
      if (!mutant(kMutNoLock) && tid == 0) wait_for_turn(lock, slice_idx, column);
      __syncthreads();
      delays.at(DelaySite::lock_acquire);
    };
    if (reduce && slice_idx > 0) take_lock();
    // fp32 partials (fp32_partials.cuh): the running sum from the block before, ours handed on
    if (reduce && fp32_partials) add_fp32_partials(args, sums, utid, slice_idx, last);

    // ---- write-out (write_out.cuh): marlin's running sum handed on, or the epilogue and C ----
    const bool marlin_sum = reduce && !fp32_partials && slice_idx > 0;
    if (last || (reduce && !fp32_partials))
      write_out<kPerColumn, E>(args, sums, sh_col_s, delays, utid, row0, n_tile, rows_valid, s_row, last, marlin_sum, fp32_partials);
    if constexpr (kAccDump) {  // the running sum after this reduction step
      if (dumping && reduce) {  // (uniform over the block) every thread's additions above land first
        __syncthreads();
        float* d = args.dump + ((k_tiles * kWarpRows) + slice_idx) * tile_elems;
        for (int i = tid; i < tile_elems; i += kThreads) d[i] = *sums.at(i / kTileCols, i % kTileCols);
      }
    }
    const auto release_lock = [&] {
      __syncthreads();  // every store of the running sum is issued before the lock moves
      delays.at(DelaySite::lock_release);
      if (tid == 0) {
        if (last) {
          if constexpr (!mutant(kMutNoLockReset)) atomicExch(lock, 0);  // self-resetting workspace
        } else {
          release_add(lock);
        }
      }
    };
    if (reduce) release_lock();
    if (reduce && fp32_partials && slice_idx > 0) clear_read_partials<Tile>(args, utid);
    if constexpr (!mutant(kMutNoWriteOutBarrier)) __syncthreads();  // the next slice's copies
    t += n_iters;                                                   // overwrite the tile
  }
  if (trace && tid == 0) trace[0] = traced;
}

}  // namespace tc::device
