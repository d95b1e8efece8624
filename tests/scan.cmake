# Tests for `kladder scan`, the prefix-scan ladder. Included from
# tests/CMakeLists.txt; every test carries the label scan (ctest -L scan).

set(KL_SCAN_KLADDER $<TARGET_FILE:kladder-cli>)
set(KL_SCAN_TESTS "")

# Every rung verified at 1, 31, 33, 1023, 1025 and 10^6 + 7 elements, inclusive and
# exclusive, on random, skewed and constant data: one test per element type; small and
# extreme parameters and repeated checks; the template made almost right three ways, each
# failed.
foreach(mode float int params wrong)
  add_test(NAME scan_${mode} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_scan.sh ${KL_SCAN_KLADDER}
           ${mode})
  list(APPEND KL_SCAN_TESTS scan_${mode})
endforeach()
set_tests_properties(${KL_SCAN_TESTS} PROPERTIES LABELS "pocl;scan")

# oclgrind: every scan kernel, a rung a process, in float and int; skipped without oclgrind
# unless CI=true.
foreach(type float int)
  add_test(NAME oclgrind_scan_${type} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_scan.sh
           ${KL_SCAN_KLADDER} ${type})
  set_tests_properties(oclgrind_scan_${type} PROPERTIES SKIP_RETURN_CODE 77 LABELS "oclgrind;scan")
endforeach()

# Bad input: a clear message and exit 2; a peer that cannot run here: a skipped row that says why.
kl_cli_test(scan_type_double 2 "scan takes --type float or int, not double" scan --type double ${QUICK})
kl_cli_test(scan_mode_unknown 2 "mode: \"sideways\" is not one of inclusive exclusive" scan --mode sideways)
kl_cli_test(scan_data_unknown 2 "data: \"odd\" is not one of random skewed constant" scan --data odd)
kl_cli_test(scan_checks_zero 2 "checks: \"0\" is not an integer from 1 to 1000" scan --checks 0)
kl_cli_test(scan_constant_too_long 2 "--data constant in float takes at most 2\\^24 elements" scan --size 20000000 --data constant ${QUICK})
kl_cli_test(scan_unknown_peer 2 "unknown peer \"npp\" for scan \\(cub\\)" scan --size 10 --compare npp ${QUICK})
kl_cli_test(scan_v_range 2 "rung 05_look_back: V=17 is out of range" scan --size 10 --rung 05 --param V=17 ${QUICK})
kl_cli_test(scan_compare_elsewhere 0 "peer:cub skipped: CUB runs beside NVIDIA devices only" scan --size 10 --rung 00 --compare cub ${QUICK})
