#!/usr/bin/env bash
# The main job's first run and its second (issue 57), three times over: each first run
# from empty caches (kladder's ceilings and tuning cache, PoCL's kernel cache; NVRTC keeps
# none, and CUDA's compute cache is pointed at an empty folder), its timeline from the
# progress line (bench/phases.py), and the seconds of each run.
# usage: bash bench/first_run.sh [KLADDER ARGS...]   (logs in $OUT, default bench/out)
set -uo pipefail
source "$(dirname "$0")/env.sh"
export KLADDER_PROGRESS_DELAY=0
for i in 1 2 3; do
    c=$(mktemp -d)
    export KLADDER_CACHE_DIR=$c/kladder POCL_CACHE_DIR=$c/pocl CUDA_CACHE_PATH=$c/cuda
    mkdir -p "$POCL_CACHE_DIR"
    for run in first second; do
        t0=$(date +%s%N)
        python3 bench/phases.py build/kladder "$@" >"$out/first_run_${i}_$run.txt" 2>&1
        rc=$?
        ms=$(( ($(date +%s%N) - t0) / 1000000 ))
        printf '%s run %d: exit %d in %d.%d s\n' "$run" "$i" "$rc" $((ms / 1000)) $((ms % 1000 / 100)) |
            tee -a "$out/first_run.txt"
    done
    rm -rf "$c"
done
