# Unity builds for the libraries and the CLI: a target's sources compiled eight to a unit. Each file
# is small next to the headers and templates it shares with the others (Eigen, HDF5, CLI11): the
# CLI's 15 files take 32 s of CPU instead of 79 s, the default build on the 2-core CI machine 230 s
# instead of 275 s (docs/results/framework-speed-2026-12-02-s18.md). The files' anonymous namespaces then share a
# unit: two helpers of one name collide (a compile error), and an unused function is an error, so
# that a call cannot bind to another file's helper without a word (as in the tests' unity builds).
option(TC_UNITY "Compile the libraries' and the CLI's sources in batches (CMake unity build)" ON)
function(tc_unity_build target)
  if(TC_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 8)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror=unused-function>)
  endif()
endfunction()
