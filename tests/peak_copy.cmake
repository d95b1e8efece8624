# Tests for `kladder peak` (device ceilings and their cache) and `kladder copy`
# (the ILP ladder of seed 003); issue 3. Included from tests/CMakeLists.txt.
# Every test here carries the label peak_copy (ctest -L peak_copy), and runs
# with KLADDER_CACHE_DIR pointing at a directory that does not exist, so that
# no user's ceiling cache changes a result; the scripts use their own mktemp -d.

set(KL_PC_KLADDER $<TARGET_FILE:kladder-cli>)
set(KL_PC_ENV KLADDER_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/peak_copy_no_cache)
set(KL_PC_TESTS "")

# Every peak row present and verified at the smallest buffer; --vec; --quick
# leaves the cache alone.
add_test(NAME peak_quick COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_peak.sh ${KL_PC_KLADDER})
# Every copy rung verified (or skipped with a reason) at awkward N, odd block
# sizes, vector tails, and the --sweep matrix.
add_test(NAME copy_ladder COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_copy.sh ${KL_PC_KLADDER})
# The ceiling cache: written, read back, damaged (truncated, garbage, empty),
# --refresh. Five full peak measurements: about a minute on PoCL.
add_test(NAME peak_cache COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_cache.sh ${KL_PC_KLADDER})
set_tests_properties(peak_quick copy_ladder peak_cache PROPERTIES LABELS pocl)
if(NOT KLADDER_SANITIZE)
  # peak_quick builds its kernels afresh (PoCL's cache off), so that the compiler's
  # warnings are printed and must be caught; not under ASan's slow unwinder (sanitize.sh),
  # where a cold PoCL build takes seconds.
  set_tests_properties(peak_quick PROPERTIES ENVIRONMENT KL_TEST_COLD_BUILDS=1)
endif()
set_tests_properties(peak_cache PROPERTIES TIMEOUT 300)
list(APPEND KL_PC_TESTS peak_quick copy_ladder peak_cache)
# The first run's brief search: what it measures and caches (peak_brief), and its figures
# against the full search's, within 10% (medians of three; peak_brief_figures: alone on the
# machine, since it compares speeds, and not under the sanitizers).
add_test(NAME peak_brief COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_brief.sh ${KL_PC_KLADDER}
                                 behaviour)
set_tests_properties(peak_brief PROPERTIES LABELS pocl TIMEOUT 300)
list(APPEND KL_PC_TESTS peak_brief)
if(NOT KLADDER_SANITIZE)
  add_test(NAME peak_brief_figures COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_brief.sh
                                           ${KL_PC_KLADDER} figures)
  set_tests_properties(peak_brief_figures PROPERTIES LABELS pocl RUN_SERIAL TRUE TIMEOUT 400)
  list(APPEND KL_PC_TESTS peak_brief_figures)
  # --cold: a copy inside the cache is slower with the cache flushed before each launch.
  add_test(NAME copy_cold COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_cold.sh ${KL_PC_KLADDER})
  set_tests_properties(copy_cold PROPERTIES LABELS pocl RUN_SERIAL TRUE)
  list(APPEND KL_PC_TESTS copy_cold)
endif()

# Bad input: a clear message and exit 2.
set(KL_PC_QUICK --warmup 0 --repeats 1 --min-time 0)
macro(kl_pc_cli name code regex)
  kl_cli_test(${name} ${code} ${regex} ${ARGN})
  list(APPEND KL_PC_TESTS cli_${name})
