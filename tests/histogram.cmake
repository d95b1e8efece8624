# Tests for `kladder histogram`, the histogram ladder. Included from
# tests/CMakeLists.txt; every test carries the label histogram (ctest -L histogram).

set(KL_HIST_KLADDER $<TARGET_FILE:kladder-cli>)
set(KL_HIST_TESTS "")

# Every rung verified at 1, 31, 33, 1023, 1025 and 10^6 + 7 bytes in 2, 3, 17 and 256 bins
# on uniform, skewed and constant bytes; small and extreme parameters; the template made
# almost right two ways (a byte left out, one counted twice), each failed; a kernel right on
# its first launch only (it leaves state behind), failed after the timed launches.
foreach(bins 2 3 17 256)
  add_test(NAME histogram_rungs_${bins} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_histogram.sh
           ${KL_HIST_KLADDER} rungs ${bins})
  list(APPEND KL_HIST_TESTS histogram_rungs_${bins})
endforeach()
foreach(mode params wrong stale)
  add_test(NAME histogram_${mode} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_histogram.sh
           ${KL_HIST_KLADDER} ${mode})
  list(APPEND KL_HIST_TESTS histogram_${mode})
endforeach()
set_tests_properties(${KL_HIST_TESTS} PROPERTIES LABELS "pocl;histogram")

# oclgrind: every histogram kernel; skipped without oclgrind unless CI=true.
add_test(NAME oclgrind_histogram COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_histogram.sh
         ${KL_HIST_KLADDER})
set_tests_properties(oclgrind_histogram PROPERTIES SKIP_RETURN_CODE 77 LABELS "oclgrind;histogram")

# Bad input: a clear message and exit 2; a peer that cannot run here: a skipped row that says why.
kl_cli_test(histogram_bins_one 2 "bins: \"1\" is not an integer from 2 to 256" histogram --bins 1)
kl_cli_test(histogram_bins_many 2 "bins: \"300\" is not an integer from 2 to 256" histogram --bins 300)
kl_cli_test(histogram_data_unknown 2 "data: \"odd\" is not one of uniform skewed constant" histogram --data odd)
kl_cli_test(histogram_type_float 2 "histogram takes --type uchar, not float" histogram --type float)
kl_cli_test(histogram_size_zero 2 "--size: 0 is out of range" histogram --size 0)
kl_cli_test(histogram_unknown_rung 2 "unknown histogram rung \"nosuch\".*00_host 01_global_atomics" histogram --rung nosuch ${QUICK})
kl_cli_test(histogram_wg_range 2 "rung 03_subgroup: WG=2048 is out of range .*power of two" histogram --size 10 --rung 03 --param WG=2048 ${QUICK})
kl_cli_test(histogram_unknown_peer 2 "unknown peer \"npp\" for histogram \\(cub\\)" histogram --size 10 --compare npp ${QUICK})
kl_cli_test(histogram_gpc_range 2 "rung 02_local: GPC=65 is out of range" histogram --size 10 --rung 02 --param GPC=65 ${QUICK})
kl_cli_test(histogram_compare_elsewhere 0 "peer:cub skipped: CUB runs beside NVIDIA devices only" histogram --size 10 --rung 00 --compare cub ${QUICK})
