# Tests for reports: `kladder report` (HTML and SVG charts of saved runs),
# --report, `kladder compare`, the JSON format (schema_version, the JSON
# Schema in docs/), the strict JSON reader, and progress on a terminal.
# Included from tests/CMakeLists.txt. Every test carries the label report
# (ctest -L report) and runs with KLADDER_CACHE_DIR pointing at a directory
# that does not exist, so that no user's ceiling cache changes a chart.
#
# One tiny run of each workload (report_setup, a fixture) is shared by the
# tests that read runs; the scripts doctor copies of them for failed rungs,
# peers, roofs, regressions and mismatches.

set(KL_REPORT_KLADDER $<TARGET_FILE:kladder-cli>)
set(KL_REPORT_CHECK ${CMAKE_CURRENT_SOURCE_DIR}/check_report.sh)
set(KL_REPORT_DIR ${CMAKE_CURRENT_BINARY_DIR}/report_runs)
set(KL_REPORT_TESTS "")
macro(kl_report_test name)
  add_test(NAME ${name} COMMAND ${KL_REPORT_CHECK} ${KL_REPORT_KLADDER} ${KL_REPORT_DIR} ${ARGN})
  list(APPEND KL_REPORT_TESTS ${name})
endmacro()

# The strict JSON reader and the run reader: what they accept and refuse, with
# line and column (no device).
kl_c_test(test_json)
add_test(NAME report_json_reader COMMAND test_json)
list(APPEND KL_REPORT_TESTS report_json_reader)
# Every entry of the result-field tables (report/fields.h) in the table, CSV,
# JSON, the run reader and the page (no device).
kl_c_test(test_fields)
add_test(NAME report_fields COMMAND test_fields)
list(APPEND KL_REPORT_TESTS report_fields)
# The charts' layouts (report/svg_layout.h): axes, ticks, bars, points, roofs and
# labels where the scales put them and apart (no device, no SVG).
kl_c_test(test_svg_layout)
add_test(NAME report_svg_layout COMMAND test_svg_layout)
list(APPEND KL_REPORT_TESTS report_svg_layout)

# The runs (gemm with --report, copy --sweep, blur with --output and
# --report, gemv, rowdot), about 10 s on PoCL.
kl_report_test(report_setup setup)
set_tests_properties(report_setup PROPERTIES FIXTURES_SETUP report_runs LABELS pocl)

# Every run against docs/kladder-run.schema.json (python3-jsonschema; skipped,
# 77, without it); the schema refuses broken runs.
kl_report_test(report_schema schema)
# Each chart as SVG: well-formed (xmllint), bars and points are the JSON's
# numbers (read back from the geometry and the axes), failed rungs never a
# bar, peers apart, roofs on the measured ceilings; the pages self-contained.
kl_report_test(report_svg svg)
# A GEMM shape sweep (doctored runs of three shapes): the chart's ratios, the page's
# section and count, and the sweeps it refuses.
kl_report_test(report_shapes shapes)
# Blur runs at several σ (four short real runs, and copies doctored with NPP and a copy
# bandwidth): the radius chart's points, NPP's failures hollow, the floor, the page's
# section and sentences, and the runs that make no chart.
kl_report_test(report_radii radii)
set_tests_properties(report_radii PROPERTIES LABELS pocl)
# The reports in headless Chromium: every chart on the screenshot, with its
# bars and points in their colours (skipped only where Chromium is absent).
kl_report_test(report_browser browser)
set_tests_properties(report_browser PROPERTIES TIMEOUT 300)
foreach(case identical regression newfail faster config mismatch force samples)
  kl_report_test(report_compare_${case} compare ${case})
endforeach()
# samples judges slowdowns doctored into a real run's launch times: alone on the machine, as
# another test's load made those times bimodal once (modes 25 % apart, a 25 % slowdown then
# undecided, rightly).
set_tests_properties(report_compare_samples PROPERTIES RUN_SERIAL TRUE)
# Bad input: a clear message and exit 2 (3 for a write that fails part-way).
foreach(case missing empty truncated not_json malformed wrong_version no_version not_a_run
             wrong_type directory compare_bad output_unwritable output_full report_unwritable
             no_chart usage)
  kl_report_test(report_bad_${case} bad ${case})
endforeach()
set(KL_REPORT_NEEDS_RUNS ${KL_REPORT_TESTS})
list(REMOVE_ITEM KL_REPORT_NEEDS_RUNS report_json_reader report_setup report_bad_missing
     report_bad_empty report_bad_not_json report_bad_malformed report_bad_not_a_run
     report_bad_directory report_bad_report_unwritable report_bad_usage)
set_tests_properties(${KL_REPORT_NEEDS_RUNS} PROPERTIES FIXTURES_REQUIRED report_runs)

# Progress on a terminal (script(1) gives kladder one), not in pipes or with
# --quiet; the main job writes kladder-report.html and ends with its path.
kl_report_test(report_progress progress)
kl_report_test(report_main_job mainjob)
set_tests_properties(report_progress report_main_job PROPERTIES LABELS pocl)

set_property(TEST ${KL_REPORT_TESTS} APPEND PROPERTY ENVIRONMENT
             KLADDER_CACHE_DIR=${CMAKE_CURRENT_BINARY_DIR}/report_no_cache)
set_property(TEST ${KL_REPORT_TESTS} APPEND PROPERTY LABELS report)
set_tests_properties(${KL_REPORT_TESTS} PROPERTIES SKIP_RETURN_CODE 77)
