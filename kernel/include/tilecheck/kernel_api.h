// Extras of our own kernel beyond the plugin ABI (tilecheck/plugin.h), for the GPU tests.
#pragma once
#include <cstddef>

#include "tilecheck/plugin.h"

extern "C" {
// tc_plugin_run, plus a record of what every thread block processed: for launch l and block b,
// trace[(l * sms + b) * (1 + 5 * capacity)] holds the number of slices, followed by up to
// `capacity` records (column, k_tile_begin, k_tile_end, slice_index, slice_count). `trace` is a
// device pointer sized for every launch of the problem.
TC_PLUGIN_EXPORT tc_status tc_kernel_run_traced(const tc_problem* problem, int* trace, int trace_capacity, char* message,
                               size_t message_capacity);
typedef tc_status (*tc_kernel_run_traced_fn)(const tc_problem*, int*, int, char*, size_t);
}
