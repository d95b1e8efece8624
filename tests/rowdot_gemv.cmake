# Tests for `kladder rowdot` (the weighted row dot of seed 000) and
# `kladder gemv` (with CLBlast and cuBLAS as peers); issue 4. Included from
# tests/CMakeLists.txt. Every test here carries the label rowdot_gemv
# (ctest -L rowdot_gemv) and runs with KLADDER_CACHE_DIR pointing at a
# directory that does not exist, so that no user's ceiling cache changes a
# result; the scripts use their own mktemp -d. All runs are small and use
# --warmup 0 --repeats 1 --min-time 0.

set(KL_RG_KLADDER $<TARGET_FILE:kladder-cli>)
set(KL_RG_ENV KLADDER_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/rowdot_gemv_no_cache)
set(KL_RG_ROWDOT ${CMAKE_CURRENT_SOURCE_DIR}/check_rowdot.sh)
set(KL_RG_GEMV ${CMAKE_CURRENT_SOURCE_DIR}/check_gemv.sh)
set(KL_RG_TESTS "")

# Every rung verified at 1×1, 1×1000, 7×1, 13×100, 3×5000, 17×33, 64×257 and
# D longer than local memory, with default and small parameters (and their
# extremes); 05_subgroup skipped, with the reason, without sub-groups. One
# test per element type, so they run side by side; double skips (77) without
# fp64.
foreach(type float double)
  add_test(NAME rowdot_${type} COMMAND ${KL_RG_ROWDOT} ${KL_RG_KLADDER} ${type})
  add_test(NAME gemv_${type} COMMAND ${KL_RG_GEMV} ${KL_RG_KLADDER} ${type})
  list(APPEND KL_RG_TESTS rowdot_${type} gemv_${type})
endforeach()
# --compare clblast,cublas: CLBlast's rows (both layouts) verified like every
# rung; cuBLAS skipped with its reason away from NVIDIA. Skipped (77) when
# CLBlast is not installed, except in CI (CI=true).
add_test(NAME gemv_compare_clblast COMMAND ${KL_RG_GEMV} ${KL_RG_KLADDER} compare)
list(APPEND KL_RG_TESTS gemv_compare_clblast)
set_tests_properties(${KL_RG_TESTS} PROPERTIES LABELS pocl)

# Bad input: a clear message and exit 2. (No ";" in a regex: CMake would
# split it.)
set(KL_RG_QUICK --warmup 0 --repeats 1 --min-time 0)
# (A function, not a macro: a macro would expand the backslashes of a regex.)
function(kl_rg_cli name code regex)
  kl_cli_test(${name} ${code} ${regex} ${ARGN})
  set(KL_RG_TESTS ${KL_RG_TESTS} cli_${name} PARENT_SCOPE)
