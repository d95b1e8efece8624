#!/usr/bin/env bash
# `kladder reduce`: every rung of the reduction ladder verified at awkward
# sizes (1, 2, 31, 33, 1023, 1025, 10^6 + 7, and 65599, no multiple of any
# work-group) for every operation, on random and skewed data, in one element
# type; small and extreme parameters; and user kernels that are almost right
# (a one-pass counter left set, an element left out or added twice, a sum of
# 0), which must fail.
# usage: check_reduce.sh KLADDER float|double|int|params|stale|wrong|clblast
# One "ok" line per case; FAIL lines (tests/lib.sh) and exit 1 on any failure; exit 77
# (skip) for double on a device without fp64.
set -u
kladder=$1
mode=$2
source "$(dirname "$0")/lib.sh" # $tmp, ok, fail, $fails, check, fails
workload=reduce
export KLADDER_CACHE_DIR=$tmp/cache
q=(--warmup 0 --repeats 1 --min-time 0 -q --format csv)
rungs=$("$kladder" reduce --list-rungs | grep -Ec '^  [0-9]{2}_')
subgroups=no
"$kladder" devices 2>/dev/null | grep -Eq 'Sub-groups \(cl_khr_subgroups\) +yes' && subgroups=yes
want=$rungs
[ "$subgroups" = no ] && want=$((rungs - 1)) # 05_subgroup skipped, with its reason

case $mode in
float | double | int)
    if [ "$mode" = double ] && ! "$kladder" devices 2>/dev/null | grep -Eq 'Double precision \(fp64\) +yes'; then
        echo "the default device has no fp64: skipped"
        exit 77
    fi
    for op in sum min max; do
        for data in random skewed; do
            for n in 1 2 31 33 1023 1025 65599 1000007; do
                check "$mode $op $data N=$n" "$want" --type "$mode" --op "$op" --data "$data" --size "$n"
            done
        done
    done
    ;;
params)
    # small work-groups (two passes become many), one group per compute unit, one load in flight
    check "WG=2" $((want - 1)) --size 4099 --rung 01,02,03,04,06,07,08,09,10 --param WG=2
    check "WG=1 where a work-item takes two or more" 5 --size 4099 --rung 04,06,08,09,10 --param WG=1 --param GPC=1
    check "WG=32 GPC=1 U=1" 4 --size 100003 --type int --rung 07,08,09,10 --param WG=32 --param GPC=1 --param U=1
    check "WG=1024 GPC=64 U=16" 4 --size 100003 --op max --rung 07,08,09,10 --param WG=1024 --param GPC=64 --param U=16
    out=$("$kladder" reduce --size 100 --rung 01 --param WG=1 "${q[@]}" 2>&1)
    if [ $? -eq 2 ] && grep -q "WG must be at least 2" <<<"$out"; then
        ok "WG=1 on a rung of one element per work-item is refused (exit 2)"
    else
        fail "reduce --rung 01 --param WG=1: $out"
    fi
    ;;
stale)
    # One pass with a last-group finish that never sets its counter back: the verified launch
    # is right, the timed ones are not, and the row must say so.
    cat >"$tmp/stale.cl" <<'KERNEL'
/*
 * kladder: workload reduce
 * kladder: global 4*WG
 * kladder: local WG
 * kladder: param WG 64 2..256 pow2 -- work-group size
 */
__kernel void reduce(const __global R *x, __global R *y, __global R *part,
                     __global uint *count, const int n)
{
    __local int last;
    const uint tid = get_local_id(0), g = get_group_id(0), ng = get_num_groups(0);
    if (tid == 0) {
        R acc = IDENTITY;
        for (uint i = g; i < (uint)n; i += ng)
            acc = OP(acc, x[i]);
        part[g] = acc;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        last = atomic_add(count, 1u) == ng - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (last && tid == 0) {
        R acc = IDENTITY;
        for (uint k = 0; k < ng; k++)
            acc = OP(acc, ((volatile __global R *)part)[k]);
        y[0] = acc;
    }
}
KERNEL
    out=$("$kladder" reduce --size 1000 --type int --kernel "$tmp/stale.cl" --rung stale --warmup 0 --repeats 3 --min-time 0 -q --format csv 2>&1)
    if grep -q ',failed,.*verified once, but after the timed launches' <<<"$out"; then
        ok "a kernel that leaves its counter set fails after the timed launches"
    else
        fail "the stale-counter kernel was not failed: $out"
    fi
    ;;
wrong)
    # Kernels that are almost right must fail, in float, double and int: one that leaves out
    # the last element and one that adds it twice (skewed data puts an extreme there), and
    # one that returns 0 (random data's sum is far from 0 at this size).
    bugs=("leaves out the last element|i + 1 < (uint)n||skewed"
        "adds the last element twice|1|if (tid == 0) acc = OP(acc, x[n - 1]);|skewed"
        "returns 0|0||random")
    for b in "${bugs[@]}"; do
        IFS='|' read -r what keep extra data <<<"$b"
        cat >"$tmp/bug.cl" <<KERNEL
/*
 * kladder: workload reduce
 * kladder: global WG
 * kladder: local WG
 * kladder: param WG 64 1..256 pow2 -- work-group size
 */
__kernel void reduce(const __global R *x, __global R *y, __global R *part,
                     __global uint *count, const int n)
{
    __local R s[WG];
    const uint tid = get_local_id(0);
    R acc = IDENTITY;
    for (uint i = tid; i < (uint)n; i += WG)
        if ($keep)
            acc = OP(acc, x[i]);
    $extra
    s[tid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = WG / 2; k > 0; k >>= 1) {
        if (tid < k)
            s[tid] = OP(s[tid], s[tid + k]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        y[0] = s[0];
}
KERNEL
        for t in float double int; do
            out=$("$kladder" reduce --size 1000007 --type "$t" --data "$data" \
                --kernel "$tmp/bug.cl" --rung bug "${q[@]}" 2>&1)
            if grep -q ',failed,' <<<"$out"; then
                ok "a kernel that $what fails in $t"
            else
                fail "a kernel that $what passed in $t: $out"
            fi
        done
    done
    ;;
clblast)
    # CLBlast's sum and its index of the minimum and maximum, verified as every rung is;
    # int, which it has no reduction of, a skipped row that says so.
    if ! ldconfig -p 2>/dev/null | grep -q libclblast.so && [ "${CI:-}" != true ]; then
        echo "CLBlast is not installed (Debian: libclblast1): skipped"
        exit 77
    fi
    for t in float double; do
        for op in sum min max; do
            check "clblast $t $op" 2 --size 100003 --type "$t" --op "$op" --data skewed --rung 00 \
                --compare clblast
        done
    done
    out=$("$kladder" reduce --size 1000 --type int --rung 00 --compare clblast "${q[@]}" 2>&1)
    if grep -q 'peer:clblast,.*skipped,.*CLBlast reduces float and double' <<<"$out"; then
        ok "CLBlast's int row is skipped, saying why"
    else
        fail "CLBlast's int row: $out"
    fi
    ;;
*)
    echo "usage: check_reduce.sh KLADDER float|double|int|params|stale|wrong|clblast"
    exit 2
    ;;
esac
exit $((fails > 0))
