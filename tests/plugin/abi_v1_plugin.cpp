// A kernel library of plugin ABI 1, built against the 1.1 header (tests/plugin/abi_v1/, a frozen copy
// of tilecheck/plugin/plugin.h before ABI 2): it runs nothing and records every field of each
// problem it is given into tc_test_v1_seen, so that plugin_loader_test.cpp checks it still loads,
// is given ABI 1's format only, with abi_version 1, and reads the fields the caller set.
#include "abi_v1_record.h"
#include "tilecheck/plugin/plugin.h"  // the 1.1 header: the include path puts tests/plugin/abi_v1 first

static_assert(TC_PLUGIN_ABI_VERSION == 1, "built against the ABI 1 header");

extern "C" {

TC_PLUGIN_EXPORT AbiV1Record tc_test_v1_seen = {};

namespace {
const tc_tile_config kConfigs[] = {{1, 8, 8, -1}};
const tc_plugin_info_t kInfo = {TC_PLUGIN_ABI_VERSION, "abi-v1-test", "records", 1, kConfigs};

void record(const tc_problem* p) {
  AbiV1Record& r = tc_test_v1_seen;
  ++r.calls;
  r.abi_version = p->abi_version, r.M = p->M, r.N = p->N, r.K = p->K, r.group = p->group;
  r.contract = p->contract;
  r.A = p->A, r.B = p->B, r.scales = p->scales, r.C = p->C, r.workspace = p->workspace;
  r.workspace_bytes = p->workspace_bytes;
  r.stream = p->stream;
  r.m_blocks = p->config.m_blocks, r.n_blocks = p->config.n_blocks, r.k_blocks = p->config.k_blocks;
  r.group_blocks = p->config.group_blocks;
  r.sms = p->sms, r.max_par = p->max_par, r.flags = p->flags;
}
}  // namespace

TC_PLUGIN_EXPORT const tc_plugin_info_t* tc_plugin_info(void) { return &kInfo; }

TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_size(const tc_problem* problem, size_t* bytes, char*, size_t) {
  record(problem);
  *bytes = 256;
  return TC_OK;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_run(const tc_problem* problem, char*, size_t) {
  record(problem);
  return TC_OK;
}

}  // extern "C"
