#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz in build-fuzz/ (clang, -DKLADDER_FUZZ=ON) and,
# for each target: (a) runs every saved input of corpus/<target>/ once (a regression: none may
# crash; fuzz_user_rung also gets tests/user_kernels/*.cl and kernels/templates/*.cl), then
# (b) fuzzes it for SECONDS (default 60) on a scratch copy of that corpus, so the tree is
# left as it was; as many targets at once as there are processors. Prints one line per
# target: executions, corpus size, result. Exits non-zero on any crash, leak, timeout or
# out-of-memory, naming the input that caused it (kept under build-fuzz/artifacts/).
# Installs clang and libFuzzer through scripts/setup.sh when they are missing. TARGETs name
# some of the targets (default: all).
#   tests/fuzz/run.sh [SECONDS [TARGET...]]
set -euo pipefail

seconds=${1:-60}
case $seconds in '' | *[!0-9]*)
    echo "usage: $0 [SECONDS [TARGET...]]" >&2
    exit 2
    ;;
esac
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/fuzz
build=$root/build-fuzz
targets=(fuzz_run_json fuzz_image fuzz_ceilings fuzz_tuned fuzz_user_rung fuzz_params)
[ $# -le 1 ] || targets=("${@:2}")
for t in "${targets[@]}"; do
    [ -d "$here/corpus/$t" ] || { echo "fuzz: no target $t (no corpus/$t)" >&2; exit 2; }
done

# 0 when clang links a libFuzzer program (clang and libclang-rt-*-dev are installed).
have_libfuzzer() {
    command -v clang >/dev/null || return 1
    echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
        clang -x c -fsanitize=fuzzer,address,undefined -o /dev/null - >/dev/null 2>&1
}
if ! have_libfuzzer; then
    echo "fuzz: clang with libFuzzer is missing; running scripts/setup.sh --tests to install it"
    "$root/scripts/setup.sh" --tests
    have_libfuzzer || { echo "fuzz: still no clang with libFuzzer (clang, libclang-rt-dev)" >&2; exit 1; }
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/kladder-fuzz-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

echo "fuzz: building in $build"
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DKLADDER_FUZZ=ON -DBUILD_TESTING=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" >"$scratch/cmake.log" 2>&1 ||
    { cat "$scratch/cmake.log" >&2; exit 1; }
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target "${targets[@]}" >"$scratch/build.log" 2>&1 ||
    { cat "$scratch/build.log" >&2; exit 1; }

# The targets write their temporary files under TMPDIR: the scratch directory, removed at exit.
export TMPDIR=$scratch
export UBSAN_OPTIONS=print_stacktrace=1:${UBSAN_OPTIONS:-}

# What went wrong, from a libFuzzer log; "ok" when nothing did.
verdict() {
    local log=$1 rc=$2
    if grep -q 'ERROR: LeakSanitizer' "$log"; then echo leak
    elif grep -q 'ERROR: libFuzzer: timeout' "$log"; then echo timeout
    elif grep -qE 'ERROR: libFuzzer: (out-of-memory|malloc limit)' "$log"; then echo out-of-memory
    elif grep -qE 'runtime error:|ERROR: AddressSanitizer|deadly signal' "$log"; then echo crash
    elif [ "$rc" -ne 0 ]; then echo "failed (exit $rc)"
    else echo ok
    fi
}

# The executions of a run: libFuzzer's "Done N runs", else its last "#N" status line.
runs() {
    local n
    n=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$1" | tail -n 1)
    [ -n "$n" ] || n=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$1" | tail -n 1)
    echo "${n:-0}"
}

# One target: (a) every saved input, once, then (b) fuzzing, new inputs going to the
# scratch copy of the corpus. Its line goes to $scratch/T.line, what went wrong (the report,
# from its first line to the sanitizer's summary, and the input) to $scratch/T.report.
fuzz_one() {
    local t=$1 bin=$build/tests/fuzz/$1 seeds=$here/corpus/$1 corpus=$scratch/corpus/$1
    local artifacts=$build/artifacts/$1 log=$scratch/$1.log rc=0 result executions nseeds
    mkdir -p "$corpus" "$artifacts"
    cp "$seeds"/* "$corpus"/
    if [ "$t" = fuzz_user_rung ]; then
        # Users' kernel files the project keeps anyway: the test suite's and the templates.
        for f in "$root"/tests/user_kernels/*.cl; do cp "$f" "$corpus/test_${f##*/}"; done
        for f in "$root"/kernels/templates/*.cl; do cp "$f" "$corpus/template_${f##*/}"; done
    fi
    nseeds=$(find "$corpus" -type f | wc -l)
    local opts=(-timeout=10 -rss_limit_mb=2048 "-artifact_prefix=$artifacts/")
    "$bin" "${opts[@]}" "$corpus"/* >"$log" 2>&1 || rc=$?
    result=$(verdict "$log" "$rc")
    executions=$nseeds
    if [ "$result" = ok ]; then
        "$bin" "${opts[@]}" -max_total_time="$seconds" -print_final_stats=1 "$corpus" >"$log" 2>&1 ||
            rc=$?
        result=$(verdict "$log" "$rc")
        executions=$(runs "$log")
    else
        result="$result in the saved corpus"
    fi
    printf '%-16s %12s runs   corpus %5d (%d saved)   %s\n' "$t" "$executions" \
        "$(find "$corpus" -type f | wc -l)" "$nseeds" "$result" >"$scratch/$t.line"
    if [ "${result%% *}" != ok ]; then
        {
            awk '/ERROR: |runtime error:|deadly signal/ { on = 1 } on { print "    " $0 } /^SUMMARY:/ { exit }' \
                "$log" | head -n 30
            sed -n -e 's/.*Test unit written to \(.*\)/    input: \1/p' -e 's/^Running: \(.*\)/    input: \1/p' \
                "$log" | tail -n 1
        } >"$scratch/$t.report"
    fi
}

# As many targets at once as there are processors, each fuzzed for its own SECONDS.
failed=0
start=$SECONDS
width=$(nproc 2>/dev/null || echo 2)
for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$width" ]; do
        wait -n || true
    done
    fuzz_one "$t" &
done
wait
for t in "${targets[@]}"; do
    cat "$scratch/$t.line" 2>/dev/null || { echo "$t: no result"; failed=1; }
    if [ -s "$scratch/$t.report" ]; then
        failed=1
        cat "$scratch/$t.report" >&2
    fi
done
echo "fuzz: $(( SECONDS - start )) s for ${#targets[@]} targets, $seconds s of fuzzing each"
exit "$failed"
