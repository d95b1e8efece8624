#!/usr/bin/env bash
# Every kernel of `kladder softmax` under oclgrind's simulator with data-race
# and (for the norms) uninitialised-value detection, and its bounds checks, at rows that
# no work-group size divides, for each op and element type and with small
# parameters: oclgrind must report nothing (an empty log), kladder must
# exit 0 and every rung must be verified. One simulator thread per run,
# since CTest runs tests side by side.
# usage: oclgrind_softmax.sh KLADDER
# Skipped (exit 77) without oclgrind, except in CI (CI=true), where that fails.
set -u
kladder=$1
source "$(dirname "$0")/lib.sh" # $tmp, ok, fail, $fails, need_oclgrind
need_oclgrind
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
# not 05_cluster, which runs on CUDA only
want=$(("$("$kladder" softmax --list-rungs | grep -Ec '^  [0-9]{2}_')" - 1))

for args in "--size 5,70" "--size 6,1031 --op layernorm" "--size 9,33 --type half --op rmsnorm" \
    "--size 4,301 --type bf16 --op layernorm --param WG=16 --param NT=32 --param V=2" \
    "--size 7,130 --type half --param NT=32 --param V=1"; do
    : >"$tmp/log"
    # The uninitialised-value plugin crashes the simulator itself (a segfault, no report) on
    # rung 04's softmax build, so the softmax runs check races and bounds alone.
    checks=(--data-races --uninitialized)
    [[ $args == *--op* ]] || checks=(--data-races)
    # shellcheck disable=SC2086 # args is a list of options
    out=$(oclgrind "${checks[@]}" --num-threads 1 --log "$tmp/log" \
        "$kladder" softmax $args "${q[@]}" 2>&1)
    rc=$?
    verified=$(grep -c ',verified,' <<<"$out")
    if [ "$rc" -ne 0 ] || [ -s "$tmp/log" ] || [ "$verified" -ne "$want" ]; then
        echo "$out" >"$tmp/out.txt"
        fail "$args: exit $rc, $verified of $want rungs verified" "$tmp/out.txt" "$tmp/log"
    else
        ok "$args: $want rungs verified, oclgrind reported nothing"
    fi
done
exit $((fails > 0))
