# vLLM's Marlin adapter (plugins/vllm-marlin, docs/vllm-marlin.md).
#
# Label cpu, in every build (no vLLM file needed): the adapter's host logic, our reimplementation of
# vLLM's (instantiation list, configuration mapping and choice, cut of M into launches, workspace,
# argument checks). The test also compares the instantiation list with the one CMake builds from.
tc_add_gtest(NAME vllm_marlin_plan_tests SOURCES vllm_marlin_plan_test.cpp LIBS tc_vllm_marlin_plan LABELS cpu)
get_property(tc_vllm_instance_names GLOBAL PROPERTY TC_VLLM_MARLIN_INSTANCE_NAMES)
list(JOIN tc_vllm_instance_names "," tc_vllm_joined)
target_compile_definitions(vllm_marlin_plan_tests PRIVATE TC_VLLM_MARLIN_CMAKE_INSTANCES="${tc_vllm_joined}")

# Label gpu: the adapter's libraries join the GPU suite as another project's kernels do
# (-DTC_EXTERNAL_KERNELS="$PWD/build/gpu/kernel/libtc_vllm_marlin.so;...fp16_reduce.so", as
# scripts/gpu-suite.sh --vllm-marlin passes them): matrix, smoke, harness and sanitizer tests per our
# configurations (tests/suite, tests/kernel, tests/sanitizer). vLLM also has 128x64 and 64x128 tiles,
# which ours lacks: their matrix processes are registered here, one per configuration, the same way.
get_property(tc_vllm_variants GLOBAL PROPERTY TC_KERNEL_VARIANTS)
get_property(tc_vllm_configs GLOBAL PROPERTY TC_VLLM_MARLIN_CONFIG_NAMES)
foreach(variant IN LISTS tc_vllm_variants)
  tc_kernel_library_path(${variant} library)
  if(NOT library MATCHES "/libtc_vllm_marlin(_fp16_reduce)?[.]so$")
    continue()
  endif()
  foreach(config IN LISTS tc_vllm_configs)
    if(config IN_LIST TC_KERNEL_CONFIGS)  # tests/suite registers ours
      continue()
    endif()
    tc_add_matrix_process(${variant} ${config} ${library})
  endforeach()
endforeach()

# scripts/vllm-actorder-model.py: vLLM's act-order kernel's scale read, modelled, gives the H200's
# mismatches on the committed cases on a shard of K (docs/case-study-vllm-marlin-formats.md).
add_test(NAME vllm_actorder_model_script_tests
  COMMAND ${PROJECT_SOURCE_DIR}/.venv/bin/python -B ${CMAKE_CURRENT_SOURCE_DIR}/test_vllm_actorder_model.py
          --tilecheck $<TARGET_FILE:tilecheck> --fixtures ${PROJECT_SOURCE_DIR}/fixtures --source ${PROJECT_SOURCE_DIR})
set_tests_properties(vllm_actorder_model_script_tests PROPERTIES LABELS cpu TIMEOUT 120)
