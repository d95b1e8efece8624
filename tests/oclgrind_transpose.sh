#!/usr/bin/env bash
# Every kernel of `kladder transpose` under oclgrind's simulator with
# data-race detection (and its bounds checks), at awkward shapes, out of
# place and in place, at 4-, 2- and 8-byte elements, with default and with
# small parameters: oclgrind must report
# nothing (an empty log), kladder must exit 0 and every rung must be
# verified. One simulator thread per run, since CTest runs tests side by side.
# usage: oclgrind_transpose.sh KLADDER
# Skipped (exit 77) without oclgrind, except in CI (CI=true), where that fails.
set -u
kladder=$1
source "$(dirname "$0")/lib.sh" # $tmp, ok, fail, $fails, need_oclgrind
need_oclgrind
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
# the host rung's row too; not 06_tma, which runs on CUDA only
want=$(("$("$kladder" transpose --list-rungs | grep -Ec '^  [0-9]{2}_')" - 1))

for args in "--size 37,70" "--size 70,70 --place in" "--size 33,71 --type half --param TILE=16 --param ROWS=4" \
    "--size 45,45 --type double --place in --param TILE=16 --param ROWS=8"; do
    : >"$tmp/log"
    # shellcheck disable=SC2086 # args is a list of options
    # No --uninitialized: its plugin stops at LLVM's freeze instruction, which the compiler
    # puts on the tile index (a group's number divided by the tiles in a row, and the rest).
    out=$(oclgrind --data-races --num-threads 1 --log "$tmp/log" \
        "$kladder" transpose $args "${q[@]}" 2>&1)
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
