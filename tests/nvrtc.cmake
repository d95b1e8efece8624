# The CUDA compile path, with no GPU needed: every OpenCL kernel through
# kernels/cuda/prelude.cuh and NVRTC for sm_90 (tests/test_nvrtc.c). Built
# where the CUDA backend is (KLADDER_HAVE_CUDA); skipped (exit 77) where NVRTC
# cannot be loaded at run time. About 500 compilations, on every processor, in four tests.
# scripts/sanitize.sh leaves it out (label cuda): it checks kernels, not host
# code, and NVRTC allocating through ASan's allocator is slow.
if(KLADDER_HAVE_CUDA)
  find_package(Threads REQUIRED)
  kl_c_test(test_nvrtc)
  target_link_libraries(test_nvrtc PRIVATE Threads::Threads)
  # nvrtc: the prelude's checks and every kernel file once; nvrtc_rest_K: a third each of the
  # other option sets (tests/tiers.cmake rotates them).
  add_test(NAME nvrtc COMMAND test_nvrtc --first)
  set(kl_nvrtc_tests nvrtc)
  foreach(k 0 1 2)
    add_test(NAME nvrtc_rest_${k} COMMAND test_nvrtc --rest ${k}/3)
    list(APPEND kl_nvrtc_tests nvrtc_rest_${k})
  endforeach()
  set_tests_properties(${kl_nvrtc_tests} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS cuda)
  if(KLADDER_SANITIZE) # NVRTC allocating through ASan's allocator: half an hour and more
    set_tests_properties(${kl_nvrtc_tests} PROPERTIES TIMEOUT 3600)
  endif()
endif()
