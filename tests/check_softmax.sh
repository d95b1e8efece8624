#!/usr/bin/env bash
# `kladder softmax`: every rung of the softmax ladder and every op verified
# at rows of 1, 31, 33, 1031 and 100003 columns and at 1, 33 and 1000 rows
# (the rows that overflow a naive exp and the rows of tiny variance come
# every fourth row), for one element type; small and extreme parameters,
# and the options; user kernels that are almost right (no max taken before
# exp; the variance as E[x^2] - mean^2; eps left out; a write past the
# end; a result right only on the first launch), which must fail.
# usage: check_softmax.sh KLADDER rungs TYPE|params|wrong|stale
# One "ok" line per case; FAIL lines (tests/lib.sh) and exit 1 on any failure.
set -u
kladder=$1
mode=$2
source "$(dirname "$0")/lib.sh" # $tmp, ok, fail, $fails, check, fails
workload=softmax
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
# every rung but 05_cluster, which runs on CUDA only (a skipped row here, saying so)
want=$(("$("$kladder" softmax --list-rungs | grep -Ec '^  [0-9]{2}_')" - 1))

case $mode in
rungs)
    type=$3
    for op in softmax layernorm rmsnorm; do
        for size in 1,1 33,31 1000,33 33,1031 1,100003 33,100003; do
            check "$type $op $size" "$want" --type "$type" --op "$op" --size "$size"
        done
    done
    ;;
params)
    check "WG=1" 3 --size 37,70 --rung 01,02,03 --param WG=1
    check "WG=1024 layernorm" 3 --size 5,3000 --op layernorm --rung 01,02,03 --param WG=1024
    check "NT=32 V=1 (a long row streamed)" 1 --size 9,5003 --rung 04 --param NT=32 --param V=1
    check "NT=1024 V=16 rmsnorm" 1 --size 9,70000 --op rmsnorm --rung 04 --param NT=1024 --param V=16
    check "NT=64 V=3 half" 1 --size 17,1031 --type half --op layernorm --rung 04 --param NT=64 --param V=3
    check "gamma, beta and eps" 4 --size 33,257 --op layernorm --gamma -2.5 --beta 0.75 --eps 0.5
    check "rmsnorm, gamma and eps" 4 --size 33,257 --op rmsnorm --gamma 3 --eps 1e-3 --type bf16
    ;;
wrong)
    # The template, made almost right four ways; each must fail.
    "$kladder" template softmax >"$tmp/template.cl"
    sed 's/float m = LD(xr, 0), s = 0.0f;/float m = 0.0f, s = 0.0f;/; s/m = fmax(m, LD(xr, i));/m = m;/' \
        "$tmp/template.cl" >"$tmp/nomax.cl"
    sed 's/ss += (LD(xr, i) - mean) \* (LD(xr, i) - mean);/ss += LD(xr, i) * LD(xr, i);/; s|const float scale = gamma \* rsqrt(ss / cols + eps);|const float scale = gamma * rsqrt(fmax(ss / cols - mean * mean, 0.0f) + eps);|' \
        "$tmp/template.cl" >"$tmp/onepass.cl"
    sed 's|const float scale = gamma \* rsqrt(ss / cols + eps);|const float scale = gamma * rsqrt(ss / cols);|' \
        "$tmp/template.cl" >"$tmp/noeps.cl"
    sed 's|        ST(exp(LD(xr, i) - m) / s, i, yr);|        ST(exp(LD(xr, i) - m) / s, i, yr);\n    if (r == nrows - 1) ST(0.0f, cols, yr);|' \
        "$tmp/template.cl" >"$tmp/past.cl"
    for f in nomax onepass noeps past; do
        cmp -s "$tmp/template.cl" "$tmp/$f.cl" && fail "the $f mutation did not apply to the template"
    done
    fails "the nomax kernel (exp without the max taken first)" --size 33,31 --kernel "$tmp/nomax.cl" --rung nomax
    fails "the onepass kernel (the variance as E[x^2] - mean^2)" --size 33,31 --op layernorm --kernel "$tmp/onepass.cl" --rung onepass
    fails "the noeps kernel (eps left out)" --size 33,31 --op rmsnorm --eps 0.5 --kernel "$tmp/noeps.cl" --rung noeps
    out=$("$kladder" softmax --size 33,31 --kernel "$tmp/past.cl" --rung past "${q[@]}" 2>&1)
    if grep -q ',failed,.*wrote past the end' <<<"$out"; then
        ok "the past kernel (every element right, one more past the end) fails"
    else
        fail "the past kernel was not failed for its write past the end: $out"
    fi
    for op in softmax layernorm rmsnorm; do
        check "the template itself, $op" 1 --size 33,31 --op "$op" --kernel "$tmp/template.cl" --rung template
    done
    ;;
stale)
    # A kernel that is right once and then leaves its input changed (row 0's work-item, once it
    # has written its row, overwrites the row's first element): the verified launch is right,
    # the ones after it are not, and the row must say so.
    "$kladder" template softmax >"$tmp/template.cl"
    sed 's|        ST(exp(LD(xr, i) - m) / s, i, yr);|        ST(exp(LD(xr, i) - m) / s, i, yr);\n    if (r == 0) ((__global TA *)xr)[0] = xr[1];|' \
        "$tmp/template.cl" >"$tmp/stale.cl"
    grep -q 'xr)\[0\] = xr\[1\]' "$tmp/stale.cl" || fail "the stale mutation did not apply to the template"
    out=$("$kladder" softmax --size 32,64 --kernel "$tmp/stale.cl" --rung stale \
        --warmup 0 --repeats 2 --min-time 0 -q --format csv 2>&1)
    if grep -q ',failed,.*after the timed launches' <<<"$out"; then
        ok "a kernel right only on its first launch fails after the timed launches"
    else
        fail "the stale kernel was not failed: $out"
    fi
    ;;
*)
    echo "usage: check_softmax.sh KLADDER rungs TYPE|params|wrong|stale"
    exit 2
    ;;
esac
exit $((fails > 0))
