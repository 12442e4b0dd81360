/* What the ABI 1 test library (abi_v1_plugin.cpp) saw of the last problem it was given: every field
   of ABI 1's tc_problem, copied out of the 1.1 header's struct, so that a test built against the
   current header can read it (dlsym "tc_test_v1_seen") without the 1.1 header's types. */
#pragma once
#include <stddef.h>

struct AbiV1Record {
  int calls;  /* tc_plugin_workspace_size and tc_plugin_run calls so far */
  int abi_version, M, N, K, group, contract;
  const void *A, *B, *scales;
  void *C, *workspace;
  size_t workspace_bytes;
  void* stream;
  int m_blocks, n_blocks, k_blocks, group_blocks;
  int sms, max_par;
  unsigned flags;
};
