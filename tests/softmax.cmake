# Tests for `kladder softmax`, the softmax ladder. Included from tests/CMakeLists.txt;
# every test carries the label softmax (ctest -L softmax).

set(KL_SM_KLADDER $<TARGET_FILE:kladder-cli>)
set(KL_SM_TESTS "")

# Every rung and op verified at rows of 1, 31, 33, 1031 and 100003 columns and 1, 33 and 1000
# rows (overflow and tiny-variance rows among them), a test per element type; small and
# extreme parameters and the options; the template made almost right four ways (no max before
# exp, E[x^2] - mean^2, eps left out, a write past the end), each failed; a kernel right on its
# first launch only, failed after the timed launches.
foreach(type float half bf16)
  add_test(NAME softmax_rungs_${type} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_softmax.sh
           ${KL_SM_KLADDER} rungs ${type})
  list(APPEND KL_SM_TESTS softmax_rungs_${type})
endforeach()
foreach(mode params wrong stale)
  add_test(NAME softmax_${mode} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_softmax.sh
           ${KL_SM_KLADDER} ${mode})
  list(APPEND KL_SM_TESTS softmax_${mode})
endforeach()
set_tests_properties(${KL_SM_TESTS} PROPERTIES LABELS "pocl;softmax")

# oclgrind: every softmax kernel; skipped without oclgrind unless CI=true.
add_test(NAME oclgrind_softmax COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/oclgrind_softmax.sh
         ${KL_SM_KLADDER})
set_tests_properties(oclgrind_softmax PROPERTIES SKIP_RETURN_CODE 77 LABELS "oclgrind;softmax")

# Bad input: a clear message and exit 2.
kl_cli_test(softmax_op_unknown 2 "op: \"gelu\" is not one of softmax layernorm rmsnorm" softmax --op gelu)
kl_cli_test(softmax_type_double 2 "softmax takes --type float, half or bf16, not double" softmax --type double)
kl_cli_test(softmax_size_zero 2 "--size: 0 is out of range" softmax --size 0,5)
kl_cli_test(softmax_size_one_dim 2 "softmax.*2 sizes" softmax --size 5)
kl_cli_test(softmax_too_many 2 "--size 65536,65536: at most 2\\^31 - 257 elements" softmax --size 65536,65536 ${QUICK})
kl_cli_test(softmax_eps_zero 2 "gamma and beta finite, eps above 0" softmax --size 4,4 --op layernorm --eps 0 ${QUICK})
kl_cli_test(softmax_eps_word 2 "eps: \"small\" is not a number from 0 to 1" softmax --eps small)
kl_cli_test(softmax_gamma_nan 2 "gamma: \"nan\" is not a number" softmax --gamma nan)
kl_cli_test(softmax_unknown_rung 2 "unknown softmax rung \"nosuch\".*01_three_pass" softmax --rung nosuch ${QUICK})
kl_cli_test(softmax_nt_multiple 2 "rung 04_registers: NT=48 is out of range .*multiple of 32" softmax --size 4,70 --rung 04 --param NT=48 ${QUICK})
kl_cli_test(softmax_unknown_peer 2 "unknown peer \"cublas\" for softmax \\(cudnn\\)" softmax --size 4,70 --compare cublas ${QUICK})
kl_cli_test(softmax_compare_elsewhere 0 "peer:cudnn skipped: cuDNN runs beside NVIDIA devices only" softmax --size 4,70 --rung 01 --compare cudnn ${QUICK})
kl_cli_test(softmax_compare_norm 0 "peer:cudnn skipped: cuDNN runs beside NVIDIA devices only" softmax --size 4,70 --rung 01 --op layernorm --compare cudnn ${QUICK})
kl_cli_test(softmax_cluster_elsewhere 2 "rung 05_cluster: CUDA C\\+\\+: runs with --backend cuda" softmax --size 4,70 --rung 05 ${QUICK})
