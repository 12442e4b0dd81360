// Shared-memory layout of the kernel, as plain constexpr arithmetic shared by the device code and
// the host-side static check (tests/kernel/smem_layout_test.cpp), which prints every region of
// every configuration and fails if two regions that can be live at the same time overlap.
//
//   [ A stages | B stages | scale slots | zero-point slots ]   the epilogue tile (fp32, the block's
//   [ epilogue tile ...        ]                                 sums) reuses the stage area once the
//                                                                pipeline drains
// Zero-point slots exist only in the uint4 instances with grouped scales (one per stage, like the
// group scales); per-column zero points are one 32-bit word per thread, held in a register.
#pragma once

#include "tilecheck/reference/host_device.h"

namespace tc {

constexpr int kThreads = 256;  // 8 warps
// cp.async pipeline depth: as many stages as fit in kStageBudget, at most kMaxStages (all but one
// in flight while one is read). TC_MAX_STAGES is a build option for measuring other depths.
#ifndef TC_MAX_STAGES
#define TC_MAX_STAGES 6
#endif
constexpr int kMaxStages = TC_MAX_STAGES;
constexpr int kStageBudget = 200 * 1024;  // bytes: under the 227 KiB one block may have on sm_90

// Phases of one slice, for liveness.
enum SmemPhase : unsigned {
  kPhaseMainLoop = 1u,      // cp.async stages in flight and read
  kPhaseBlockReduce = 2u,   // warps add their accumulators into the epilogue tile
  kPhaseGlobalReduce = 4u,  // partial sums from and to other blocks
  kPhaseWriteOut = 8u,      // the tile is converted and written to C
};

struct SmemRegion {
  const char* name;
  int begin;        // bytes
  int end;
  unsigned phases;  // SmemPhase bits in which the region holds live data
  int buffer;       // regions with the same buffer id are one buffer used in sequence
};

struct SmemLayout {
  int a_stage = 0, b_stage = 0;      // bytes per pipeline stage
  int stages = 0;                    // pipeline depth
  int scale_rows = 0;                // scale rows per stage (grouped) or 1 (per column)
  int scale_slot = 0;                // bytes per scale slot
  int a_begin = 0, b_begin = 0, scale_begin = 0, total = 0;
  int tile_begin = 0, tile_bytes = 0;  // fp32 epilogue tile: reduction scratch and output staging
  int tile_pitch = 0;                  // floats from one row of the tile to the next (padded)
  int column_scale_begin = 0;          // per-column scale slot
  int zero_slot = 0;                   // bytes per zero-point slot (uint4, grouped; else 0)
  int zero_begin = 0;                  // first zero-point slot (= the end of the scale slots)
};

// m, n, k: m_blocks, n_blocks, k_blocks; g: group_blocks (-1 per column). `scales_in_scratch`
// reproduces the seed's suspected layout (mutant 1): the per-column slot inside the epilogue tile.
// `zero_points`: the uint4 instances, which copy each stage's group zero points (4 bits a column,
// as many rows as the scales) into a slot of their own after the scale slots. `max_stages`: a
// shallower pipeline than kMaxStages (the short-slice instances, tilecheck/kernel/pipeline_depth.h).
TC_HOST_DEVICE constexpr SmemLayout smem_layout(int m, int n, int k, int g, bool scales_in_scratch = false,
                                                bool zero_points = false, int max_stages = kMaxStages) {
  SmemLayout l{};
  l.a_stage = 16 * m * 16 * k * 2;
  l.b_stage = 16 * k * 16 * n / 2;
  l.scale_rows = (g > 0 && g < k) ? k / g : 1;
  l.scale_slot = l.scale_rows * 16 * n * 2;
  l.zero_slot = zero_points && g > 0 ? l.scale_rows * 16 * n / 2 : 0;
  const int per_stage = l.a_stage + l.b_stage + (g > 0 ? l.scale_slot : 0) + l.zero_slot;
  l.stages = kStageBudget / per_stage < max_stages ? kStageBudget / per_stage : max_stages;
  l.a_begin = 0;
  l.b_begin = l.stages * l.a_stage;
  l.scale_begin = l.b_begin + l.stages * l.b_stage;
  const int scale_slots = g > 0 ? l.stages : 1;
  l.zero_begin = l.scale_begin + scale_slots * l.scale_slot;
  l.total = l.zero_begin + l.stages * l.zero_slot;
  l.tile_begin = 0;
  l.tile_pitch = 16 * n + 8;  // 32 bytes of padding: consecutive rows start in different banks
  l.tile_bytes = 16 * m * l.tile_pitch * 4;
  l.column_scale_begin = scales_in_scratch ? 0 : l.scale_begin;
  return l;
}

// The regions of a layout; returns how many were written to `out` (at most 6). Host only: the
// static check reads them, the kernel only needs the offsets.
inline int smem_regions(const SmemLayout& l, int g, SmemRegion* out) {
  int n = 0;
  const unsigned epilogue = kPhaseBlockReduce | kPhaseGlobalReduce | kPhaseWriteOut;
  out[n++] = {"A stages", l.a_begin, l.b_begin, kPhaseMainLoop, 0};
  out[n++] = {"B stages", l.b_begin, l.scale_begin, kPhaseMainLoop, 1};
  if (g > 0) {
    out[n++] = {"group scale slots", l.scale_begin, l.zero_begin, kPhaseMainLoop, 2};
    if (l.zero_slot > 0) out[n++] = {"group zero-point slots", l.zero_begin, l.total, kPhaseMainLoop, 4};
  } else {
    // Live from its fetch (hoisted: with the first stage) until the write-out reads it.
    out[n++] = {"column scale slot", l.column_scale_begin, l.column_scale_begin + l.scale_slot,
                kPhaseMainLoop | epilogue, 2};
  }
  out[n++] = {"reduction scratch", l.tile_begin, l.tile_begin + l.tile_bytes,
              kPhaseBlockReduce | kPhaseGlobalReduce, 3};
  out[n++] = {"output staging", l.tile_begin, l.tile_begin + l.tile_bytes, kPhaseWriteOut, 3};
  return n;
}

}  // namespace tc
