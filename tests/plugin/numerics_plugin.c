/* A kernel "plugin" that runs nothing and declares its numerics (tc_plugin_numerics), differently
   per problem, so that the loader's checks can be driven from the problem (plugin_loader_test.cpp):
     contract marlin: fp32 partials, round-then-scale, unknown schedule, k-slices of 64 (vLLM-like)
     contract fp32:   fp32 partials, scale-then-round, striped, min_k_slice 0 (not known)
     M = 2: partials 7;  M = 3: epilogue left 0;  M = 4: min_k_slice 24;  M = 5: TC_ERR_UNSUPPORTED;
     M = 6: an fp16 accumulator (a valid declaration the judge refuses);
     M = 10: scale-before-reduce (vLLM's Marlin for 8-bit codes);  M = 11: epilogue 4.
   It also declares its workspace's layout (tc_plugin_workspace_layout, ABI 1.1) for a 1024-byte
   workspace: locks in bytes [0, 256), scratch [256, 1024); M = 7: scratch past the end;
   M = 8: scratch overlapping the locks; M = 9: TC_ERR_UNSUPPORTED.
   Built a second time with TC_NO_NUMERICS: the same library without the optional symbols. */
#include <stdio.h>

#include "tilecheck/plugin/plugin.h"

static const tc_tile_config kConfigs[] = {{1, 8, 8, -1}};

TC_PLUGIN_EXPORT const tc_plugin_info_t* tc_plugin_info(void) {
  static const tc_plugin_info_t info = {TC_PLUGIN_ABI_VERSION, "numerics-test", "declares", 1, kConfigs};
  return &info;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_size(const tc_problem* problem, size_t* bytes, char* message,
                                                    size_t message_capacity) {
  (void)problem, (void)message, (void)message_capacity;
  *bytes = 1024;
  return TC_OK;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_run(const tc_problem* problem, char* message, size_t message_capacity) {
  (void)problem;
  snprintf(message, message_capacity, "the numerics test plugin runs nothing");
  return TC_ERR_UNSUPPORTED;
}

#ifndef TC_NO_NUMERICS
TC_PLUGIN_EXPORT tc_status tc_plugin_numerics(const tc_problem* problem, tc_numerics* numerics, char* message,
                                              size_t message_capacity) {
  const int marlin = problem->contract == TC_CONTRACT_MARLIN;
  if (problem->M == 5) {
    snprintf(message, message_capacity, "no kernel for M=%d", problem->M);
    return TC_ERR_UNSUPPORTED;
  }
  numerics->accumulator = problem->M == 6 ? TC_ACCUMULATOR_FP16 : TC_ACCUMULATOR_FP32;
  numerics->partials = problem->M == 2 ? 7 : TC_PARTIALS_FP32;
  numerics->epilogue = problem->M == 3    ? 0
                       : problem->M == 10 ? TC_EPILOGUE_SCALE_BEFORE_REDUCE
                       : problem->M == 11 ? 4
                       : marlin           ? TC_EPILOGUE_ROUND_THEN_SCALE
                                          : TC_EPILOGUE_SCALE_THEN_ROUND;
  numerics->schedule = marlin ? TC_SCHEDULE_UNKNOWN : TC_SCHEDULE_MARLIN_STRIPED;
  numerics->min_k_slice = problem->M == 4 ? 24 : marlin ? 64 : 0;
  return TC_OK;
}

TC_PLUGIN_EXPORT tc_status tc_plugin_workspace_layout(const tc_problem* problem, tc_workspace_layout* layout,
                                                      char* message, size_t message_capacity) {
  if (problem->M == 9) {
    snprintf(message, message_capacity, "no layout for M=%d", problem->M);
    return TC_ERR_UNSUPPORTED;
  }
  layout->lock_offset = 0;
  layout->lock_bytes = 256;
  layout->scratch_offset = problem->M == 8 ? 128 : 256;
  layout->scratch_bytes = problem->M == 7 ? 1000 : 768;
  return TC_OK;
}
#endif
