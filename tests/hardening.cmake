# Hardening: kladder under concurrency, interruptions and runaway kernels
# (tests/check_hardening.sh says what each mode checks). Included from
# tests/CMakeLists.txt; label hardening. About a minute and a half of test
# time on PoCL with 2 cores (the interruption and the peaks the longest).

set(KL_HARD ${CMAKE_CURRENT_SOURCE_DIR}/check_hardening.sh)
set(KL_HARD_TESTS "")
foreach(mode tune_lock peak_race interrupt killed timeout)
  add_test(NAME hardening_${mode} COMMAND ${KL_HARD} $<TARGET_FILE:kladder-cli> ${mode}
           ${CMAKE_CURRENT_SOURCE_DIR}/user_kernels)
  list(APPEND KL_HARD_TESTS hardening_${mode})
endforeach()
set_tests_properties(${KL_HARD_TESTS} PROPERTIES LABELS "hardening;pocl" TIMEOUT 300)

# --kernel-timeout takes seconds (0: no limit), like --min-time.
kl_cli_test(kernel_timeout_bad 2 "--kernel-timeout: \"forever\" is not a time" gemm --kernel-timeout forever)
kl_cli_test(kernel_timeout_negative 2 "--kernel-timeout: -1 is out of range" gemm --kernel-timeout -1)
set_tests_properties(cli_kernel_timeout_bad cli_kernel_timeout_negative PROPERTIES LABELS hardening)
