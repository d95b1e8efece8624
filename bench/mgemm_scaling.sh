#!/usr/bin/env bash
# The multi-GPU GEMM's scaling on the GPUs of one machine (not a test; issue 41's benchmark):
#   strong  the same problem (16384³ by default) on 1, 2, 4 ... GPUs: each row's efficiency
#   weak    the same work per GPU: M doubled with the GPUs (S×S×S on one, 2S×S×S on two,
#           4S×S×S on four), so a GPU's share of C and of the FLOPs stays the same
#   ranks   S³ on 1, 2, 4 ... GPUs from one process and under kladder-mpi (mpirun, one rank
#           a GPU, NCCL's communicator from an id MPI broadcasts): each row's ratio of the two
# Every run's JSON goes to $OUT/scaling (default bench/out/scaling); the table is printed at
# the end: GPUs, size, the best verified row (rung 3 or cuBLAS in rung 3's schedule), its
# TFLOP/s and its efficiency against one GPU at the same work per GPU.
#   BENCH_SIZE=16384 bench/mgemm_scaling.sh [strong|weak|ranks ...]  (default: strong weak)
set -euo pipefail
source "$(dirname "$0")/env.sh"
out=$out/scaling
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
k=build/kladder
S=${BENCH_SIZE:-16384}
G=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "${G:-0}" -ge 1 ] || { echo "mgemm_scaling: no NVIDIA GPU here" >&2; exit 2; }
counts=()
for g in 1 2 4 8; do [ "$g" -le "$G" ] && counts+=("$g"); done
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(strong weak)

for part in "${parts[@]}"; do
    for g in "${counts[@]}"; do
        devices=$(seq -s, 0 $((g - 1)))
        case $part in
        strong) m=$S ;;
        weak) m=$((S * g)) ;;
        ranks)
            command -v mpirun >/dev/null && [ -x build/kladder-mpi ] ||
                { echo "mgemm_scaling: ranks needs mpirun and build/kladder-mpi" >&2; exit 2; }
            "$k" mgemm --device "cuda:$devices" --size "$S" --rung 0,3 \
                --json "$out/process_$g.json" >"$out/process_$g.txt" 2>&1 || true
            mpirun --allow-run-as-root -n "$g" -x NCCL_NVLS_ENABLE build/kladder-mpi mgemm \
                --size "$S" --rung 0,3 --json "$out/ranks_$g.json" >"$out/ranks_$g.txt" 2>&1 || true
            continue ;;
        *) echo "unknown part $part (strong, weak, ranks)" >&2; exit 2 ;;
        esac
        "$k" mgemm --device "cuda:$devices" --m "$m" --n "$S" --k "$S" --rung 0,3 \
            --compare cublas --json "$out/${part}_$g.json" >"$out/${part}_$g.txt" 2>&1 || true
    done
done

python3 - "$out" "${parts[@]}" <<'PY'
import json, os, sys
d = sys.argv[1]
for part in sys.argv[2:]:
    if part == "ranks":
        print("--- one process against one rank a GPU (kladder-mpi), TFLOP/s")
        print(f"{'GPUs':>4s} {'row':>16s} {'process':>9s} {'ranks':>9s} {'ratio':>7s}")
        for g in (1, 2, 4, 8):
            p, q = (os.path.join(d, f"{w}_{g}.json") for w in ("process", "ranks"))
            if not os.path.exists(p):
                continue
            rows = [{x["rung"]: x for x in json.load(open(f))["results"]}
                    if os.path.exists(f) else {} for f in (p, q)]
            for rung, a in rows[0].items():
                b = rows[1].get(rung)
                if a["status"] != "verified" or not b or b["status"] != "verified":
                    print(f"{g:4d} {rung:>16s} {a['status']:>9s} {b['status'] if b else 'none':>9s}")
                    continue
                print(f"{g:4d} {rung:>16s} {a['gflops'] / 1e3:9.1f} {b['gflops'] / 1e3:9.1f} "
                      f"{b['gflops'] / a['gflops']:7.3f}")
        continue
    print(f"--- {part} scaling")
    print(f"{'GPUs':>4s} {'M×N×K':>20s} {'best row':>18s} {'TFLOP/s':>9s} {'efficiency':>10s}")
    one = None
    for g in (1, 2, 4, 8):
        p = os.path.join(d, f"{part}_{g}.json")
        if not os.path.exists(p):
            continue
        r = json.load(open(p))
        rows = [x for x in r["results"] if x["status"] == "verified" and x["rung"] != "0_one_gpu"]
        if g == 1:
            rows = [x for x in r["results"] if x["status"] == "verified"]
        if not rows:
            print(f"{g:4d} {'':>20s} {'none verified':>18s}")
            continue
        best = max(rows, key=lambda x: x["gflops"])
        tf = best["gflops"] / 1e3
        one = one or tf  # one GPU's rate: strong and weak alike compare per-GPU work
        size = f"{r['params']['M']}×{r['params']['N']}×{r['params']['K']}"
        print(f"{g:4d} {size:>20s} {best['rung']:>18s} {tf:9.1f} {tf / (g * one):10.2f}")
PY
