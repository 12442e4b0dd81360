// The device side of the misbehaving kit (misbehaving_kernels.cu): launches that fault or never end,
// a write that spoils one tile of a correct output, a lock left dirty, a read of scratch before
// it is written, and a write one row past the output.
#pragma once
#include <cstddef>

#include "tilecheck/plugin/plugin.h"

tc_status tc_kit_launch_trap(void* stream, char* message, size_t capacity);
tc_status tc_kit_launch_hang(void* stream, char* message, size_t capacity);
// Overwrites rows [0, rows) x columns [0, cols) of C (row stride N) with a value no correct output
// of the suite's fixtures takes.
tc_status tc_kit_spoil_tile(void* C, int N, int rows, int cols, void* stream, char* message, size_t capacity);
// Sets the first lock (int) of the workspace to 1.
tc_status tc_kit_dirty_lock(void* workspace, void* stream, char* message, size_t capacity);
// C[0] += scratch[0] (fp16), then scratch[0] = 0.
tc_status tc_kit_read_scratch(void* C, void* scratch, void* stream, char* message, size_t capacity);
// Writes 8 elements of row M (one past the last) of C (row stride N).
tc_status tc_kit_write_row(void* C, int M, int N, void* stream, char* message, size_t capacity);
