# The test tiers (docs/ARCHITECTURE.md, "Test tiers"), included last from
# tests/CMakeLists.txt, when every test exists. Every test carries one tier
# label:
#   fast      every test of behaviour, and one representative of each
#             expensive family: run every time (scripts/test.sh, CI);
#   rotating  the rest of those families, each also labelled with one part,
#             part0 ... part<KL_TEST_PARTS - 1>: scripts/test.sh runs the part
#             of the day of the year modulo KL_TEST_PARTS (as the mutation
#             sample rotates), so every test runs within KL_TEST_PARTS days;
#             scripts/test.sh --all runs every part.
# The families and their representatives in the fast tier:
#   oclgrind on the GEMM rungs   one type per element size: float, double,
#                                half, fp8; int and int8 (each 5 minutes under
#                                the simulator) rotate
#   oclgrind on peak's kernels   vector width 1; widths 2 to 16 rotate
#   oclgrind on the blur rungs   float pixels; uchar4 rotates
#   NVRTC                        every kernel file once (nvrtc); the other
#                                option sets in three shares (nvrtc_rest_K)
#   the GEMM rungs by type       float and int8 (int32 sums); int, double, half,
#                                bf16, fp8 and fp8e5m2 rotate (oclgrind checks
#                                every rung daily in double and half too)
#   rowdot and GEMV by type      float; double rotates
#   oclgrind on the reduce rungs float; double and int rotate
#   the blur rungs by parameters the defaults, in float and uchar4; the tile,
#                                one-pixel and eight-pixel sets rotate
#   the brief search             what it measures and caches (peak_brief); its
#                                figures against the full search's, three runs
#                                alone on the machine (peak_brief_figures), rotate
# A new test longer than 20 s on 2 cores joins a family with its representative
# here, or says below why it runs every time.
#
# Fast tests over 20 s on 2 cores, and why each runs every time:
#   peak_cache, peak_quick  the ceilings every % roof divides by, and their cache
#   install           the installed library, package and headers as a user builds against them
#   user_tune         the tuner on a user's kernel, end to end
#   report_browser    the page in a real browser
#   fleet_devices     several devices at once, each a process
#   hardening_tune_lock  two tuners sharing one cache file
#   blur_png_native, blur_png_converted  real pictures in and out
#   cli_main_job_json_clean  the main job as a new user runs it

set(KL_TEST_PARTS 4)

# kl_rotating(PART test...): the tests of the rotating tier in part PART.
function(kl_rotating part)
  foreach(test IN LISTS ARGN)
    if(NOT TEST ${test} AND test MATCHES "^nvrtc_" AND NOT KLADDER_HAVE_CUDA)
      continue() # built with the CUDA backend only
    elseif(NOT TEST ${test} AND test STREQUAL "peak_brief_figures" AND KLADDER_SANITIZE)
      continue() # timing: not under the sanitizers
    elseif(NOT TEST ${test})
      message(FATAL_ERROR "tiers.cmake: no test ${test} to put in part${part}")
    endif()
    set_property(TEST ${test} APPEND PROPERTY LABELS rotating part${part})
  endforeach()
endfunction()

# The parts, each about 5 to 6 minutes of one core (2026-12-03, 2 cores).
kl_rotating(0 oclgrind_int rowdot_double gemv_double oclgrind_blur_uchar4)
kl_rotating(1 oclgrind_int8 oclgrind_reduce_double)
kl_rotating(2 nvrtc_rest_0 nvrtc_rest_1 gemm_rungs_double gemm_rungs_half peak_brief_figures
            oclgrind_reduce_int)
kl_rotating(3 nvrtc_rest_2 oclgrind_peak_v2_16
            gemm_rungs_int gemm_rungs_bf16 gemm_rungs_fp8 gemm_rungs_fp8e5m2
            blur_rungs_float_tiles blur_rungs_float_px1 blur_rungs_float_px8
            blur_rungs_uchar4_tiles blur_rungs_uchar4_px1 blur_rungs_uchar4_px8)

# The tiers themselves: each test in one, the parts disjoint and together the rotating tier.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/test_parts.txt "${KL_TEST_PARTS}\n")
add_test(NAME tiers COMMAND python3 ${CMAKE_SOURCE_DIR}/scripts/tiers.py check ${CMAKE_BINARY_DIR})

# Every other test is fast.
get_property(kl_all_tests DIRECTORY PROPERTY TESTS)
foreach(test IN LISTS kl_all_tests)
  get_property(labels TEST ${test} PROPERTY LABELS)
  if(NOT "rotating" IN_LIST labels)
    set_property(TEST ${test} APPEND PROPERTY LABELS fast)
  endif()
endforeach()

# The longest tests start first (CTest runs in order of COST where it has no
# timings of its own yet, as on a clean clone): seconds measured on 2 cores.
foreach(cost IN ITEMS oclgrind_int8:308 oclgrind_int:294 oclgrind_half:87 oclgrind_float:81
                      oclgrind_double:75 oclgrind_fp8:73 peak_cache:74 peak_brief_figures:64
                      oclgrind_peak_v2_16:52 install:44 oclgrind_peak_v1:44 user_tune:42
                      nvrtc_rest_0:40 nvrtc_rest_1:40 nvrtc_rest_2:40 report_browser:35
                      fleet_devices:29)
  string(REPLACE ":" ";" pair ${cost})
  list(GET pair 0 test)
  list(GET pair 1 seconds)
  if(TEST ${test})
    set_property(TEST ${test} PROPERTY COST ${seconds})
  endif()
endforeach()
