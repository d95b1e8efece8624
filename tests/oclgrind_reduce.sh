#!/usr/bin/env bash
# Every kernel of `kladder reduce` under oclgrind's simulator with data-race
# and uninitialised-value detection, in one element type, for every
# operation, at awkward sizes with default and with small parameters:
# oclgrind must report nothing (an empty log), kladder must exit 0 and every
# device rung must be verified (05_subgroup skipped where the simulated
# device has no sub-groups). One simulator thread per run, since CTest runs
# tests side by side.
# usage: oclgrind_reduce.sh KLADDER float|double|int
# Skipped (exit 77) without oclgrind, except in CI (CI=true), where that fails.
set -u
kladder=$1
type=$2
source "$(dirname "$0")/lib.sh" # $tmp, ok, fail, $fails, need_oclgrind
need_oclgrind
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
devices=$(oclgrind "$kladder" devices 2>/dev/null)
want=$("$kladder" reduce --list-rungs | grep -Ec '^  [0-9]{2}_') # the host rung's row too
grep -Eq 'Sub-groups \(cl_khr_subgroups\) +yes' <<<"$devices" || want=$((want - 1))
if [ "$type" = double ] && ! grep -Eq 'Double precision \(fp64\) +yes' <<<"$devices"; then
    echo "the simulated device has no fp64: skipped"
    exit 77
fi

for op in sum min max; do
    for args in "--size 5003" "--size 37 --data skewed --param WG=16 --param GPC=2" \
        "--size 1031 --param WG=8 --param GPC=1 --param U=3"; do
        : >"$tmp/log"
        # shellcheck disable=SC2086 # args is a list of options
        out=$(oclgrind --data-races --uninitialized --num-threads 1 --log "$tmp/log" \
            "$kladder" reduce --type "$type" --op "$op" $args "${q[@]}" 2>&1)
        rc=$?
        verified=$(grep -c ',verified,' <<<"$out")
        if [ "$rc" -ne 0 ] || [ -s "$tmp/log" ] || [ "$verified" -ne "$want" ]; then
            echo "$out" >"$tmp/out.txt"
            fail "$type $op $args: exit $rc, $verified of $want rungs verified" "$tmp/out.txt" "$tmp/log"
        else
            ok "$type $op $args: $want rungs verified, oclgrind reported nothing"
        fi
    done
done
exit $((fails > 0))
