# Empties every test's working directory under WORK (keeping the directory,
# which CTest needs to exist): the fixture that starts each ctest run afresh.
file(GLOB dirs LIST_DIRECTORIES true ${WORK}/*)
foreach(d IN LISTS dirs)
  if(IS_DIRECTORY ${d})
    file(GLOB inside LIST_DIRECTORIES true ${d}/* ${d}/.*)
    if(inside)
      file(REMOVE_RECURSE ${inside})
    endif()
  endif()
endforeach()
