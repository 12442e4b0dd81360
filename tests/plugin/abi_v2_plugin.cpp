// A kernel library of plugin ABI 2 that runs nothing: it lists four formats (tc_plugin_formats) and
// copies each problem it is given into tc_test_v2_seen, so that plugin_loader_test.cpp checks the
// ABI 2 fields arrive as the caller set them and that unlisted formats never reach it. Two globals
// the test sets through dlsym before loading turn it into a malformed declaration:
// tc_test_abi_version (what tc_plugin_info says) and tc_test_formats_case (see kFormats below).
#include <stddef.h>

#include "tilecheck/plugin/plugin.h"

extern "C" {

TC_PLUGIN_EXPORT tc_problem tc_test_v2_seen = {};
TC_PLUGIN_EXPORT int tc_test_v2_calls = 0;
TC_PLUGIN_EXPORT int tc_test_abi_version = TC_PLUGIN_ABI_VERSION;
// 0: the four formats; 1: weight_type 7 in entry 1; 2: count 0; 3: NULL with count 4;
// 4: is_k_full 0 without act-order in entry 2; 5: a_dtype left 0 in entry 0.
TC_PLUGIN_EXPORT int tc_test_formats_case = 0;

namespace {
const tc_tile_config kConfigs[] = {{1, 8, 8, -1}};
tc_plugin_info_t info = {TC_PLUGIN_ABI_VERSION, "abi-v2-test", "records", 1, kConfigs};
tc_format formats[4];

void record(const tc_problem* p) {
  tc_test_v2_seen = *p;
  ++tc_test_v2_calls;
}
}  // namespace

TC_PLUGIN_EXPORT const tc_plugin_info_t* tc_plugin_info(void) {
  info.abi_version = tc_test_abi_version;
  return &info;
}

TC_PLUGIN_EXPORT const tc_format* tc_plugin_formats(int* count) {
  formats[0] = {TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, 0, 1};
  formats[1] = {TC_DTYPE_BF16, TC_DTYPE_BF16, TC_DTYPE_BF16, TC_WEIGHT_UINT4, 0, 1};
  formats[2] = {TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, TC_WEIGHT_UINT8B128, 1, 1};
  formats[3] = {TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, 1, 0};
  *count = 4;
  switch (tc_test_formats_case) {
    case 1: formats[1].weight_type = 7; break;
    case 2: *count = 0; break;
    case 3: return NULL;
    case 4: formats[2].act_order = 0, formats[2].is_k_full = 0; break;
    case 5: formats[0].a_dtype = 0; break;
    default: break;
  }
  return formats;
}

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
