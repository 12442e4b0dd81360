// Optional entry points beyond the plugin ABI (tilecheck/plugin/plugin.h), for debugging: a traced
// run (the GPU tests' schedule check) and an accumulator dump (tilecheck tiles --bisect). Our kernel
// exports them; the loader (plugin_loader.h) finds them when a library does.
#pragma once
#include <cstddef>

#include "tilecheck/plugin/plugin.h"

extern "C" {
// tc_plugin_run, plus a record of what every thread block processed: for launch l and block b,
// trace[(l * sms + b) * (1 + 5 * capacity)] holds the number of slices, followed by up to
// `capacity` records (column, k_tile_begin, k_tile_end, slice_index, slice_count). `trace` is a
// device pointer sized for every launch of the problem.
TC_PLUGIN_EXPORT tc_status tc_kernel_run_traced(const tc_problem* problem, int* trace, int trace_capacity, char* message,
                               size_t message_capacity);
typedef tc_status (*tc_kernel_run_traced_fn)(const tc_problem*, int*, int, char*, size_t);

// The dump variant only (libtc_kernel_upstream_dump.so, built with TC_ACC_DUMP): tc_plugin_run,
// recording for the output tile of schedule column `column` of launch `launch` (tc::Schedule):
// dump[(kt * warp_rows + wr) * tile_elems + r * tile_n + c] = warp row wr's fp32 sum, after k-tile
// kt, for tile element (r, c) (warp_rows = 32 / n_blocks, tile_elems = tile_m * tile_n), then
// dump[(k_tiles * warp_rows + j) * tile_elems + ...] = the running sum after reduction step j.
// `dump` is a device pointer of (k_tiles * warp_rows + slice_count) * tile_elems floats.
TC_PLUGIN_EXPORT tc_status tc_kernel_run_dump(const tc_problem* problem, int launch, int column, float* dump,
                                              char* message, size_t message_capacity);
typedef tc_status (*tc_kernel_run_dump_fn)(const tc_problem*, int, int, float*, char*, size_t);
}
