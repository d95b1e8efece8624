#!/usr/bin/env bash
# Every kernel of `kladder histogram` under oclgrind's simulator with
# data-race and uninitialised-value detection, at awkward sizes and bin
# counts with default and with small parameters: oclgrind must report
# nothing (an empty log), kladder must exit 0 and every rung must be
# verified. One simulator thread per run, since CTest runs tests side by side.
# usage: oclgrind_histogram.sh KLADDER
# Skipped (exit 77) without oclgrind, except in CI (CI=true), where that fails.
set -u
kladder=$1
source "$(dirname "$0")/lib.sh" # $tmp, ok, fail, $fails, need_oclgrind
need_oclgrind
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
want=$("$kladder" histogram --list-rungs | grep -Ec '^  [0-9]{2}_') # the host rung's row too

for args in "--size 5003" "--size 37 --data skewed --bins 7 --param WG=16 --param GPC=2" \
    "--size 1031 --data constant --bins 3 --param WG=8 --param GPC=1"; do
    : >"$tmp/log"
    # shellcheck disable=SC2086 # args is a list of options
    out=$(oclgrind --data-races --uninitialized --num-threads 1 --log "$tmp/log" \
        "$kladder" histogram $args "${q[@]}" 2>&1)
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
