// The device side of the misbehaving kit (misbehaving_kernels.cu): launches that fault or never end,
// and a write that spoils one tile of a correct output.
#pragma once
#include <cstddef>

#include "tilecheck/kernel/plugin.h"

tc_status tc_kit_launch_trap(void* stream, char* message, size_t capacity);
tc_status tc_kit_launch_hang(void* stream, char* message, size_t capacity);
// Overwrites rows [0, rows) x columns [0, cols) of C (row stride N) with a value no correct output
// of the suite's fixtures takes.
tc_status tc_kit_spoil_tile(void* C, int N, int rows, int cols, void* stream, char* message, size_t capacity);
