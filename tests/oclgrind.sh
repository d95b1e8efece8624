#!/usr/bin/env bash
# Every device rung of the GEMM ladder under oclgrind's simulator with
# data-race and uninitialised-value detection, at small odd sizes (with
# default and with small chunk/tile parameters, rung 13 split along K, and
# the vectorized rungs at every residue of N and K modulo 8): oclgrind must
# report nothing, and every rung must be verified.
# The register-blocked rungs 12 and 13 transpose 4 x 4 blocks in registers,
# which LLVM's optimiser turns into vector shuffles with undefined lanes;
# oclgrind 21.10's --uninitialized crashes on those. So they run twice:
# optimised as the device builds them, with --data-races (races,
# out-of-bounds accesses, barrier divergence), and with -cl-opt-disable
# under every check, at small blocks (the simulator is slow at -O0).
set -u
if ! command -v oclgrind >/dev/null; then
    # In CI the check is required: scripts/setup.sh --tests installs oclgrind.
    [ "${CI:-}" = true ] && { echo "FAIL: oclgrind is not installed"; exit 1; }
    echo "oclgrind is not installed (Debian package oclgrind): skipped"
    exit 77
fi
kladder=$1
type=$2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
fails=0
# check N "OCLGRIND OPTIONS" KLADDER ARGS...: N rungs must be verified.
check() {
    local want=$1 opts=$2
    shift 2
    # shellcheck disable=SC2086 # opts is a list of options
    out=$(oclgrind $opts --log "$log" \
        "$kladder" gemm --no-host-rungs --type "$type" --warmup 0 --repeats 1 --min-time 0 "$@" 2>&1)
    rc=$?
    verified=$(grep -Ec '^[0-9]{2}_[a-z0-9_]+ +verified' <<<"$out")
    if [ "$rc" -ne 0 ] || [ -s "$log" ] || [ "$verified" -ne "$want" ] || ! grep -q 'Oclgrind' <<<"$out"; then
        printf 'FAIL (%s %s): exit %s, %s of %s rungs verified\n%s\n--- oclgrind log:\n' "$opts" "$*" "$rc" "$verified" "$want" "$out"
        cat "$log"
        fails=$((fails + 1))
    else
        printf 'ok (%s %s %s): %s rungs verified, oclgrind reported nothing\n' "$type" "$opts" "$*" "$want"
    fi
}
all="--data-races --uninitialized"
seed=01,02,03,04,05,06,07,08,09,10,11
check 11 "$all" --rung $seed --m 5 --n 3 --k 7
check 11 "$all" --rung $seed --m 17 --n 9 --k 13 --param KC=8 --param WG=4 --param TS=4 --param WG0=3 --param WG1=5
# 12 and 13 as built: default 128 x 128 blocks (64 x 64 for double: 13's two
# 128-wide buffers of doubles need 33 KiB, the simulated device has 32).
blocks=()
[ "$type" = double ] && blocks=(--param BM=64 --param BN=64)
check 2 "--data-races" --rung 12,13 --m 17 --n 9 --k 13 "${blocks[@]}"
check 2 "--data-races" --rung 12,13 --m 130 --n 132 --k 20 "${blocks[@]}"
check 2 "--data-races" --rung 12,13 --m 260 --n 133 --k 21 "${blocks[@]}"
# 11-13 at -O0 under every check: an 8 x 4 warp layout, then 2 x 2 work-items
# with more A blocks than work-items; 11 with tiles that are no multiples of 4
# (optimised, their division and remainder by 3 become a `freeze` that
# oclgrind 21.10 cannot simulate either).
check 3 "$all --build-options -cl-opt-disable" --rung 11,12,13 --m 19 --n 37 --k 13 \
    --param BM=16 --param BN=32 --param BK=4 --param TM=4 --param TN=4
check 3 "$all --build-options -cl-opt-disable" --rung 11,12,13 --m 9 --n 10 --k 21 \
    --param BM=8 --param BN=8 --param BK=12 --param TM=4 --param TN=4
check 1 "$all --build-options -cl-opt-disable" --rung 11 --m 17 --n 9 --k 13 \
    --param BM=6 --param BN=10 --param BK=3 --param TM=3 --param TN=5
# Split-K (13): three splits of small blocks, one of them empty at K = 13 with BK = 8 (its
# partial product zeros), then split_k.cl's sum; optimised, races and bounds.
check 1 "--data-races" --rung 13 --m 19 --n 37 --k 13 --param SPLITK=3 \
    --param BM=16 --param BN=32 --param BK=8 --param TM=4 --param TN=4
# The vectorized rungs' tails: N and K of every residue modulo 8 (the widest vector), each
# shape pairing one residue of N with another of K, so that a load or store past a row's end
# in any tail is an out-of-bounds access oclgrind reports (the zero padding would hide it
# from verification).
for r in 0 1 2 3 4 5 6 7; do
    check 3 "$all" --rung 07,08,09 --m 3 --n $((9 + r)) --k $((9 + (r + 1) % 8))
done
exit $fails
