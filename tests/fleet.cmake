# Fleets: one command on several devices at once (--device all, lists) and
# kladder-mpi's ranks gathered by rank 0 (tests/check_fleet.sh says what each
# mode checks). PoCL's two "pthread" devices stand in for two GPUs. Included
# from tests/CMakeLists.txt; label fleet. About 20 s of test time on 2 cores.

set(KL_FLEET ${CMAKE_CURRENT_SOURCE_DIR}/check_fleet.sh)
set(KL_FLEET_TESTS "")
foreach(mode devices stragglers interrupt)
  add_test(NAME fleet_${mode} COMMAND ${KL_FLEET} $<TARGET_FILE:kladder-cli> ${mode})
  list(APPEND KL_FLEET_TESTS fleet_${mode})
endforeach()
if(KLADDER_HAVE_MPI)
  add_test(NAME fleet_mpi COMMAND ${KL_FLEET} $<TARGET_FILE:kladder-cli> mpi
           $<TARGET_FILE:kladder-mpi>)
  list(APPEND KL_FLEET_TESTS fleet_mpi)
  # peak --collectives between two ranks (MPI on host memory here) and what kladder-mpi refuses.
  add_test(NAME fleet_collectives COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_collectives.sh
           $<TARGET_FILE:kladder-cli> $<TARGET_FILE:kladder-mpi>)
  list(APPEND KL_FLEET_TESTS fleet_collectives)
endif()
set_tests_properties(${KL_FLEET_TESTS} PROPERTIES LABELS "fleet;pocl" TIMEOUT 300)
