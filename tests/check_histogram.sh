#!/usr/bin/env bash
# `kladder histogram`: every rung of the histogram ladder verified at awkward
# sizes (1, 31, 33, 1023, 1025, 10^6 + 7) and bin counts (2, 3, 17, 256) on
# uniform, skewed and constant bytes; small and extreme parameters; user
# kernels that are almost right (a byte left out, a byte counted twice, a
# count right only on the first launch), which must fail.
# usage: check_histogram.sh KLADDER rungs BINS...|params|wrong|stale
# One "ok" line per case; FAIL lines (tests/lib.sh) and exit 1 on any failure.
set -u
kladder=$1
mode=$2
source "$(dirname "$0")/lib.sh" # $tmp, ok, fail, $fails, check, fails
workload=histogram
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
want=$("$kladder" histogram --list-rungs | grep -Ec '^  [0-9]{2}_')

case $mode in
rungs)
    shift 2
    for bins in "$@"; do
        for data in uniform skewed constant; do
            for n in 1 31 33 1023 1025 1000007; do
                check "bins=$bins $data N=$n" "$want" --bins "$bins" --data "$data" --size "$n"
            done
        done
    done
    ;;
params)
    check "WG=1 GPC=1" 4 --size 100003 --bins 5 --rung 01,02,03,04 --param WG=1 --param GPC=1
    check "WG=32 GPC=1" 4 --size 100003 --data skewed --rung 01,02,03,04 --param WG=32 --param GPC=1
    check "WG=1024 GPC=64" 4 --size 1000007 --data constant --rung 01,02,03,04 --param WG=1024 --param GPC=64
    check "fewer bytes than a load" 1 --size 15 --rung 04 --param WG=64
    ;;
wrong)
    # The template, made almost right three ways; each must fail.
    "$kladder" template histogram >"$tmp/template.cl"
    sed 's/i < (uint)n; i += get_global_size(0)/i + 1 < (uint)n; i += get_global_size(0)/' \
        "$tmp/template.cl" >"$tmp/drop.cl"
    sed 's/atomic_add(&h\[(uint)x\[i\] \* BINS \/ 256\], 1u);/atomic_add(\&h[(uint)x[i] * BINS \/ 256], i == 0 ? 2u : 1u);/' \
        "$tmp/template.cl" >"$tmp/twice.cl"
    for f in drop twice; do
        cmp -s "$tmp/template.cl" "$tmp/$f.cl" && fail "the $f mutation did not apply to the template"
    done
    for f in drop twice; do
        out=$("$kladder" histogram --size 100003 --bins 7 --kernel "$tmp/$f.cl" --rung "$f" "${q[@]}" 2>&1)
        if grep -q ',failed,' <<<"$out"; then
            ok "the $f kernel (a byte left out, or counted twice) fails"
        else
            fail "the $f kernel was not failed: $out"
        fi
    done
    check "the template itself" 1 --size 100003 --bins 7 --kernel "$tmp/template.cl" --rung template
    ;;
stale)
    # A kernel that leaves state behind for the next launch (it overwrites its first byte, of
    # constant data, with one of another bin): the verified launch is right, the ones after it
    # are not, and the row must say so. kladder clears the bins, so x is the one place left.
    "$kladder" template histogram >"$tmp/template.cl"
    awk '{ print } /^    barrier\(CLK_LOCAL_MEM_FENCE\);$/ && ++b == 2 {
        print "    if (get_global_id(0) == 0) ((__global uchar *)x)[0] = 255; /* after the count */" }' \
        "$tmp/template.cl" >"$tmp/stale.cl"
    grep -q '= 255;' "$tmp/stale.cl" || fail "the stale mutation did not apply to the template"
    out=$("$kladder" histogram --size 1000 --bins 7 --data constant --kernel "$tmp/stale.cl" --rung stale \
        --warmup 0 --repeats 2 --min-time 0 -q --format csv 2>&1)
    if grep -q ',failed,.*verified once, but after the timed launches' <<<"$out"; then
        ok "a kernel right only on its first launch fails after the timed launches"
    else
        fail "the stale kernel was not failed: $out"
    fi
    ;;
*)
    echo "usage: check_histogram.sh KLADDER rungs BINS...|params|wrong|stale"
    exit 2
    ;;
esac
exit $((fails > 0))
