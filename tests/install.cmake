# kladder installed and consumed as a library (tests/check_install.sh): the files in a
# temporary prefix, examples/gemm_ladder.c built through pkg-config and find_package and
# run on the default device, the .deb from cpack. Included from tests/CMakeLists.txt;
# label install. Not under sanitizers: a sanitized libkladder.so needs its run time
# loaded first, which the example programs do not do.
if(KLADDER_SANITIZE)
  return()
endif()
if(PNG_FOUND)
  set(KL_INSTALL_PNG 1)
else()
  set(KL_INSTALL_PNG 0)
endif()
add_test(NAME install COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_install.sh ${CMAKE_BINARY_DIR}
         ${CMAKE_SOURCE_DIR} ${PROJECT_VERSION} ${CMAKE_INSTALL_LIBDIR} ${KL_INSTALL_PNG})
set_tests_properties(install PROPERTIES LABELS install SKIP_RETURN_CODE 77 TIMEOUT 300)
