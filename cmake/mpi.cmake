# kladder-mpi: the command line once per MPI rank, rank 0 gathering every rank's report
# into one fleet (src/cli/mpi_main.c). MPI is optional: without it, kladder-mpi is not
# built and the configure step says so.
option(KLADDER_MPI "Build kladder-mpi when an MPI implementation is found" ON)
if(KLADDER_MPI)
  find_package(MPI COMPONENTS C QUIET)
endif()
if(KLADDER_MPI AND MPI_C_FOUND)
  add_executable(kladder-mpi src/cli/mpi_main.c src/cli/mpi_coll.c src/cli/mpi_ranks.c)
  target_include_directories(kladder-mpi PRIVATE src)
  target_link_libraries(kladder-mpi PRIVATE kladder_cli kladder MPI::MPI_C)
  install(TARGETS kladder-mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  set(KLADDER_HAVE_MPI ON)
  message(STATUS "kladder-mpi: on (MPI ${MPI_C_VERSION})")
else()
  set(KLADDER_HAVE_MPI OFF)
  message(STATUS "kladder-mpi: off (no MPI found, or -DKLADDER_MPI=OFF); "
                 "on Debian, apt-get install libopenmpi-dev builds it")
endif()
