#!/usr/bin/env bash
# Device ceilings and the copy/ILP ladder (not a test): `kladder peak
# --refresh`, `kladder copy` and `kladder copy --sweep` on the default device,
# and, where its .deb is carried in .debs/, clpeak 1.1.2 in the same run for
# comparison. Outputs go to $OUT (default bench/out).
set -euo pipefail
source "$(dirname "$0")/env.sh"

run() {
    local name=$1
    shift
    echo "\$ kladder $*" | tee "$out/$name.txt"
    build/kladder "$@" --json "$out/$name.json" 2>&1 | tee -a "$out/$name.txt" || true
}
run peak peak --refresh --warmup 2 --repeats 10 --min-time 0.2
run copy copy --warmup 2 --repeats 10 --min-time 0.1
run copy_sweep copy --sweep --warmup 2 --repeats 5 --min-time 0.05

deb=$(ls .debs/clpeak_*.deb 2>/dev/null | head -n 1 || true)
if [ -n "$deb" ]; then
    rm -rf /tmp/clpeak && dpkg -x "$deb" /tmp/clpeak
    dev=$(build/kladder devices | awk '/Default device/ {print $3}')
    echo "\$ clpeak -p ${dev%%:*} -d ${dev##*:}" | tee "$out/clpeak.txt"
    /tmp/clpeak/usr/bin/clpeak -p "${dev%%:*}" -d "${dev##*:}" 2>&1 | tee -a "$out/clpeak.txt" || true
fi
