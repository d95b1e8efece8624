# The user's own kernels as rungs (--kernel; issue 16): every workload's
# template verified (and under oclgrind), and each mistake a user makes gets
# a clear message and a non-zero exit, never a speed. The files of
# tests/user_kernels/ make one mistake each. Included from
# tests/CMakeLists.txt; label user_kernels.

set(KL_UK ${CMAKE_CURRENT_SOURCE_DIR}/user_kernels)
set(KL_UK_TESTS "")
add_test(NAME user_templates COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_templates.sh
         $<TARGET_FILE:kladder-cli>)
list(APPEND KL_UK_TESTS user_templates)
# A successful build's warnings go to the report's build_logs, never to the terminal.
add_test(NAME user_build_log COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_build_log.sh
         $<TARGET_FILE:kladder-cli>)
list(APPEND KL_UK_TESTS user_build_log)

# (No ";" in a regex: CMake would split it.)
function(kl_uk name code regex file)
  kl_cli_test(user_${name} ${code} ${regex} rowdot --rows 37 --d 11 ${QUICK}
              --kernel ${KL_UK}/${file} ${ARGN})
  set(KL_UK_TESTS ${KL_UK_TESTS} cli_user_${name} PARENT_SCOPE)
endfunction()
kl_uk(missing_file 2 "cannot open .*no_such_file.cl" no_such_file.cl)
kl_uk(no_entry 3 "no kernel \"nosuch\"" arg_count.cl:nosuch)
kl_uk(arg_count 2 "kernel rowdot takes 6 arguments. a rowdot kernel takes 7: rowdot\\(" arg_count.cl)
kl_uk(arg_type 2 "argument 5 of kernel rowdot is float. a rowdot kernel takes int there" arg_type.cl)
# file and line as each compiler writes them: "f.cl:9:5", NVRTC's "f.cl(9)"
kl_uk(build_error 3 "build_error.cl.9[:)]" build_error.cl)
kl_uk(malformed 2 "malformed.cl:5: \"kladder: param\" takes NAME DEFAULT MIN..MAX" malformed.cl)
kl_uk(no_block 2 "must say \"kladder: workload NAME\".*missing: workload global local" no_block.cl)
kl_uk(too_big 2 "work-group of 65536 work-items exceeds the device's maximum" too_big.cl)
kl_uk(wrong_result 1 "wrong_result failed: 37 of 37 results differ from the reference. first at 0: got" wrong_result.cl)
kl_uk(past_end 1 "past_end failed: the kernel wrote past the end of its 37 results" past_end.cl)
kl_uk(unknown_name 2 "unknown name \"Q\". known: Y D" unknown_name.cl)
kl_uk(name_taken 2 "the rung name \"01_naive\" is taken" name_taken.cl)
kl_uk(param_range 2 "WG=2000 is out of range" arg_count.cl --param WG=2000)
kl_uk(default_out_of_range 2 "default_out_of_range.cl:5: .kladder: param. takes .*the default within the range" default_out_of_range.cl)
kl_cli_test(user_wrong_workload 2 "is a kernel for gemv .its line \"kladder: workload gemv\"., not for rowdot"
            rowdot --rows 37 --d 11 ${QUICK} --kernel ${CMAKE_SOURCE_DIR}/kernels/templates/gemv.cl)
kl_cli_test(user_no_template 2 "no template for \"nosuch\"" template nosuch)
kl_cli_test(user_layout_elsewhere 2 "rowdot has one layout" rowdot --rows 37 --d 11 ${QUICK}
            --kernel ${KL_UK}/layout.cl)
kl_cli_test(user_blur_output 2 "--output-rung blur: the picture is written from a built-in rung"
            blur --width 37 --height 11 ${QUICK} --kernel ${CMAKE_SOURCE_DIR}/kernels/templates/blur.cl
            --output user_blur_output.png --output-rung blur)
list(APPEND KL_UK_TESTS cli_user_wrong_workload cli_user_no_template cli_user_layout_elsewhere
     cli_user_blur_output)

# kladder tune WORKLOAD --kernel FILE (or --rung R): the search, and what it refuses.
add_test(NAME user_tune COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/check_tune_user.sh
         $<TARGET_FILE:kladder-cli> ${CMAKE_SOURCE_DIR})
function(kl_uk_tune name code regex)
  kl_cli_test(user_tune_${name} ${code} ${regex} tune ${ARGN})
  set(KL_UK_TESTS ${KL_UK_TESTS} cli_user_tune_${name} PARENT_SCOPE)
endfunction()
kl_uk_tune(needs_kernel 2 "kladder tune rowdot tunes one of its rungs \\(--rung R\\) or the user's kernels \\(--kernel FILE\\)" rowdot)
kl_uk_tune(not_a_ladder 2 "kladder tune takes a ladder: gemm, copy, rowdot, gemv, blur, reduce, scan, histogram, transpose or softmax" peak)
kl_uk_tune(two_kernels 2 "tune takes one --kernel at a time" rowdot --kernel ${KL_UK}/past_end.cl
           --kernel ${KL_UK}/wrong_result.cl)
kl_uk_tune(with_param 2 "no --rung, --param, --show or --clear with it" rowdot
           --kernel ${KL_UK}/past_end.cl --param WG=4)
kl_uk_tune(workload_option 2 "option --format applies to tune only with --kernel FILE or --rung R" gemm
           --format csv)
kl_uk_tune(rungs_two 2 "kladder tune blur searches one rung at a time \\(2 given\\)" blur --rung 05,06)
kl_uk_tune(rung_param 2 "tune --rung searches the rung's parameters: no --param with it" blur
           --rung 06 --param BX=8)
kl_uk_tune(no_params 2 "rung no_params has no parameters to tune" rowdot --rows 37 --d 11
           --kernel ${KL_UK}/no_params.cl)
kl_uk_tune(none_verified 1 "no candidate of past_end was verified" rowdot --rows 37 --d 11 ${QUICK}
           --kernel ${KL_UK}/past_end.cl --budget 20)
list(APPEND KL_UK_TESTS user_tune)
set_tests_properties(${KL_UK_TESTS} PROPERTIES LABELS "pocl;user_kernels")
