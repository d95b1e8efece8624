#!/usr/bin/env bash
# kladder compare on a power-capped GPU (issue 56), clocks free to move:
#  1. A/A: 10 pairs of the same binary run back to back, one run a side, each pair judged
#     by compare: GEMM rungs 14 (FFMA) and 17 (TF32 wgmma) at 4096³, rung 20 in bf16, and
#     the copy rung vec4 over 256 MiB (memory-bound); the device's run-to-run spreads come
#     from a full `kladder peak`, cached first (the brief search's finals are too short to
#     tell them). Counted: verdicts of each kind, and runs that a --fail-on-regression 5
#     gate would fail.
#  2. A 5 % slowdown of rung 17: K = 4096 against K = 4300 (5 % more work per launch),
#     5 pairs with --runs 5 a side and 5 with one run a side (--force: the sizes differ);
#     the verdicts, and the time each took.
# usage: bash bench/compare_cap.sh   (everything under $OUT, default bench/out)
set -uo pipefail
source "$(dirname "$0")/env.sh"
export KLADDER_CACHE_DIR=$out/cap_cache
k=build/kladder
$k peak --backend cuda >"$out/cap_peak.txt" 2>&1
grep -E "spread|run to run" "$out/cap_peak.txt" | head
gemm=(gemm --backend cuda --size 4096 --rung 14,17 --min-time 0.5)
bf16=(gemm --backend cuda --size 4096 --type bf16 --rung 20 --min-time 0.5)
copy=(copy --backend cuda --n 67108864 --rung vec4 --min-time 0.5)
for p in $(seq 1 10); do
    for s in a b; do
        $k "${gemm[@]}" --json "$out/aa_f_${p}$s.json" >/dev/null 2>&1
        $k "${bf16[@]}" --json "$out/aa_h_${p}$s.json" >/dev/null 2>&1
        $k "${copy[@]}" --json "$out/aa_c_${p}$s.json" >/dev/null 2>&1
    done
    for w in f h c; do
        $k compare "$out/aa_${w}_${p}a.json" "$out/aa_${w}_${p}b.json" --fail-on-regression 5 \
            >"$out/aa_${w}_$p.txt" 2>&1
        echo "A/A $w pair $p: exit $?"
    done
done | tee "$out/aa_exits.txt"
grep -hE "^(14_warptile|17_wgmma_tf32|20_wgmma|vec4) " "$out"/aa_*_[0-9]*.txt |
    sed -E 's/^([0-9a-z_]+) .*  (REGRESSION: )?(same|slower|faster|undecided) .*/\1 \3/' |
    sort | uniq -c | tee "$out/aa_verdicts.txt"
for runs in 5 1; do
    t0=$(date +%s)
    for p in $(seq 1 5); do
        $k gemm --backend cuda --size 4096 --rung 17 --min-time 0.5 --runs $runs \
            --json "$out/sd${runs}_${p}a.json" >/dev/null 2>&1
        $k gemm --backend cuda --m 4096 --n 4096 --k 4300 --rung 17 --min-time 0.5 --runs $runs \
            --json "$out/sd${runs}_${p}b.json" >/dev/null 2>&1
        $k compare "$out/sd${runs}_${p}a.json" "$out/sd${runs}_${p}b.json" --force \
            >"$out/sd${runs}_$p.txt" 2>&1
        grep -E "^17_wgmma_tf32 " "$out/sd${runs}_$p.txt"
    done
    echo "5 % slowdown, --runs $runs: $(( $(date +%s) - t0 )) s for 5 pairs"
done | tee "$out/slowdowns.txt"
