# Tests for `kladder transpose`, the transpose ladder. Included from
# tests/CMakeLists.txt; every test carries the label transpose (ctest -L transpose).

set(KL_TR_KLADDER $<TARGET_FILE:kladder-cli>)
set(KL_TR_TESTS "")

# Every rung verified at 1 x 1, 1 x 300, 300 x 1, 17 x 33 and 1023 x 1025, and in place at 1,
# 33 and 1024 square, a test per element size; small and extreme parameters, bf16 and CLBlast;
# the template made almost right three ways (an element left out, one misplaced, pairs swapped
# twice in place), each failed; a kernel right on its first launch only, failed after the
# timed launches.
foreach(type float double half)
  add_test(NAME transpose_rungs_${type} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_transpose.sh
           ${KL_TR_KLADDER} rungs ${type})
  list(APPEND KL_TR_TESTS transpose_rungs_${type})
endforeach()
foreach(mode params wrong stale)
  add_test(NAME transpose_${mode} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_transpose.sh
           ${KL_TR_KLADDER} ${mode})
  list(APPEND KL_TR_TESTS transpose_${mode})
endforeach()
set_tests_properties(${KL_TR_TESTS} PROPERTIES LABELS "pocl;transpose")

# oclgrind: every transpose kernel; skipped without oclgrind unless CI=true.
add_test(NAME oclgrind_transpose COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_transpose.sh
         ${KL_TR_KLADDER})
set_tests_properties(oclgrind_transpose PROPERTIES SKIP_RETURN_CODE 77 LABELS "oclgrind;transpose")

# Bad input: a clear message and exit 2; a peer that cannot run here: a skipped row that says why.
kl_cli_test(transpose_not_square 2 "--place in: a 3x4 matrix is not square" transpose --size 3,4 --place in)
kl_cli_test(transpose_place_unknown 2 "place: \"both\" is not one of out in" transpose --place both)
kl_cli_test(transpose_type_int 2 "transpose takes --type float, double, half or bf16, not int" transpose --type int)
kl_cli_test(transpose_size_zero 2 "--size: 0 is out of range" transpose --size 0,5)
kl_cli_test(transpose_size_one_dim 2 "transpose.*2 sizes" transpose --size 5)
kl_cli_test(transpose_too_many 2 "--size 65536,65536: at most 2\\^31 - 257 elements" transpose --size 65536,65536 ${QUICK})
kl_cli_test(transpose_unknown_rung 2 "unknown transpose rung \"nosuch\".*00_host 01_naive" transpose --rung nosuch ${QUICK})
kl_cli_test(transpose_rows_tile 2 "rung 02_tiled: TILE=16 is not a multiple of ROWS=32" transpose --size 10,10 --rung 02 --param TILE=16 --param ROWS=32 ${QUICK})
kl_cli_test(transpose_tile_pow2 2 "rung 05_vector: TILE=48 is out of range .*power of two" transpose --size 10,10 --rung 05 --param TILE=48 ${QUICK})
kl_cli_test(transpose_unknown_peer 2 "unknown peer \"cub\" for transpose \\(cublas or clblast\\)" transpose --size 10,10 --compare cub ${QUICK})
kl_cli_test(transpose_compare_elsewhere 0 "peer:cublas skipped: cuBLAS geam transposes float and double, not half" transpose --size 10,10 --type half --rung 00 --compare cublas ${QUICK})
kl_cli_test(transpose_clblast_in_place 0 "peer:clblast skipped: CLBlast's omatcopy transposes out of place only" transpose --size 10,10 --place in --rung 00 --compare clblast ${QUICK})
