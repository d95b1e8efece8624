#!/usr/bin/env bash
# `kladder scan`: every rung of the prefix-scan ladder verified at awkward
# sizes (1, 31, 33, 1023, 1025, 10^6 + 7), inclusive and exclusive, on
# random, skewed and constant data, in one element type; small and extreme
# parameters and repeated checks; user kernels that are almost right (the
# last element left unwritten, the mode ignored, a write past the end),
# which must fail.
# usage: check_scan.sh KLADDER float|int|params|wrong
# One "ok" line per case; FAIL lines (tests/lib.sh) and exit 1 on any failure.
set -u
kladder=$1
mode=$2
source "$(dirname "$0")/lib.sh" # $tmp, ok, fail, $fails, check, fails
workload=scan
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
rungs=$("$kladder" scan --list-rungs | grep -Ec '^  [0-9]{2}_')
want=$rungs
"$kladder" devices 2>/dev/null | grep -Eq 'Sub-groups \(cl_khr_subgroups\) +yes' ||
    want=$((rungs - 1)) # 04_subgroup skipped, with its reason

case $mode in
float | int)
    for scan in inclusive exclusive; do
        for data in random skewed constant; do
            for n in 1 31 33 1023 1025 1000007; do
                check "$mode $scan $data N=$n" "$want" --type "$mode" --mode "$scan" --data "$data" --size "$n"
            done
        done
    done
    ;;
params)
    check "WG=1" 4 --size 4099 --rung 01,02,03,05 --param WG=1
    check "WG=2 PER=1 V=1" 4 --size 4099 --type int --rung 01,02,03,05 --param WG=2 --param PER=1 --param V=1
    check "WG=1024 PER=32 V=16" 4 --size 1000007 --mode exclusive --rung 01,02,03,05 --param WG=1024 --param PER=32 --param V=16
    check "WG=32 V=3, 5 checks" 1 --size 100003 --type int --rung 05 --param WG=32 --param V=3 --checks 5
    ;;
wrong)
    # The template, made almost right three ways; each must fail in float and int.
    "$kladder" template scan >"$tmp/template.cl"
    sed 's/if (i < (uint)n)$/if (i + 1 < (uint)n)/' "$tmp/template.cl" >"$tmp/last.cl"
    sed 's/#ifdef KL_EXCLUSIVE/#ifdef KL_NEVER_DEFINED/' "$tmp/template.cl" >"$tmp/mode.cl"
    sed 's/if (i < (uint)n)$/if (i < (uint)n + 1)/' "$tmp/template.cl" >"$tmp/past.cl"
    for f in last mode past; do
        grep -q 'KL_NEVER_DEFINED\|i + 1 < (uint)n\|(uint)n + 1' "$tmp/$f.cl" ||
            fail "the $f mutation did not apply to the template"
    done
    for t in float int; do
        fails "a kernel that leaves the last element unwritten ($t)" --type "$t" --size 100003 --kernel "$tmp/last.cl" --rung last
        fails "a kernel that ignores --mode exclusive ($t)" --type "$t" --mode exclusive --size 100003 --kernel "$tmp/mode.cl" --rung mode
        fails "a kernel that writes past the end ($t)" --type "$t" --size 100000 --kernel "$tmp/past.cl" --rung past
    done
    check "the template itself" 1 --size 100003 --kernel "$tmp/template.cl" --rung template
    ;;
*)
    echo "usage: check_scan.sh KLADDER float|int|params|wrong"
    exit 2
    ;;
esac
exit $((fails > 0))
