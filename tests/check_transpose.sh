#!/usr/bin/env bash
# `kladder transpose`: every rung of the transpose ladder verified at awkward
# shapes (1 x 1, 1 x N, N x 1, 17 x 33, 1023 x 1025) out of place and in
# place at 1, 33 and 1024 square, for one element type; small and extreme
# parameters; user kernels that are almost right (an element left out, one
# put in the wrong place, a pair swapped twice in place, a write past the
# end, a result right only on the first launch), which must fail.
# usage: check_transpose.sh KLADDER rungs TYPE|params|wrong|stale
# One "ok" line per case; FAIL lines (tests/lib.sh) and exit 1 on any failure.
set -u
kladder=$1
mode=$2
source "$(dirname "$0")/lib.sh" # $tmp, ok, fail, $fails, check, fails
workload=transpose
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
# every rung but 06_tma, which runs on CUDA only (a skipped row here, saying so)
want=$(("$("$kladder" transpose --list-rungs | grep -Ec '^  [0-9]{2}_')" - 1))

case $mode in
rungs)
    type=$3
    for size in 1,1 1,300 300,1 17,33 1023,1025; do
        check "$type $size" "$want" --type "$type" --size "$size"
    done
    for side in 1 33 1024; do
        check "$type $side square in place" "$want" --type "$type" --size "$side,$side" --place in
    done
    ;;
params)
    check "TILE=8 ROWS=1" 5 --size 37,70 --rung 01,02,03,04,05 --param TILE=8 --param ROWS=1
    check "TILE=8 ROWS=1 in place" 5 --size 37,37 --place in --rung 01,02,03,04,05 --param TILE=8 --param ROWS=1
    check "TILE=16 ROWS=16 half" 5 --size 100,45 --type half --rung 01,02,03,04,05 --param TILE=16 --param ROWS=16
    check "TILE=64 ROWS=4 double in place" 4 --size 130,130 --type double --place in --rung 02,03,04,05 --param TILE=64 --param ROWS=4
    check "TILE=128 ROWS=8" 2 --size 200,300 --rung 01,05 --param TILE=128 --param ROWS=8
    check "bf16" 6 --size 65,63 --type bf16
    check "CLBlast's omatcopy beside the ladder" 2 --size 33,17 --rung 05 --compare clblast
    ;;
wrong)
    # The template, made almost right three ways; each must fail.
    "$kladder" template transpose >"$tmp/template.cl"
    sed 's/if (i >= m || j >= n)/if (i >= m || j >= n || (i == m - 1 \&\& j == n - 1))/' \
        "$tmp/template.cl" >"$tmp/drop.cl"
    sed 's/b\[(size_t)j \* m + i\] = a\[(size_t)i \* n + j\];/b[(size_t)j * m + i] = a[(size_t)i * n + (j == 1 ? 0 : j)];/' \
        "$tmp/template.cl" >"$tmp/misplace.cl"
    sed 's/if (j > i) {/if (j >= i - 1) {/' "$tmp/template.cl" >"$tmp/twice.cl"
    sed 's/b\[(size_t)j \* m + i\] = a\[(size_t)i \* n + j\];/b[(size_t)j * m + i] = a[(size_t)i * n + j]; if (i == m - 1 \&\& j == n - 1) b[(size_t)n * m] = a[0];/' \
        "$tmp/template.cl" >"$tmp/past.cl"
    for f in drop misplace twice past; do
        cmp -s "$tmp/template.cl" "$tmp/$f.cl" && fail "the $f mutation did not apply to the template"
    done
    fails "the drop kernel (its last element left out)" --size 33,65 --kernel "$tmp/drop.cl" --rung drop
    fails "the misplace kernel (column 0 copied to column 1)" --size 33,65 --kernel "$tmp/misplace.cl" --rung misplace
    fails "the twice kernel (pairs next to the diagonal swapped twice)" --size 40,40 --place in --kernel "$tmp/twice.cl" --rung twice
    out=$("$kladder" transpose --size 33,65 --kernel "$tmp/past.cl" --rung past "${q[@]}" 2>&1)
    if grep -q ',failed,.*wrote past the end' <<<"$out"; then
        ok "the past kernel (every element right, one more past the end) fails"
    else
        fail "the past kernel was not failed for its write past the end: $out"
    fi
    check "the template itself" 1 --size 33,65 --kernel "$tmp/template.cl" --rung template
    check "the template in place" 1 --size 40,40 --place in --kernel "$tmp/template.cl" --rung template
    ;;
stale)
    # A kernel that is right once and then leaves its input changed (the work-item that alone
    # reads a[0] overwrites it after reading): the verified launch is right, the ones after it
    # are not, and the row must say so.
    "$kladder" template transpose >"$tmp/template.cl"
    sed 's/b\[(size_t)j \* m + i\] = a\[(size_t)i \* n + j\];/b[(size_t)j * m + i] = a[(size_t)i * n + j]; if (i == 0 \&\& j == 0) ((__global EL *)a)[0] = a[1];/' \
        "$tmp/template.cl" >"$tmp/stale.cl"
    grep -q 'a)\[0\] = a\[1\]' "$tmp/stale.cl" || fail "the stale mutation did not apply to the template"
    out=$("$kladder" transpose --size 32,64 --kernel "$tmp/stale.cl" --rung stale \
        --warmup 0 --repeats 2 --min-time 0 -q --format csv 2>&1)
    if grep -q ',failed,.*verified once, but after the timed launches' <<<"$out"; then
        ok "a kernel right only on its first launch fails after the timed launches"
    else
        fail "the stale kernel was not failed: $out"
    fi
    ;;
*)
    echo "usage: check_transpose.sh KLADDER rungs TYPE|params|wrong|stale"
    exit 2
    ;;
esac
exit $((fails > 0))