endfunction()
kl_rg_cli(rowdot_rows_zero 2 "--rows: 0 is out of range" rowdot --rows 0 --d 5)
kl_rg_cli(rowdot_d_negative 2 "--d: -1 is out of range" rowdot --rows 3 --d -1)
kl_rg_cli(rowdot_d_nonnumeric 2 "--d: \"abc\" is not an integer" rowdot --rows 3 --d abc)
kl_rg_cli(rowdot_rows_over_limit 2 "--rows 3000000 --d 1: .*Y below 2\\^21" rowdot --rows 3000000 --d 1 ${KL_RG_QUICK})
kl_rg_cli(rowdot_elements_over_limit 2 "--rows 2 --d 2000000000: .*D below 2\\^31" rowdot --rows 2 --d 2000000000 ${KL_RG_QUICK})
kl_rg_cli(rowdot_type_int 2 "rowdot runs in float or double" rowdot --rows 3 --d 5 --type int ${KL_RG_QUICK})
kl_rg_cli(rowdot_unknown_rung 2 "unknown rowdot rung \"nosuch\".*they are: 01_naive 02_local_v 03_group_row 04_group_vec4 05_subgroup 06_rows_per_group" rowdot --rows 3 --d 5 --rung nosuch ${KL_RG_QUICK})
kl_rg_cli(rowdot_rpg_not_pow2 2 "rung 06_rows_per_group: RPG=3 is out of range .*power of two" rowdot --rows 3 --d 5 --param RPG=3 ${KL_RG_QUICK})
kl_rg_cli(rowdot_rpg_over_wg 2 "rung 06_rows_per_group: RPG=8 rows cannot share WG=4 work-items" rowdot --rows 3 --d 5 --rung 06 --param WG=4 --param RPG=8 ${KL_RG_QUICK})
kl_rg_cli(rowdot_param_not_for_rung 2 "unknown parameter RPG for the chosen rungs" rowdot --rows 3 --d 5 --rung 01 --param RPG=2 ${KL_RG_QUICK})
kl_rg_cli(rowdot_compare_not_applicable 2 "option --compare does not apply to rowdot" rowdot --compare clblast)
kl_rg_cli(gemv_m_zero 2 "--m: 0 is out of range" gemv --m 0 --n 4)
kl_rg_cli(gemv_type_int 2 "gemv runs in float or double" gemv --m 3 --n 4 --type int ${KL_RG_QUICK})
kl_rg_cli(gemv_unknown_peer 2 "unknown peer \"mkl\" for gemv \\(clblast or cublas\\)" gemv --m 3 --n 4 --compare mkl ${KL_RG_QUICK})
kl_rg_cli(gemv_compare_empty 2 "--compare needs a library name" gemv --m 3 --n 4 --compare ,)
kl_rg_cli(gemv_splits_zero 2 "rung 13_col_split: SPLITS=0 is out of range" gemv --m 3 --n 4 --param SPLITS=0 ${KL_RG_QUICK})
kl_rg_cli(gemv_wg_not_pow2 2 "rung 02_row_group: WG=3 is out of range .*power of two" gemv --m 3 --n 4 --param WG=3 ${KL_RG_QUICK})
kl_rg_cli(gemv_rpg_over_wg 2 "rung 03_row_multirow: RPG=8 rows cannot share WG=4 work-items" gemv --m 3 --n 4 --rung 03 --param WG=4 --param RPG=8 ${KL_RG_QUICK})
kl_rg_cli(gemv_unknown_rung 2 "unknown gemv rung \"nosuch\".*they are: 01_row_naive" gemv --m 3 --n 4 --rung nosuch ${KL_RG_QUICK})
kl_rg_cli(gemv_k_not_applicable 2 "option --k does not apply to gemv" gemv --m 3 --n 4 --k 5)
# 05_subgroup named with --rung: refused (exit 2) on a device without
# sub-groups such as PoCL, verified on one with them.
add_test(NAME cli_rowdot_subgroup_rung COMMAND ${KL_RG_ROWDOT} ${KL_RG_KLADDER} subgroup_rung)
# A matrix above the device's largest allocation is refused before anything
# runs (skipped, 77, where no matrix below 2^31 elements exceeds it).
add_test(NAME cli_rowdot_too_big_alloc COMMAND ${KL_RG_ROWDOT} ${KL_RG_KLADDER} too_big)
add_test(NAME cli_gemv_too_big_alloc COMMAND ${KL_RG_GEMV} ${KL_RG_KLADDER} too_big)
list(APPEND KL_RG_TESTS cli_rowdot_subgroup_rung cli_rowdot_too_big_alloc cli_gemv_too_big_alloc)
# Success paths that need no measurement, and the table.
kl_rg_cli(rowdot_list_rungs 0 "06_rows_per_group +for short rows: RPG rows per work-group" rowdot --list-rungs)
kl_rg_cli(gemv_list_rungs 0 "13_col_split +S column splits" gemv --list-rungs)
kl_rg_cli(rowdot_table 0 "06_rows_per_group +verified" rowdot --rows 3 --d 5 ${KL_RG_QUICK})
kl_rg_cli(gemv_table 0 "13_col_split +verified" gemv --m 3 --n 5 ${KL_RG_QUICK})

# oclgrind: every rowdot and every gemv kernel, float and double (a test
# each, side by side); skipped without oclgrind unless CI=true.
set(KL_RG_OCLGRIND ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_rowdot_gemv.sh)
add_test(NAME oclgrind_rowdot COMMAND ${KL_RG_OCLGRIND} ${KL_RG_KLADDER} rowdot)
add_test(NAME oclgrind_gemv COMMAND ${KL_RG_OCLGRIND} ${KL_RG_KLADDER} gemv)
set_tests_properties(oclgrind_rowdot oclgrind_gemv PROPERTIES LABELS oclgrind TIMEOUT 600)
list(APPEND KL_RG_TESTS oclgrind_rowdot oclgrind_gemv)

set_property(TEST ${KL_RG_TESTS} APPEND PROPERTY ENVIRONMENT ${KL_RG_ENV})
set_property(TEST ${KL_RG_TESTS} APPEND PROPERTY LABELS rowdot_gemv)
set_tests_properties(${KL_RG_TESTS} PROPERTIES SKIP_RETURN_CODE 77)
