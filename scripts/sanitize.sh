#!/usr/bin/env bash
# Builds kladder, its CLI and its tests with AddressSanitizer and
# UndefinedBehaviorSanitizer (-DKLADDER_SANITIZE=ON) in build-asan/, then runs
# the CTest suite on the default OpenCL device (PoCL on the CPU in CI), leak
# detection on. Left out: the tests labelled oclgrind, which run kladder
# inside the oclgrind simulator, which checks the kernels rather than the host
# code, and the one labelled cuda, which compiles every kernel with NVRTC
# (kernels again, and NVRTC allocating through ASan's allocator takes half an
# hour), and the narrow_kernels ones, the GEMM rungs in bf16, fp8 and fp8e5m2,
# whose host code is half's and int8's; the plain suite, scripts/test.sh, runs
# them. Of the rest it runs what scripts/test.sh runs (tests/tiers.cmake): the
# fast tier and the rotating tier's part of the day; --all (first) runs every
# part.
#
# Any sanitizer report fails the run twice over: the process exits non-zero
# (so its test fails), and the report, written to build-asan/sanitizer-logs/
# rather than into a test's output (where a test that expects kladder to fail
# could hide it), is printed at the end and makes this script exit 1. Leaks
# inside the libraries kladder loads (PoCL, LLVM, ...) are suppressed by name
# in tests/sanitizers/lsan.supp.
# Extra arguments go to ctest (e.g. -R gemm).
#   scripts/sanitize.sh [--all] [CTEST ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tier=()
if [ "${1:-}" = --all ]; then
    tier=(--all)
    shift
fi
jobs=$(nproc 2>/dev/null || echo 2)

# clang where there is one (scripts/setup.sh --tests installs it): its single runtime
# writes UBSan's reports to log_path too, where gcc's separate libubsan writes
# them to stderr only. CC chooses another compiler on the first configure.
if [ -z "${CC:-}" ] && command -v clang >/dev/null; then
    export CC=clang
fi
cmake -S . -B build-asan -DKLADDER_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-asan -j"$jobs"

logs=$root/build-asan/sanitizer-logs
rm -rf "$logs"
mkdir -p "$logs"
# Read by every sanitizer: a full stack, the report in a file named after the
# program and its process id, then exit.
common="print_stacktrace=1:halt_on_error=1:log_path=$logs/report:log_exe_name=1"
# fast_unwind_on_malloc=0: PoCL and LLVM have no frame pointers, so only the
# slow unwinder follows an allocation of theirs back to the kladder call that
# asked for it; that tells an OpenCL object kladder never released from
# PoCL's own leaks, which lsan.supp names by function.
# malloc_context_size=20: deep enough to reach that function (frame 11 at
# most, in the stacks seen) and kladder's frames under PoCL's, and cheaper
# than the default 30 for the compilers (LLVM in PoCL, NVRTC) that allocate
# from deep stacks all the time.
leaks="detect_leaks=1:fast_unwind_on_malloc=0:malloc_context_size=20"
# verify_asan_link_order=0: oclgrind preloads its runtime into the kladder it
# simulates (check_templates.sh), ahead of the shared ASan runtime of a gcc
# build (clang links its runtime in).
export ASAN_OPTIONS="$common:$leaks:detect_stack_use_after_return=1:check_initialization_order=1:strict_string_checks=1:verify_asan_link_order=0"
export LSAN_OPTIONS="$common:$leaks:print_suppressions=0:suppressions=$root/tests/sanitizers/lsan.supp"
export UBSAN_OPTIONS="$common"

label=$(scripts/tiers.py label build-asan "${tier[@]}")
echo "sanitize: the tests labelled $label, but oclgrind, cuda and narrow_kernels"
rc=0
ctest --test-dir build-asan -L "$label" -LE "oclgrind|cuda|narrow_kernels" --output-on-failure \
    -j"$jobs" "$@" || rc=$?

# LeakSanitizer's own stop-the-world tracer now and then crashes at a process's
# exit ("Tracer caught signal 11", then "LeakSanitizer has encountered a fatal
# error" and exit 1; google/sanitizers#1353), most often while a library's
# worker threads (PoCL's) wind down. Such a report finds nothing: the leak check
# never ran. It is set aside, and the tests that failed are run once more when
# the crashes can explain every failure; what the rerun reports counts as usual.
# On some machines the crash repeats in the same tests run after run: those are
# then run a third time with ASan and UBSan but without the leak check, and the
# run says which tests went without it.
tracer=$logs/tracer-crashes
failed_list=build-asan/Testing/Temporary/LastTestsFailed.log

# Moves the reports that are only a tracer crash aside; prints how many.
set_aside_tracer_crashes() {
    local f n=0
    for f in "$logs"/report*; do
        [ -e "$f" ] || continue
        if grep -q '^Tracer caught signal' "$f" && ! grep -Eq 'ERROR: |runtime error' "$f"; then
            mkdir -p "$tracer"
            mv "$f" "$tracer/"
            n=$((n + 1))
        fi
    done
    echo "$n"
}

# Reruns the last failures when tracer crashes explain all of them; $1 names the attempt.
rerun_if_tracer_crashed() {
    local crashes failed
    crashes=$(set_aside_tracer_crashes)
    [ "$crashes" -gt 0 ] || return 1
    failed=$([ -s "$failed_list" ] && [ "$rc" -ne 0 ] && wc -l <"$failed_list" || echo 0)
    echo "sanitize: LeakSanitizer's tracer crashed in $crashes process(es) (set aside in $tracer); $failed test(s) failed" >&2
    [ "$failed" -gt 0 ] && [ "$failed" -le "$crashes" ] || return 1
    echo "sanitize: running the failed test(s) once more$1: $(cut -d: -f2 "$failed_list" | tr '\n' ' ')" >&2
    rc=0
    ctest --test-dir build-asan --rerun-failed --output-on-failure || rc=$?
}

if rerun_if_tracer_crashed ""; then
    ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" LSAN_OPTIONS="$LSAN_OPTIONS:detect_leaks=0" \
        rerun_if_tracer_crashed ", without the leak check (its tracer crashed in them twice)" || true
fi

reports=("$logs"/report*)
if [ -e "${reports[0]}" ]; then
    for f in "${reports[@]}"; do
        printf '\n=== %s (the first 60 lines)\n' "$f"
        head -n 60 "$f"
    done
    echo "sanitize: ${#reports[@]} sanitizer report(s) in $logs" >&2
    rc=1
fi
exit "$rc"
