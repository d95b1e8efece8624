# End-to-end assertions where a unit test stood alone (tests/check_end_to_end.sh):
# every workload's FLOP and byte counts against its formula and its rows' rates and
# statistics against their samples; a do-nothing and a half-writing user kernel
# after the built-in rungs fail verification; a __local or __constant buffer
# argument is refused before anything runs; a result off by half the stated tolerance
# passes and one off by 1.5 times fails; a summary with characters every writer must
# escape survives each format. Label end_to_end.
set(KL_E2E ${CMAKE_CURRENT_SOURCE_DIR}/check_end_to_end.sh)
foreach(mode counts lazy args tolerance strings)
  add_test(NAME e2e_${mode} COMMAND ${KL_E2E} $<TARGET_FILE:kladder-cli> ${mode})
  set_tests_properties(e2e_${mode} PROPERTIES LABELS "end_to_end;pocl")
endforeach()
