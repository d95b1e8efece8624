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
  # MPI's ranks, the controls that keep kladder-mpi mgemm's ranks in step, on three ranks.
  add_executable(test_ranks ${CMAKE_CURRENT_SOURCE_DIR}/test_ranks.c
                            ${CMAKE_SOURCE_DIR}/src/cli/mpi_ranks.c)
  target_include_directories(test_ranks PRIVATE ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR}/include)
  target_link_libraries(test_ranks PRIVATE MPI::MPI_C)
  add_test(NAME fleet_ranks COMMAND ${MPIEXEC_EXECUTABLE} -n 3 --oversubscribe
                                    $<TARGET_FILE:test_ranks>)
  set_tests_properties(fleet_ranks PROPERTIES ENVIRONMENT
                       "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  list(APPEND KL_FLEET_TESTS fleet_ranks)
endif()
set_tests_properties(${KL_FLEET_TESTS} PROPERTIES LABELS "fleet;pocl" TIMEOUT 300)
