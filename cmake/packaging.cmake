# CPack: `cpack -G DEB` in the build directory makes kladder_VERSION_ARCH.deb of what
# `cmake --install` installs (the CLI, the libraries, the header, kladder.pc, the CMake
# package), under /usr.
set(CPACK_PACKAGE_NAME kladder)
set(CPACK_PACKAGE_VENDOR "kladder developers")
set(CPACK_PACKAGE_CONTACT "kladder developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU kernel ladders from naive to the hardware's limit, each rung timed and verified")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "kladder developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# Dependencies: dpkg-shlibdeps reads them from the binaries where it is installed
# (dpkg-dev; CPack finds the binaries with file(1)); elsewhere they are named here.
# A device needs an OpenCL driver too.
find_program(KL_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(KL_FILE file)
mark_as_advanced(KL_DPKG_SHLIBDEPS KL_FILE)
if(KL_DPKG_SHLIBDEPS AND KL_FILE)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, ocl-icd-libopencl1 | libopencl1")
  if(PNG_FOUND)
    string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libpng16-16")
  endif()
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd")
include(CPack)