endmacro()
kl_pc_cli(copy_n_zero 2 "--n: 0 is out of range" copy --n 0)
kl_pc_cli(copy_n_negative 2 "--n: -5 is out of range" copy --n -5)
kl_pc_cli(copy_n_nonnumeric 2 "--n: \"abc\" is not an integer" copy --n abc)
kl_pc_cli(copy_ilp_not_pow2 2 "rung vec4: ILP=3 is out of range .*power of two" copy --rung vec4 --param ILP=3)
kl_pc_cli(copy_ilp_over_n 2 "rung ilp8 copies ILP=8 elements per work-item, more than N=4" copy --n 4 --rung ilp8)
kl_pc_cli(copy_vec_over_n 2 "rung vec2 copies ILP=4 elements per work-item, more than N=3" copy --n 3 --rung vec2 --param ILP=4)
# (no ";" in a regex: CMake would split it)
kl_pc_cli(copy_unknown_rung 2 "unknown copy rung \"nosuch\".*they are: ilp1 ilp2 ilp4 ilp8 ilp16 seed_ilp1 seed_ilp2 seed_ilp4 seed_ilp8 seed_ilp16 vec2 vec4" copy --rung nosuch)
kl_pc_cli(copy_param_not_for_rung 2 "unknown parameter ILP for the chosen rungs" copy --n 64 --rung ilp8 --param ILP=2)
kl_pc_cli(copy_bs_out_of_range 2 "BS=0 is out of range" copy --n 64 --rung ilp1 --param BS=0)
kl_pc_cli(copy_sweep_below_512 2 "the sweep starts at N=512" copy --sweep --max-n 100)
kl_pc_cli(copy_type_not_applicable 2 "option --type does not apply to copy" copy --type int)
kl_pc_cli(peak_vec_unknown 2 "--vec: unknown vector width \"3\"" peak --vec 3)
kl_pc_cli(peak_vec_too_wide 2 "--vec: unknown vector width \"32\"" peak --vec 32)
kl_pc_cli(peak_vec_zero 2 "--vec: unknown vector width \"0\"" peak --vec 0)
kl_pc_cli(peak_vec_empty 2 "--vec needs a vector width" peak --vec=)
# The parser's lower bound (4096) is not the real one (64 KiB): match only the
# part that stays true once they agree.
kl_pc_cli(peak_bytes_tiny 2 "--bytes: 10 is out of range" peak --bytes 10)
kl_pc_cli(peak_bytes_below_64k 2 "--bytes: 4096 is out of range .65536[.][.]" peak --bytes 4096 ${KL_PC_QUICK})
kl_pc_cli(peak_rung_not_applicable 2 "option --rung does not apply to peak" peak --rung copy_v4)
kl_pc_cli(gemm_sweep_not_applicable 2 "option --sweep does not apply to gemm" gemm --sweep)
# Success paths that need no measurement.
kl_pc_cli(copy_list_rungs 0 "vec4 +uint4" copy --list-rungs)
kl_pc_cli(help_peak_copy 0 "--vec W" peak --help)

# oclgrind: every peak kernel (split by vector width, so the halves run side
# by side) and every copy kernel; skipped without oclgrind unless CI=true.
set(KL_PC_OCLGRIND ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_peak_copy.sh)
add_test(NAME oclgrind_peak_v1 COMMAND ${KL_PC_OCLGRIND} ${KL_PC_KLADDER} peak 1)
add_test(NAME oclgrind_peak_v2_16 COMMAND ${KL_PC_OCLGRIND} ${KL_PC_KLADDER} peak 2,4,8,16)
add_test(NAME oclgrind_copy COMMAND ${KL_PC_OCLGRIND} ${KL_PC_KLADDER} copy)
set_tests_properties(oclgrind_peak_v1 oclgrind_peak_v2_16 oclgrind_copy PROPERTIES
                     SKIP_RETURN_CODE 77 LABELS oclgrind TIMEOUT 600)
list(APPEND KL_PC_TESTS oclgrind_peak_v1 oclgrind_peak_v2_16 oclgrind_copy)

set_property(TEST ${KL_PC_TESTS} APPEND PROPERTY ENVIRONMENT ${KL_PC_ENV})
set_property(TEST ${KL_PC_TESTS} APPEND PROPERTY LABELS peak_copy)
