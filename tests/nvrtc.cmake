# The CUDA compile path, with no GPU needed: every OpenCL kernel through
# kernels/cuda/prelude.cuh and NVRTC for sm_90 (tests/test_nvrtc.c). Built
# where the CUDA backend is (KLADDER_HAVE_CUDA); skipped (exit 77) where NVRTC
# cannot be loaded at run time. About 300 compilations, on every processor.
# scripts/sanitize.sh leaves it out (label cuda): it checks kernels, not host
# code, and NVRTC allocating through ASan's allocator is slow.
if(KLADDER_HAVE_CUDA)
  find_package(Threads REQUIRED)
  kl_c_test(test_nvrtc)
  target_link_libraries(test_nvrtc PRIVATE Threads::Threads)
  add_test(NAME nvrtc COMMAND test_nvrtc)
  set_tests_properties(nvrtc PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS cuda)
  if(KLADDER_SANITIZE) # NVRTC allocating through ASan's allocator: half an hour and more
    set_tests_properties(nvrtc PROPERTIES TIMEOUT 3600)
  endif()
endif()
