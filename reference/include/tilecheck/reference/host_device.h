// TC_HOST_DEVICE marks the few functions that the kernel (device) and the host code share, so one
// definition serves both; outside nvcc it expands to nothing and the header stays plain C++.
#pragma once

#if defined(__CUDACC__)
#define TC_HOST_DEVICE __host__ __device__
#else
#define TC_HOST_DEVICE
#endif
