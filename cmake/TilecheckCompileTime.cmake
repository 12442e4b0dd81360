# What keeps the default build short on the 2-core CI machine (docs/results/framework-speed-2026-12-02-s18.md).

# Unity builds: a target's sources compiled `batch` to a unit (0: all in one). Each file is small
# next to the headers and templates it shares with the others (Eigen, HDF5, CLI11, GoogleTest): the
# CLI's 15 files take 32 s of CPU instead of 79 s, the default build 230 s instead of 275 s. The
# files' anonymous namespaces then share a unit: two helpers of one name collide (a compile error),
# and an unused function is an error, so that a call cannot bind to another file's helper without a
# word.
option(TC_UNITY "Compile the libraries', the CLI's and the test programs' sources in batches (CMake unity build)" ON)
function(tc_unity_build target batch)
  if(TC_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror=unused-function>)
  endif()
endfunction()

# -O1 in optimised builds, for code that orchestrates (the CLI) or checks (the test programs) while
# the work it calls (reference, bounds, comparison) is in the libraries at -O3: half the compile time
# (compare_tests 41 s -> 19 s), the same run time.
function(tc_optimise_lightly target)
  target_compile_options(${target} PRIVATE $<$<AND:$<CONFIG:Release>,$<COMPILE_LANGUAGE:CXX>>:-O1>)
endfunction()
