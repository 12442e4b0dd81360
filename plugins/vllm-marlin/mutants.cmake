# The mutation kit on vLLM's Marlin (docs/mutation-vllm.md), included by CMakeLists.txt when
# -DTC_VLLM_MARLIN_MUTANTS names mutants of plugins/vllm-marlin/mutants.txt. At build time
# scripts/ist-marlin-mutants.py writes each chosen mutant's copies of the files the description names
# (every one, edited or not) to <build>/plugins/vllm-marlin/mutants/vNN/<their repository paths>,
# refusing files whose SHA-256 is not the one described. Each mutant is built as
# libtc_vllm_marlin_vNN.so, variant vllm-bc390b9-fp32-reduce-vNN (vLLM's default fp32 reduction, as the
# control libtc_vllm_marlin.so): only the kernels of the formats its `formats:` line names (among those
# TC_VLLM_MARLIN_INSTANCES allows), compiled with its copies found before vLLM's files, and a dispatch
# of its own that knows only those, so that the library lists only their formats. The repository
# holds only the descriptions.
set(description ${CMAKE_CURRENT_SOURCE_DIR}/mutants.txt)
set(writer ${PROJECT_SOURCE_DIR}/scripts/ist-marlin-mutants.py)
set(writer_parts ${writer} ${PROJECT_SOURCE_DIR}/scripts/mutant_description.py)  # what the writer reads
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${description})  # a new mutant: reconfigure
tc_mutant_select(${description} mutant v TC_VLLM_MARLIN_MUTANTS tc_vllm_mutants)

# The files the description names (its `upstream` lines): what each mutant's copy holds.
file(STRINGS ${description} upstream_lines REGEX "^[ \t]*upstream[ \t]")
set(tc_vllm_described "")
foreach(line IN LISTS upstream_lines)
  string(REGEX REPLACE "^[ \t]*upstream[ \t]+([^ \t]+).*$" "\\1" path "${line}")
  list(APPEND tc_vllm_described ${path})
endforeach()
string(REPLACE "," ";" tc_vllm_wanted "${TC_VLLM_MARLIN_INSTANCES}")

set(tc_vllm_mutant_root ${CMAKE_CURRENT_BINARY_DIR}/mutants)
set(libraries "")
foreach(id IN LISTS tc_vllm_mutants)
  # Its kernels: every record of its formats, or those TC_VLLM_MARLIN_INSTANCES names (a CPU check).
  tc_mutant_formats(${description} ${id} formats)
  if(NOT formats)
    message(FATAL_ERROR "TC_VLLM_MARLIN_MUTANTS: mutant ${id} of ${description} has no formats: line (the kernels it acts on)")
  endif()
  set(files "")
  set(built_list "")
  foreach(record IN LISTS tc_vllm_records)
    string(REPLACE ":" ";" fields "${record}")
    list(GET fields 0 name)
    list(GET fields 7 dtype)
    list(GET fields 8 weights)
    if(NOT "${dtype}-${weights}" IN_LIST formats)
      continue()
    elseif(NOT TC_VLLM_MARLIN_INSTANCES STREQUAL "all" AND NOT name IN_LIST tc_vllm_wanted)
      continue()
    endif()
    tc_vllm_instance(${record} file entry)
    list(APPEND files ${file})
    string(APPEND built_list "${entry}")
  endforeach()
  if(NOT files)
    list(JOIN formats " " formats)
    message(FATAL_ERROR "TC_VLLM_MARLIN_MUTANTS: mutant ${id} acts on ${formats}, but TC_VLLM_MARLIN_INSTANCES="
                        "${TC_VLLM_MARLIN_INSTANCES} names none of their kernels")
  endif()

  # Its copies of vLLM's files, rewritten only when their content changes (so editing one entry of the
  # description recompiles that mutant alone).
  set(tree ${tc_vllm_mutant_root}/${id})
  set(copies "")
  set(originals "")
  foreach(path IN LISTS tc_vllm_described)
    list(APPEND copies ${tree}/${path})
    list(APPEND originals ${TC_VLLM_MARLIN_SRC}/${path})
  endforeach()
  add_custom_command(OUTPUT ${copies}
    COMMAND ${Python3_EXECUTABLE} ${writer} --description ${description} --upstream ${TC_VLLM_MARLIN_SRC}
            --out ${tc_vllm_mutant_root} --mutants ${id}
    DEPENDS ${description} ${originals} ${writer_parts}
    COMMENT "Writing mutant ${id} of vLLM's Marlin"
    VERBATIM)
  add_custom_target(tc_vllm_marlin_${id}_sources DEPENDS ${copies})

  # The instance files are the clean adapter's; the copies' directories come first on the include path,
  # so that an instance's marlin_template.h, and the dequant.h it includes from its own directory, are
  # the mutant's.
  add_library(tc_vllm_marlin_instances_${id} OBJECT ${files})
  target_include_directories(tc_vllm_marlin_instances_${id} SYSTEM BEFORE PRIVATE
                             ${tree}/csrc/quantization/marlin ${tree}/csrc)  # vLLM's warnings stay vLLM's
  tc_vllm_marlin_compile_setup(tc_vllm_marlin_instances_${id})
  add_dependencies(tc_vllm_marlin_instances_${id} tc_vllm_marlin_${id}_sources)
  file(CONFIGURE OUTPUT ${tree}/dispatch/vllm_marlin_built_instances.h
       CONTENT "@tc_vllm_header_comment@// Mutant @id@'s kernels only (mutants.cmake).\n@built_list@" @ONLY)
  tc_vllm_marlin_dispatch(tc_vllm_marlin_launch_${id} ${tree}/dispatch)
  tc_vllm_marlin_library(tc_vllm_marlin_${id} tc_vllm_marlin_instances_${id} tc_vllm_marlin_launch_${id} 1
                         VARIANT vllm-bc390b9-fp32-reduce-${id})
  list(APPEND libraries tc_vllm_marlin_${id})
endforeach()
if(NOT TC_VLLM_MARLIN_FORMATS)
  list(JOIN tc_vllm_mutants " " names)
  message(STATUS "vLLM Marlin mutants ${names}: built, but no kill matrix (mutation.vllm_marlin): "
                 "the control libtc_vllm_marlin.so has their formats only with -DTC_VLLM_MARLIN_FORMATS=ON")
endif()
add_custom_target(tc_vllm_marlin_mutants)
add_dependencies(tc_vllm_marlin_mutants ${libraries})
# tests/mutation registers the kill matrix over these (label mutation).
set_property(GLOBAL PROPERTY TC_VLLM_MARLIN_MUTANT_IDS ${tc_vllm_mutants})
