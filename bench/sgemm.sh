#!/usr/bin/env bash
# SGEMM against the vendor libraries (not a test): the fast rungs (10 and up;
# 14 on CUDA only) at 1024³, 2048³, 4096³, 8192³ and the awkward
# 4095×4097×4093, through OpenCL and CUDA, with cuBLAS and CLBlast in the
# same run. CLBlast comes from .debs/ when not installed.
# SGEMM_RUNGS overrides the rungs; outputs go to $OUT (default bench/out).
set -euo pipefail
source "$(dirname "$0")/env.sh"

clblast_from_debs
rungs=${SGEMM_RUNGS:-10,11,12,13,14}
proto=(--warmup 2 --repeats 5 --min-time 0.2)
build/kladder peak >"$out/peak_cached.txt" 2>&1 || true
for b in opencl cuda; do
    peers=cublas,clblast
    [ "$b" = cuda ] && peers=cublas
    for s in "--size 1024" "--size 2048" "--size 4096" "--size 8192" "--m 4095 --n 4097 --k 4093"; do
        name=sgemm_${b}_$(tr -d ' -' <<<"$s" | sed 's/size//; s/m\([0-9]*\)n\([0-9]*\)k\([0-9]*\)/\1x\2x\3/')
        # shellcheck disable=SC2086
        {
            echo "\$ kladder gemm --backend $b $s --rung $rungs --compare $peers ${proto[*]} $*"
            build/kladder gemm --backend "$b" $s --rung "$rungs" --compare "$peers" "${proto[@]}" "$@" \
                --json "$out/$name.json" 2>&1 || true
        } | tee "$out/$name.txt"
    done
done
