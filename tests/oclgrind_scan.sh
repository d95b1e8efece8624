#!/usr/bin/env bash
# Every kernel of `kladder scan` under oclgrind's simulator with data-race
# and uninitialised-value detection, in one element type, inclusive and
# exclusive, at awkward sizes with default and with small parameters: each
# rung in a process of its own, oclgrind must report nothing (an empty log),
# kladder must exit 0 and the rung must be verified (04_subgroup, where the
# simulated device has no sub-groups, is left out). One simulator thread per
# run, since CTest runs tests side by side.
# usage: oclgrind_scan.sh KLADDER float|int
# Skipped (exit 77) without oclgrind, except in CI (CI=true), where that fails.
set -u
kladder=$1
type=$2
source "$(dirname "$0")/lib.sh" # $tmp, ok, fail, $fails, need_oclgrind
need_oclgrind
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
rungs="01 02 03 05"
oclgrind "$kladder" devices 2>/dev/null | grep -Eq 'Sub-groups \(cl_khr_subgroups\) +yes' && rungs="01 02 03 04 05"

# the parameters a rung takes, from a set: WG always, PER (03, 04), V (05)
params() {
    local set="--param WG=$2"
    case $1 in 03 | 04) set+=" --param PER=$3" ;; 05) set+=" --param V=$4" ;; esac
    echo "$set"
}

for rung in $rungs; do
    for args in "--size 5003" \
        "--size 37 --mode exclusive --data skewed $(params "$rung" 16 3 3)" \
        "--size 1031 --data constant $(params "$rung" 8 5 1)"; do
        : >"$tmp/log"
        # shellcheck disable=SC2046,SC2086 # args is a list of options
        out=$(oclgrind --data-races --uninitialized --num-threads 1 --log "$tmp/log" \
            "$kladder" scan --type "$type" --rung "$rung" $args "${q[@]}" 2>&1)
        rc=$?
        if [ "$rc" -ne 0 ] || [ -s "$tmp/log" ] || ! grep -q ',verified,' <<<"$out"; then
            echo "$out" >"$tmp/out.txt"
            fail "$type rung $rung $args: exit $rc" "$tmp/out.txt" "$tmp/log"
        else
            ok "$type rung $rung $args: verified, oclgrind reported nothing"
        fi
    done
done
exit $((fails > 0))
