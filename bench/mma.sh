#!/usr/bin/env bash
# The tensor-core GEMM rungs against cuBLAS (not a test): 15_mma_tf32 and
# 16_mma_3xtf32 (CUDA C++), 15cl and 16cl (OpenCL C with inline PTX, through
# NVIDIA's OpenCL and through CUDA) beside the FFMA rungs 13 and 14, cuBLAS
# SGEMM and cuBLAS TF32, every row with its precision and measured error, at
# 1024³, 2048³, 4096³, 8192³ and the awkward 4095×4097×4093.
# MMA_SIZES and MMA_BACKENDS override; extra arguments go to every run;
# outputs go to $OUT (default bench/out).
set -euo pipefail
source "$(dirname "$0")/env.sh"

proto=(--warmup 2 --repeats 5 --min-time 0.2)
sizes=${MMA_SIZES:-"1024 2048 4096 8192 4095x4097x4093"}
for b in ${MMA_BACKENDS:-cuda opencl}; do
    rungs=14,15,16,15cl,16cl
    [ "$b" = opencl ] && rungs=13,15cl,16cl
    for s in $sizes; do
        if [[ $s == *x* ]]; then
            IFS=x read -r m n k <<<"$s"
            dims=(--m "$m" --n "$n" --k "$k")
        else
            dims=(--size "$s")
        fi
        name=mma_${b}_$s
        {
            echo "\$ kladder gemm --backend $b ${dims[*]} --rung $rungs --compare cublas ${proto[*]} $*"
            build/kladder gemm --backend "$b" "${dims[@]}" --rung "$rungs" --compare cublas \
                "${proto[@]}" "$@" --json "$out/$name.json" 2>&1 || true
        } | tee "$out/$name.txt"
    done
done
