# SPDX-License-Identifier: Apache-2.0
# Install rules: find_package(spindle) exposes spindle::spindle.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS spindle EXPORT spindleTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(_dir engine ops loaders algorithms)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_dir}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "*.cuh")
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/generated/include/spindle/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/spindle)
install(EXPORT spindleTargets NAMESPACE spindle:: FILE spindleTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/spindle)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/spindleConfig.cmake.in
  ${PROJECT_BINARY_DIR}/spindleConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/spindle)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/spindleConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/spindleConfig.cmake ${PROJECT_BINARY_DIR}/spindleConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/spindle)
if(SPINDLE_BUILD_APPS AND TARGET spindle_cli)
  install(TARGETS spindle_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
