#!/usr/bin/env bash
# The Gaussian blur ladder (not a test): the generated 4096 × 4096 picture,
# float and uchar4 pixels, σ = 2 and σ = 8, after `kladder peak` (unless
# cached) so every row shows its share of the measured copy bandwidth.
# BLUR_PROTO overrides the protocol (slow devices: "--warmup 0 --repeats 1").
# Outputs go to $OUT (default bench/out).
set -euo pipefail
source "$(dirname "$0")/env.sh"
build/kladder peak >"$out/peak_cached.txt" 2>&1 || true
read -r -a proto <<<"${BLUR_PROTO:---warmup 2 --repeats 5 --min-time 0.2}"
for pix in float uchar4; do
    for sigma in 2 8; do
        name=blur_${pix}_s$sigma
        echo "\$ kladder blur --pixel $pix --sigma $sigma ${proto[*]} $*" | tee "$out/$name.txt"
        build/kladder blur --pixel "$pix" --sigma "$sigma" "${proto[@]}" "$@" \
            --json "$out/$name.json" 2>&1 | tee -a "$out/$name.txt" || true
    done
done
