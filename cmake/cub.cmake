# CUB's DeviceReduce, DeviceScan and DeviceHistogram as peers of the reduce, scan
# and histogram ladders: CUB is templates, so a small shim
# (src/peers/cub_shim.cu) compiled by nvcc gives kladder one C entry point
# each, loaded at run time (src/peers/cub.c) like the vendor
# libraries. Built where the CUDA toolkit's nvcc is found, for sm_90 and as
# PTX for the GPUs before and after; elsewhere `--compare cub` says it is
# missing.
option(KLADDER_CUB "Build libkladder_cub.so (CUB's reductions, scans and histograms: peers) where nvcc is found" ON)
if(KLADDER_CUB AND CUDAToolkit_FOUND AND CUDAToolkit_NVCC_EXECUTABLE)
  set(KL_CUB_SHIM ${CMAKE_BINARY_DIR}/libkladder_cub.so)
  add_custom_command(OUTPUT ${KL_CUB_SHIM}
    COMMAND ${CUDAToolkit_NVCC_EXECUTABLE} -O3 -std=c++17 -shared -Xcompiler -fPIC
            --cudart shared -gencode arch=compute_90,code=sm_90
            -gencode arch=compute_80,code=compute_80 -o ${KL_CUB_SHIM}
            ${CMAKE_SOURCE_DIR}/src/peers/cub_shim.cu
    DEPENDS ${CMAKE_SOURCE_DIR}/src/peers/cub_shim.cu
    COMMENT "libkladder_cub.so: CUB's reduce, scan and histogram for --compare cub" VERBATIM)
  add_custom_target(kladder_cub ALL DEPENDS ${KL_CUB_SHIM})
  target_compile_definitions(kladder PRIVATE KLADDER_CUB_SHIM="${KL_CUB_SHIM}"
    KLADDER_CUB_SHIM_INSTALLED="${CMAKE_INSTALL_FULL_LIBDIR}/libkladder_cub.so")
  install(FILES ${KL_CUB_SHIM} DESTINATION ${CMAKE_INSTALL_LIBDIR})
  message(STATUS "CUB shim: on (${CUDAToolkit_NVCC_EXECUTABLE})")
else()
  message(STATUS "CUB shim: off (no nvcc, or -DKLADDER_CUB=OFF)")
endif()
