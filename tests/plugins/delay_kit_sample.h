// The delay kit's sample kernel (delay_kit_sample.cu): out[b] = the sum of in[b * threads ...].
#pragma once
#include <cuda_runtime.h>

int delay_kit_sample_threads();
cudaError_t delay_kit_sample_sums(const int* in, int* out, int blocks, cudaStream_t stream);
