# One registration function for every GoogleTest executable.
#   tc_add_gtest(NAME <exe> SOURCES <files...> LIBS <targets...> LABELS <cpu|gpu|sanitizer|mutation|notebook|perturb>
#                [TIMEOUT <seconds>] [COST <c>] [PER_KERNEL_VARIANT])
# COST: ctest's scheduling weight of each test (the costliest start first). PER_KERNEL_VARIANT
# registers the tests once per kernel library variant built (kernel/CMakeLists.txt), named
# <exe>.<variant>.<test> and run with TC_KERNEL pointing at that library.
# Tests are discovered PRE_TEST, so a build never runs a GPU binary at build time; a GPU test on a
# machine without a GPU reports SKIPPED (GTEST_SKIP), which ctest shows as "Skipped".
include(GoogleTest)

# The kernel libraries the GPU suite runs, by name: our own variants (kernel/CMakeLists.txt) and
# every library that TC_EXTERNAL_KERNELS names (tests/CMakeLists.txt). Each is registered once and
# gets the same tests: the matrix, the kernel tests and the sanitizer tier.
#   tc_register_kernel_library(<name> <path> [EXTERNAL])  EXTERNAL: another project's kernel, which
#   may fault or implement part of the matrix (the sanitizer tier runs it per configuration).
set(TC_EXTERNAL_KERNELS "" CACHE STRING
    "Kernel plugin libraries (;-separated paths) to run through the GPU suite beside our own variants")
function(tc_register_kernel_library name path)
  set_property(GLOBAL APPEND PROPERTY TC_KERNEL_VARIANTS ${name})
  set_property(GLOBAL PROPERTY TC_KERNEL_PATH_${name} ${path})
  if(ARGN AND NOT ARGN STREQUAL "EXTERNAL")
    message(FATAL_ERROR "tc_register_kernel_library(${name}): unexpected '${ARGN}' (expected EXTERNAL or nothing)")
  endif()
  set(external FALSE)
  if(ARGN)
    set(external TRUE)
  endif()
  set_property(GLOBAL PROPERTY TC_KERNEL_EXTERNAL_${name} ${external})
endfunction()
function(tc_kernel_library_path name out)
  get_property(path GLOBAL PROPERTY TC_KERNEL_PATH_${name})
  set(${out} ${path} PARENT_SCOPE)
endfunction()
function(tc_kernel_library_is_external name out)
  get_property(external GLOBAL PROPERTY TC_KERNEL_EXTERNAL_${name})
  set(${out} ${external} PARENT_SCOPE)
endfunction()
set(TC_TEST_LABELS cpu gpu sanitizer mutation notebook perturb)  # perturb: the perturbation tier (docs/perturb.md)

function(tc_add_gtest)
  cmake_parse_arguments(T "PER_KERNEL_VARIANT" "NAME;TIMEOUT;COST" "SOURCES;LIBS;LABELS" ${ARGN})
  foreach(label IN LISTS T_LABELS)
    if(NOT label IN_LIST TC_TEST_LABELS)
      message(FATAL_ERROR "tc_add_gtest(${T_NAME}): unknown label '${label}' (expected one of ${TC_TEST_LABELS})")
    endif()
  endforeach()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  # One translation unit per test program, its own code at -O1 (cmake/TilecheckCompileTime.cmake).
  tc_unity_build(${T_NAME} 0)
  tc_optimise_lightly(${T_NAME})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} tc_gtest_main GTest::gtest tc_warnings)
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests)  # "common/<helper>.h"
  set(extra "")  # properties beyond labels and timeout
  if(T_COST)  # ctest -j starts the costliest first: long tests must not start last on a fresh tree
    list(APPEND extra COST ${T_COST})
  endif()
  if("gpu" IN_LIST T_LABELS)  # a GPU test may load an on-demand case: made once, before (tests/suite)
    list(APPEND extra FIXTURES_REQUIRED tc_generated_cases)
  endif()
  if(NOT T_PER_KERNEL_VARIANT)
    gtest_discover_tests(${T_NAME}
      DISCOVERY_MODE PRE_TEST
      PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT} ${extra}
      TEST_PREFIX "${T_NAME}.")
    return()
  endif()
  get_property(variants GLOBAL PROPERTY TC_KERNEL_VARIANTS)
  foreach(variant IN LISTS variants)
    tc_kernel_library_path(${variant} library)
    gtest_discover_tests(${T_NAME}
      DISCOVERY_MODE PRE_TEST
      PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT} ${extra}
                 ENVIRONMENT "TC_KERNEL=${library}"
      TEST_PREFIX "${T_NAME}.${variant}.")
  endforeach()
endfunction()

# A ctest that runs many GoogleTest cases in one process (the GPU matrix: one process per kernel
# library and configuration). The process's exit status decides (tests/common/gtest_main.cpp): a
# failure anywhere is Failed, Skipped only when every case skipped. GPU processes ask ctest for one
# GPU (RESOURCE_GROUPS; with --resource-spec-file ctest spreads them over the GPUs it lists).
#   tc_add_cell_process_test(NAME <test> COMMAND <command...> LABELS <labels> [TIMEOUT <s>] [COST <c>]
#                            [ENVIRONMENT <VAR=value...>] [SERIAL])
# SERIAL: the process needs the GPU to itself (ctest -j runs it alone, after the others).
set(TC_CELL_PROCESS_PROPERTIES SKIP_RETURN_CODE 77)
function(tc_add_cell_process_test)
  cmake_parse_arguments(T "SERIAL" "NAME;TIMEOUT;COST" "COMMAND;LABELS;ENVIRONMENT" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  if(NOT T_COST)
    set(T_COST 0)
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT} COST ${T_COST}
                       ENVIRONMENT "${T_ENVIRONMENT}" ${TC_CELL_PROCESS_PROPERTIES})
  if("gpu" IN_LIST T_LABELS OR "sanitizer" IN_LIST T_LABELS OR "perturb" IN_LIST T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES RESOURCE_GROUPS "gpus:1")
  endif()
  if(T_SERIAL)
    set_tests_properties(${T_NAME} PROPERTIES RUN_SERIAL TRUE)
  endif()
endfunction()

# One GPU matrix process: the cells of one configuration of one kernel library
# (tests/suite/suite_gpu_test.cpp), run once the on-demand cases they load are made
# (suite_gpu.generated_cases). No COST: ctest then orders them by their times in earlier runs, longest
# first (a COST replaces those times; with one COST for all, the 10-16 s m4 processes, registered last,
# started 42-47 s into the label and ended it: docs/results/gpu-2026-12-03-s23.md). Without timings
# (a first run) ctest keeps the registration order, so tests/suite registers our m4 processes first.
function(tc_add_matrix_process variant config library)
  tc_add_cell_process_test(NAME suite_gpu.${variant}.${config}
    COMMAND suite_gpu_tests --gtest_brief=1 "--gtest_filter=Catalogue/*_${config}_*"
    LABELS gpu TIMEOUT 600 ENVIRONMENT "TC_KERNEL=${library}")
  set_tests_properties(suite_gpu.${variant}.${config} PROPERTIES FIXTURES_REQUIRED tc_generated_cases)
endfunction()
