# One registration function for every GoogleTest executable.
#   tc_add_gtest(NAME <exe> SOURCES <files...> LIBS <targets...> LABELS <cpu|gpu|sanitizer|mutation|notebook>
#                [TIMEOUT <seconds>] [PER_KERNEL_VARIANT])
# PER_KERNEL_VARIANT registers the tests once per kernel library variant built (kernel/CMakeLists.txt),
# named <exe>.<variant>.<test> and run with TC_KERNEL pointing at that library.
# Tests are discovered PRE_TEST, so a build never runs a GPU binary at build time; a GPU test on a
# machine without a GPU reports SKIPPED (GTEST_SKIP), which ctest shows as "Skipped".
include(GoogleTest)
set(TC_TEST_LABELS cpu gpu sanitizer mutation notebook)

function(tc_add_gtest)
  cmake_parse_arguments(T "PER_KERNEL_VARIANT" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  foreach(label IN LISTS T_LABELS)
    if(NOT label IN_LIST TC_TEST_LABELS)
      message(FATAL_ERROR "tc_add_gtest(${T_NAME}): unknown label '${label}' (expected one of ${TC_TEST_LABELS})")
    endif()
  endforeach()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main tc_warnings)
  target_include_directories(${T_NAME} PRIVATE ${PROJECT_SOURCE_DIR}/tests)  # "common/<helper>.h"
  if(NOT T_PER_KERNEL_VARIANT)
    gtest_discover_tests(${T_NAME}
      DISCOVERY_MODE PRE_TEST
      PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
      TEST_PREFIX "${T_NAME}.")
    return()
  endif()
  get_property(variants GLOBAL PROPERTY TC_KERNEL_VARIANTS)
  foreach(variant IN LISTS variants)
    gtest_discover_tests(${T_NAME}
      DISCOVERY_MODE PRE_TEST
      PROPERTIES LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT}
                 ENVIRONMENT "TC_KERNEL=${TC_KERNEL_DIR}/libtc_kernel_${variant}.so"
      TEST_PREFIX "${T_NAME}.${variant}.")
  endforeach()
endfunction()
