# Writes the man page and the shell completions that the CLI makes from its
# option table: cmake -DKLADDER=path/to/kladder -DOUT=dir -P cli_docs.cmake
file(MAKE_DIRECTORY ${OUT}/completions)
foreach(job "help;--man;kladder.1" "completion;bash;completions/kladder"
            "completion;zsh;completions/_kladder")
  list(GET job 0 cmd)
  list(GET job 1 arg)
  list(GET job 2 file)
  execute_process(COMMAND ${KLADDER} ${cmd} ${arg} OUTPUT_FILE ${OUT}/${file}.tmp
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "kladder ${cmd} ${arg} failed (${rc})")
  endif()
  file(RENAME ${OUT}/${file}.tmp ${OUT}/${file})
endforeach()
