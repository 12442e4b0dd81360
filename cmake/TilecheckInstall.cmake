# The install layout, and the same layout in the build tree. tilecheck finds its data relative to
# its own location (cli/data_paths.h), so both must look like this:
#   bin/tilecheck                        the CLI (also the worker its kernels run in)
#   lib/tilecheck/libtc_kernel_*.so      our kernel plugin libraries
#   share/tilecheck/fixtures/            catalogue.txt, MANIFEST.json, golden/, recordings/
#   include/tilecheck/plugin/plugin.h    the plugin ABI, for other projects' kernels
#   lib/cmake/tilecheck/                 find_package(tilecheck): tilecheck::plugin_abi, tilecheck::tilecheck
# The paths are fixed (not GNUInstallDirs' lib64 or multiarch names): the binary looks for
# <bin>/../lib/tilecheck and <bin>/../share/tilecheck.
include(CMakePackageConfigHelpers)

# The build tree: links to where the build keeps these (relative, so a moved checkout keeps working).
function(tc_link_in_build_tree target link)
  get_filename_component(link_dir ${link} DIRECTORY)
  file(MAKE_DIRECTORY ${link_dir} ${target})
  file(RELATIVE_PATH relative ${link_dir} ${target})
  file(REMOVE ${link})
  file(CREATE_LINK ${relative} ${link} SYMBOLIC)
endfunction()
tc_link_in_build_tree(${PROJECT_SOURCE_DIR}/fixtures ${CMAKE_BINARY_DIR}/share/tilecheck/fixtures)
tc_link_in_build_tree(${CMAKE_BINARY_DIR}/fixtures/generated ${CMAKE_BINARY_DIR}/share/tilecheck/generated)
tc_link_in_build_tree(${TC_KERNEL_DIR} ${CMAKE_BINARY_DIR}/lib/tilecheck)

# The plugin ABI's target, tc_plugin_abi (plugin/CMakeLists.txt), installed as tilecheck::plugin_abi.

# Installed binaries keep the CUDA toolkit's library directory in their run path (it is rarely on
# the loader's path), never a directory of the build tree.
set(tc_installed_kernels tc_kernel_upstream)
foreach(name swapped hoisted upstream_dump)
  if(TARGET tc_kernel_${name})
    list(APPEND tc_installed_kernels tc_kernel_${name})
  endif()
endforeach()
if(TARGET tc_ist_marlin)
  list(APPEND tc_installed_kernels tc_ist_marlin)
endif()
set_target_properties(tilecheck ${tc_installed_kernels} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

install(TARGETS tilecheck EXPORT tilecheckTargets RUNTIME DESTINATION bin)
install(TARGETS ${tc_installed_kernels} LIBRARY DESTINATION lib/tilecheck)
install(TARGETS tc_plugin_abi EXPORT tilecheckTargets)
install(FILES ${PROJECT_SOURCE_DIR}/plugin/include/tilecheck/plugin/plugin.h DESTINATION include/tilecheck/plugin)
install(FILES ${PROJECT_SOURCE_DIR}/fixtures/catalogue.txt ${PROJECT_SOURCE_DIR}/fixtures/MANIFEST.json
        DESTINATION share/tilecheck/fixtures)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/fixtures/golden ${PROJECT_SOURCE_DIR}/fixtures/recordings
        DESTINATION share/tilecheck/fixtures FILES_MATCHING PATTERN "*.h5")

set(tc_cmake_dir lib/cmake/tilecheck)
install(EXPORT tilecheckTargets NAMESPACE tilecheck:: DESTINATION ${tc_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tilecheckConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/tilecheckConfig.cmake INSTALL_DESTINATION ${tc_cmake_dir})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/tilecheckConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/tilecheckConfig.cmake ${CMAKE_BINARY_DIR}/cmake/tilecheckConfigVersion.cmake
        DESTINATION ${tc_cmake_dir})
