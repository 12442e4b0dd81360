# The delay kit (docs/perturb.md): lagging warps in a kernel we did not write. Three steps, used by
# plugins/ist-marlin, plugins/vllm-marlin and the kit's own test (tests/plugins):
#   tc_delay_kit_copy(<source> <out>)  scripts/delay-kit.py writes <out>, a copy of <source> with a
#                                      seeded sleep after every barrier (same line numbers), at build time
#   tc_delay_kit_compile(<target>)     <target>'s CUDA sources are compiled with the kit's header
#                                      force-included (its setter registers with delay_seed.h)
#   tc_delay_kit_link(<target>)        the library exports tc_kernel_set_delay_seed (delay_seed.cpp)
# A changed header is picked up through the compiler's dependency files, as for any include.
find_package(Python3 3.9 REQUIRED COMPONENTS Interpreter)
set(TC_DELAY_KIT_HEADER ${PROJECT_SOURCE_DIR}/plugins/delay-kit/delay_kit.cuh)

function(tc_delay_kit_copy source out)
  get_filename_component(name ${out} NAME)
  add_custom_command(OUTPUT ${out}
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/delay-kit.py --source ${source} --out ${out}
    DEPENDS ${source} ${PROJECT_SOURCE_DIR}/scripts/delay-kit.py
    COMMENT "Writing the delay kit's copy of ${name}"
    VERBATIM)
endfunction()

function(tc_delay_kit_compile target)
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-include ${TC_DELAY_KIT_HEADER}>")
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/kernel/src)
endfunction()

function(tc_delay_kit_link target)
  target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/kernel/src/delay_seed.cpp)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/kernel/src)
endfunction()
