#!/usr/bin/env bash
# The runs the docs' articles are made from, on a GPU machine (kladder built there without
# libgit2: the articles are written from the JSON elsewhere, `kladder article RUN.json`):
#   gemm  the GEMM ladder through CUDA at 2048³ (the main job's size on an H200), beside
#         cuBLAS (SGEMM and TF32) in the same run
#   blur  the blur ladder through CUDA on the 16-Mpixel test picture (σ 2), 8-bit RGBA
# usage: bash bench/article.sh   (JSON and tables in $OUT, default bench/out)
set -uo pipefail
source "$(dirname "$0")/env.sh"
export KLADDER_CACHE_DIR=$out/cache
build/kladder peak --brief --backend cuda >"$out/peak_brief.txt" 2>&1
build/kladder gemm --backend cuda --size 2048 --compare cublas --json "$out/article_gemm.json" \
    >"$out/article_gemm.txt" 2>&1
echo "gemm: exit $?"
build/kladder blur --backend cuda --pixel uchar4 --sigma 2 --json "$out/article_blur.json" \
    >"$out/article_blur.txt" 2>&1
echo "blur: exit $?"
