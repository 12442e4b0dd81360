/* A kernel plugin that implements nothing: enough to prove the installed ABI header builds a
 * library exporting the three functions tilecheck loads (docs/plugin.md). */
#include <stdio.h>

#include "tilecheck/plugin/plugin.h"

static const tc_tile_config kConfigs[] = {{1, 8, 8, 8}};
static const tc_plugin_info_t kInfo = {TC_PLUGIN_ABI_VERSION, "consumer-stub", "none", 1, kConfigs};

TC_PLUGIN_EXPORT const tc_plugin_info_t* tc_plugin_info(void) { return &kInfo; }

TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_size(const tc_problem* p, size_t* bytes, char* msg, size_t cap) {
  (void)p;
  (void)msg;
  (void)cap;
  *bytes = 0;
  return TC_OK;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_run(const tc_problem* p, char* msg, size_t cap) {
  (void)p;
  snprintf(msg, cap, "consumer-stub runs nothing");
  return TC_ERR_UNSUPPORTED;
}
