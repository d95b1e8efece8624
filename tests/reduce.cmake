# Tests for `kladder reduce`, the reduction ladder. Included from
# tests/CMakeLists.txt; every test carries the label reduce (ctest -L reduce).

set(KL_RED_KLADDER $<TARGET_FILE:kladder-cli>)
set(KL_RED_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/check_reduce.sh)
set(KL_RED_TESTS "")

# Every rung verified at 1, 2, 31, 33, 1023, 1025, 65599 and 10^6 + 7 elements, for every
# operation, on random and skewed data: one test per element type, side by side (double
# skips, 77, without fp64); small and extreme parameters; user kernels that are almost right
# (a one-pass counter left set, failed after the timed launches; an element left out or
# added twice; a sum of 0), each failed; CLBlast's rows verified like every rung (skipped,
# 77, without CLBlast, but in CI).
foreach(mode float double int params stale wrong clblast)
  add_test(NAME reduce_${mode} COMMAND ${KL_RED_CHECK} ${KL_RED_KLADDER} ${mode})
  set_tests_properties(reduce_${mode} PROPERTIES SKIP_RETURN_CODE 77)
  list(APPEND KL_RED_TESTS reduce_${mode})
endforeach()
set_tests_properties(${KL_RED_TESTS} PROPERTIES LABELS "pocl;reduce")

# oclgrind: every reduce kernel, for every operation, one test per type (tests/tiers.cmake
# rotates double and int); skipped without oclgrind unless CI=true.
foreach(type float double int)
  add_test(NAME oclgrind_reduce_${type} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_reduce.sh
           ${KL_RED_KLADDER} ${type})
  set_tests_properties(oclgrind_reduce_${type} PROPERTIES SKIP_RETURN_CODE 77
                       LABELS "oclgrind;reduce")
endforeach()

# Bad input: a clear message and exit 2; a peer that cannot run here: a skipped row that says why.
kl_cli_test(reduce_type_half 2 "reduce takes --type float, double or int, not half" reduce --type half ${QUICK})
kl_cli_test(reduce_op_unknown 2 "op: \"avg\" is not one of sum min max" reduce --op avg)
kl_cli_test(reduce_data_unknown 2 "data: \"odd\" is not one of random skewed" reduce --data odd)
kl_cli_test(reduce_size_zero 2 "--size: 0 is out of range" reduce --size 0)
kl_cli_test(reduce_two_sizes 2 "reduce takes 1 size with --size \\(got 2\\)" reduce --size 3,4)
kl_cli_test(reduce_unknown_peer 2 "unknown peer \"npp\" for reduce \\(cub or clblast\\)" reduce --size 10 --compare npp ${QUICK})
kl_cli_test(reduce_unknown_rung 2 "unknown reduce rung \"nosuch\".*00_host 01_interleaved" reduce --rung nosuch ${QUICK})
kl_cli_test(reduce_wg_not_pow2 2 "rung 01_interleaved: WG=3 is out of range .*power of two" reduce --size 10 --param WG=3 ${QUICK})
kl_cli_test(reduce_subgroup_named 2 "rung 05_subgroup: the device has no sub-groups" reduce --size 10 --rung 05 ${QUICK})
kl_cli_test(reduce_compare_elsewhere 0 "peer:cub skipped: CUB runs beside NVIDIA devices only" reduce --size 10 --rung 00 --compare cub ${QUICK})
