# kladder as an installed library: libkladder.so (versioned soname) and libkladder.a,
# kladder.h, kladder.pc for pkg-config and a CMake package (find_package(kladder):
# kladder::kladder, and kladder::kladder_static with COMPONENTS static). Included from
# the top-level CMakeLists.txt.
include(CMakePackageConfigHelpers)

# The shared library is made of the archive's objects, so whatever is added to kladder,
# before or after this file (sources, definitions, the CUDA backend), is in both; it
# links what the archive's users link, privately: a program needs only libkladder.so.
add_library(kladder_shared SHARED $<TARGET_OBJECTS:kladder>)
target_link_libraries(kladder_shared PRIVATE $<TARGET_PROPERTY:kladder,INTERFACE_LINK_LIBRARIES>)
target_include_directories(kladder_shared PUBLIC
                           $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(kladder_shared PROPERTIES
  OUTPUT_NAME kladder EXPORT_NAME kladder
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
set_target_properties(kladder PROPERTIES EXPORT_NAME kladder_static)
if(UNIX AND NOT APPLE)
  # Only kladder.h's functions are exported (cmake/kladder.map); the rest of the
  # library stays internal and free to change.
  set(KL_MAP ${CMAKE_CURRENT_SOURCE_DIR}/cmake/kladder.map)
  target_link_options(kladder_shared PRIVATE LINKER:--version-script=${KL_MAP})
  set_property(TARGET kladder_shared APPEND PROPERTY LINK_DEPENDS ${KL_MAP})
  # Every symbol resolved at link time, so the library names all it needs. Not
  # under sanitizers: clang leaves their run time to the executable.
  if(NOT KLADDER_SANITIZE AND NOT KLADDER_FUZZ)
    target_link_options(kladder_shared PRIVATE LINKER:--no-undefined)
  endif()
endif()

set(KL_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kladder)
install(TARGETS kladder_shared EXPORT kladderTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS kladder EXPORT kladderStaticTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/kladder.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT kladderTargets NAMESPACE kladder:: DESTINATION ${KL_CMAKE_DIR})
install(EXPORT kladderStaticTargets NAMESPACE kladder:: DESTINATION ${KL_CMAKE_DIR})
if(PNG_FOUND) # the static component then needs libpng too
  set(KL_PNG TRUE)
else()
  set(KL_PNG FALSE)
endif()
configure_package_config_file(cmake/kladderConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/kladderConfig.cmake
                              INSTALL_DESTINATION ${KL_CMAKE_DIR})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/kladderConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kladderConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/kladderConfigVersion.cmake
        DESTINATION ${KL_CMAKE_DIR})

# kladder.pc names the prefix, which `cmake --install --prefix` and cpack choose at
# install time: configured now with everything else, then again when installed.
set(KL_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(KL_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(KL_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
# What a static link adds to -lkladder (kladder's target_link_libraries).
set(KL_PC_LIBS_PRIVATE "-lOpenCL")
if(CMAKE_DL_LIBS)
  string(APPEND KL_PC_LIBS_PRIVATE " -l${CMAKE_DL_LIBS}")
endif()
string(APPEND KL_PC_LIBS_PRIVATE " -lm -pthread")
if(PNG_FOUND)
  string(APPEND KL_PC_LIBS_PRIVATE " -lpng")
endif()
configure_file(cmake/kladder.pc.in ${CMAKE_CURRENT_BINARY_DIR}/kladder.pc.install @ONLY)
install(CODE "configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/kladder.pc.install\"
                             \"${CMAKE_CURRENT_BINARY_DIR}/kladder.pc\" @ONLY)")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/kladder.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Generated from the CLI's option table when that step ran; absent otherwise.
install(FILES ${CMAKE_BINARY_DIR}/kladder.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 OPTIONAL)
install(FILES ${CMAKE_BINARY_DIR}/completions/kladder
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions OPTIONAL)
install(FILES ${CMAKE_BINARY_DIR}/completions/_kladder
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions OPTIONAL)
