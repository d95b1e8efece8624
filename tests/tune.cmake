# Tests for `kladder tune` (the GEMM tuner and its cache) and `kladder gemm
# --compare` (vendor GEMMs as peer rows). Included from tests/CMakeLists.txt.
# Every test here carries the label tune (ctest -L tune) and runs with
# KLADDER_CACHE_DIR pointing at a directory that does not exist, so that no
# user's ceilings or tuned parameters change a result; the scripts use their
# own mktemp -d. Sizes are 64³ or smaller and budgets a few seconds: about
# 30 s in all on PoCL with 2 cores.

set(KL_TUNE_KLADDER $<TARGET_FILE:kladder-cli>)
set(KL_TUNE_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/check_tune.sh)
set(KL_TUNE_TESTS "")

# The spaces of the real rung tables (every enumerated candidate passes every
# constraint, known-bad combinations are pruned) on the default device and on
# it described as a 1024-item, 48 KiB GPU; the cache file (round trip,
# checksum, version, identity, damage). Nothing is built.
kl_c_test(test_tune)
add_test(NAME tune_units COMMAND test_tune)
list(APPEND KL_TUNE_TESTS tune_units)

# The budget holds (wall time within it and 3 s of slack, 30 s under the
# sanitizers: below), progress on stderr,
# the best cached with its provenance.
add_test(NAME tune_budget COMMAND ${KL_TUNE_CHECK} ${KL_TUNE_KLADDER} budget)
# A candidate that computes the wrong thing (a broken copy of 10_tiled, wrong
# at TS=4 only, through --kernel-dir) is rejected, logged, never the best.
add_test(NAME tune_rejects_wrong COMMAND ${KL_TUNE_CHECK} ${KL_TUNE_KLADDER} wrong
         ${CMAKE_SOURCE_DIR}/kernels)
# Tuned parameters reach `kladder gemm` (same size class only; --param and
# --no-tuned win); --show; a corrupt cache survived with a warning; --clear.
add_test(NAME tune_cache COMMAND ${KL_TUNE_CHECK} ${KL_TUNE_KLADDER} cache)
# Every type tunes, each cached and taken under its own (half and int8: C wider than A).
add_test(NAME tune_types COMMAND ${KL_TUNE_CHECK} ${KL_TUNE_KLADDER} types)
# --compare openblas,cublas,clblast: OpenBLAS a verified host peer, cuBLAS
# skipped with its reason away from NVIDIA, int skipped, an unknown peer exit 2.
add_test(NAME gemm_compare COMMAND ${KL_TUNE_CHECK} ${KL_TUNE_KLADDER} compare)
list(APPEND KL_TUNE_TESTS tune_budget tune_rejects_wrong tune_cache tune_types gemm_compare)
set_tests_properties(tune_budget tune_rejects_wrong tune_cache tune_types gemm_compare PROPERTIES LABELS pocl)
if(KLADDER_SANITIZE)
  # A build that starts inside the budget runs to its end, and under ASan's
  # slow unwinder (scripts/sanitize.sh) one cold PoCL build takes 5-12 s where
  # it takes 0.1 s in the plain suite, which keeps the 3 s of slack.
  set_tests_properties(tune_budget PROPERTIES ENVIRONMENT KL_TEST_BUDGET_SLACK_MS=30000)
endif()

# Bad input: a clear message and exit 2, before anything is built.
function(kl_tune_cli name code regex)
  kl_cli_test(${name} ${code} ${regex} ${ARGN})
  set(KL_TUNE_TESTS ${KL_TUNE_TESTS} cli_${name} PARENT_SCOPE)
endfunction()
kl_tune_cli(tune_no_workload 2 "tune needs a workload: kladder tune gemm" tune)
kl_tune_cli(tune_unknown_workload 2 "kladder tune takes a ladder: gemm, copy, rowdot, gemv, blur, reduce, scan, histogram, transpose or softmax \\(got \"nosuch\"\\)" tune nosuch)
kl_tune_cli(tune_host_rung 2 "rung host_ijk has no parameters to tune \\(it is a host loop\\)" tune gemm --size 8 --rung host_ijk)
kl_tune_cli(tune_unknown_rung 2 "unknown rung \"99\". they are:" tune gemm --size 8 --rung 99)
kl_tune_cli(tune_bad_budget 2 "--budget: \"soon\" is not a time" tune gemm --budget soon)
kl_tune_cli(tune_show_and_size 2 "--show and --clear take only --all, --device and --backend" tune --show --size 8)
kl_tune_cli(tune_all_alone 2 "--all goes with --show or --clear" tune gemm --all)
kl_tune_cli(tune_param_not_applicable 2 "option --param applies to tune only with --kernel FILE or --rung R" tune gemm --param TS=8)
kl_tune_cli(tune_cuda_rung_elsewhere 2 "rung 14_warptile is CUDA C\\+\\+: tune it with --backend cuda" tune gemm --size 8 --rung 14 --backend opencl)
kl_tune_cli(gemm_compare_empty 2 "--compare needs a library name" gemm --size 8 --compare ,)
kl_tune_cli(tune_show_empty 0 "no tuned parameters" tune --show --all)

set_property(TEST ${KL_TUNE_TESTS} APPEND PROPERTY ENVIRONMENT
             KLADDER_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/tune_no_cache)
set_property(TEST ${KL_TUNE_TESTS} APPEND PROPERTY LABELS tune)
set_tests_properties(${KL_TUNE_TESTS} PROPERTIES SKIP_RETURN_CODE 77)
