# `cmake --install <build> --prefix P` installs the headers, the libraries,
# te-opt / te-compile / te-run and the CMake package P/lib/cmake/teq:
#
#   find_package(TEQ CONFIG REQUIRED)   # with TEQ_DIR or CMAKE_PREFIX_PATH
#   target_link_libraries(app PRIVATE TEQ::Compiler)  # dialect, passes,
#                                       # conversions, registration, compile
#   target_link_libraries(app PRIVATE TEQ::CAPI)      # include/teq-c
#   target_link_libraries(app PRIVATE TEQ::Runtime)   # libteq_runtime.so
#
# A runtime-only build (TEQ_BUILD_COMPILER=OFF) installs a package with
# TEQ::Runtime alone. The compiler targets link MLIR's static libraries, so
# TEQConfig.cmake finds the same MLIR (find_dependency) first.

include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(TEQ_INSTALL_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/teq")
set(TEQ_INSTALL_TARGETS)

if(TEQ_BUILD_COMPILER)
  # The umbrella targets: what an embedder links.
  add_library(TEQCompiler INTERFACE)
  set_target_properties(TEQCompiler PROPERTIES EXPORT_NAME Compiler)
  target_link_libraries(TEQCompiler INTERFACE TEQRegistration TEQTarget)
  target_include_directories(TEQCompiler INTERFACE
    $<BUILD_INTERFACE:${TEQ_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${TEQ_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  set_target_properties(TEQCAPI PROPERTIES EXPORT_NAME CAPI)
  target_include_directories(TEQCAPI INTERFACE
    $<BUILD_INTERFACE:${TEQ_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${TEQ_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  list(APPEND TEQ_INSTALL_TARGETS
    TEQCompiler TEQCAPI TEQRegistration TEQTarget TEQToGPU MLIRTEQTransforms
    MLIRTEQDialect TEQArtifact TEQLayout)

  install(DIRECTORY ${TEQ_SOURCE_DIR}/include/teq ${TEQ_SOURCE_DIR}/include/teq-c
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    COMPONENT teq-headers
    FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
    PATTERN "Reference" EXCLUDE)
  # Generated declarations (ODS, passes, the passes' C API).
  install(DIRECTORY ${TEQ_BINARY_DIR}/include/teq
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    COMPONENT teq-headers
    FILES_MATCHING PATTERN "*.inc" PATTERN "CMakeFiles" EXCLUDE)
  install(TARGETS te-opt te-compile
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT teq-tools)
endif()

if(TEQ_BUILD_RUNTIME)
  set_target_properties(TEQRuntime PROPERTIES EXPORT_NAME Runtime)
  # The runtime's C++ API speaks the artifact contract's types (TEQArtifact,
  # over TEQLayout), which its users link.
  list(APPEND TEQ_INSTALL_TARGETS TEQRuntime TEQArtifact TEQLayout)
  list(REMOVE_DUPLICATES TEQ_INSTALL_TARGETS)
  if(NOT TEQ_BUILD_COMPILER)
    foreach(dir Runtime Artifact Layout)
      install(DIRECTORY ${TEQ_SOURCE_DIR}/include/teq/${dir}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/teq
        COMPONENT teq-headers FILES_MATCHING PATTERN "*.h")
    endforeach()
    install(FILES ${TEQ_SOURCE_DIR}/include/teq-c/Runtime.h
      DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/teq-c COMPONENT teq-headers)
  endif()
  # te-run finds libteq_runtime.so beside it.
  set_target_properties(te-run PROPERTIES
    INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
  install(TARGETS te-run
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT teq-tools)
endif()

if(TEQ_INSTALL_TARGETS)
  install(TARGETS ${TEQ_INSTALL_TARGETS}
    EXPORT TEQTargets
    COMPONENT teq-libraries
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT TEQTargets
    NAMESPACE TEQ::
    DESTINATION ${TEQ_INSTALL_CMAKE_DIR}
    COMPONENT teq-cmake)

  set(TEQ_CONFIG_HAS_COMPILER ${TEQ_BUILD_COMPILER})
  set(TEQ_CONFIG_HAS_RUNTIME ${TEQ_BUILD_RUNTIME})
  configure_package_config_file(
    ${TEQ_SOURCE_DIR}/cmake/TEQConfig.cmake.in
    ${TEQ_BINARY_DIR}/lib/cmake/teq/TEQConfig.cmake
    INSTALL_DESTINATION ${TEQ_INSTALL_CMAKE_DIR}
    PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
  write_basic_package_version_file(
    ${TEQ_BINARY_DIR}/lib/cmake/teq/TEQConfigVersion.cmake
    VERSION ${TEQ_VERSION}
    COMPATIBILITY SameMinorVersion)
  install(FILES
    ${TEQ_BINARY_DIR}/lib/cmake/teq/TEQConfig.cmake
    ${TEQ_BINARY_DIR}/lib/cmake/teq/TEQConfigVersion.cmake
    DESTINATION ${TEQ_INSTALL_CMAKE_DIR}
    COMPONENT teq-cmake)
endif()
