#!/usr/bin/env bash
# Every kernel of `kladder peak` and `kladder copy` under oclgrind's simulator
# with data-race and uninitialised-value detection: oclgrind must report
# nothing (an empty log), kladder must exit 0 and every row must be verified.
# -cl-opt-disable: oclgrind 21.10's --uninitialized crashes on optimised
# vector code. One simulator thread per run, since CTest runs tests side by side.
# usage: oclgrind_peak_copy.sh KLADDER peak VECS   (e.g. 1 or 2,4,8,16)
#        oclgrind_peak_copy.sh KLADDER copy
# Skipped (exit 77) without oclgrind, except in CI (CI=true), where that fails.
set -u
if ! command -v oclgrind >/dev/null; then
    if [ "${CI:-}" = true ]; then
        echo "FAIL: oclgrind is not installed (Debian package oclgrind), and CI=true"
        exit 1
    fi
    echo "oclgrind is not installed (Debian package oclgrind): skipped"
    exit 77
fi
kladder=$1
mode=$2
vecs=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KLADDER_CACHE_DIR=$tmp/cache # oclgrind's own device; no user cache involved
q=(--warmup 0 --repeats 1 --min-time 0)
fails=0

# run ROWS ARGS...: kladder ARGS under oclgrind, with a JSON report; ROWS is
# the comma-separated list of rows expected, in order, all verified.
run() {
    local rows=$1
    shift
    local t0=$SECONDS
    : >"$tmp/log"
    oclgrind --data-races --uninitialized --build-options -cl-opt-disable --num-threads 1 \
        --log "$tmp/log" "$kladder" "$@" "${q[@]}" --format json --output "$tmp/out.json" \
        >"$tmp/stdout" 2>&1
    local rc=$?
    local verdict
    verdict=$(python3 - "$tmp/out.json" "$rows" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"no JSON report ({e})")
    sys.exit(1)
want = sys.argv[2].split(",")
got = [x["rung"] for x in r["results"]]
# A sweep's points share a name: compare the names with repeats folded.
folded = [n for i, n in enumerate(got) if i == 0 or n != got[i - 1]]
bad = [] if folded == want else [f"rows {folded}, expected {want}"]
timing_only = ("launch", "empty", "write_p", "read_p", "map_", "unmap_")
def expected(x):
    # oclgrind's device has no tensor cores: each tensor row says so instead.
    if x["rung"].startswith(("mma_", "wgmma_")):
        return "skipped" if " tensor cores" in x["note"] else "a note on tensor cores"
    # A cache level or latency the small sweep did not reach says why.
    if x["rung"] in ("l1_bw", "l2_bw", "l1_latency", "l2_latency", "mem_latency") and x["note"] \
            and x["status"] == "skipped":
        return "skipped"
    if x["rung"] == "chase" and x["status"] == "skipped" and "noise" in x["note"]:
        return "skipped"
    if x["rung"] == "fma_f16x2":
        return "skipped" if x["note"].startswith("no packed-half arithmetic") else "a note on halves"
    return "measured" if x["rung"].startswith(timing_only) else "verified"
bad += [f"{x['rung']} {x['status']} ({x['note']})" for x in r["results"]
        if x["status"] != expected(x)]
if "Oclgrind" not in r["device"]["platform"]:
    bad.append(f"ran on {r['device']['platform']!r}, not on oclgrind's simulator")
print("; ".join(bad) if bad else f"{len(got)} rows verified")
sys.exit(1 if bad else 0)
PY
    )
    local ok=$?
    if [ "$rc" -ne 0 ] || [ -s "$tmp/log" ] || [ "$ok" -ne 0 ]; then
        printf 'FAIL (kladder %s): exit %s, %s\n--- output:\n%s\n--- oclgrind log:\n%s\n' \
            "$*" "$rc" "$verdict" "$(cat "$tmp/stdout")" "$(head -c 20000 "$tmp/log")"
        fails=$((fails + 1))
    else
        printf 'ok (kladder %s): %s, oclgrind reported nothing (%ss)\n' "$*" "$verdict" $((SECONDS - t0))
    fi
}

case $mode in
peak)
    # The rows of `peak --quick --vec VECS` (fp64 where oclgrind's device has it).
    rows=""
    for k in copy read write; do
        for v in ${vecs//,/ }; do rows+="${k}_v$v,"; done
    done
    rows+="fma_f32,"
    if oclgrind "$kladder" devices 2>/dev/null | grep -Eq 'Double precision \(fp64\) +yes'; then
        rows+="fma_f64,"
    fi
    rows+="fma_i32,fma_f16x2,mma_tf32,mma_f16,mma_f16acc,mma_bf16,mma_i8,mma_f64,wgmma_tf32,wgmma_f16,"
    rows+="wgmma_f16acc,wgmma_bf16,wgmma_e4m3,wgmma_e5m2,wgmma_i8,"
    rows+="local_bw,cache_sweep,l1_bw,l2_bw,chase,l1_latency,l2_latency,mem_latency,"
    rows+="atomic_one,atomic_spread,atomic_local,"
    rows+="launch_latency,launch_host,empty_kernel,write_pageable,read_pageable,"
    rows+="write_pinned,read_pinned,map_read,unmap_write"
    run "$rows" peak --quick --bytes 65536 --vec "$vecs"
    ;;
copy)
    # Every rung at an N that is no multiple of anything (partial groups, and
    # vector tails 37 = 2*18 + 1 = 4*9 + 1), then at 4099 in many groups of 5
    # work-items, then the vector rungs one vector per work-item, with scalar
    # tails (4099 = 4*1024 + 3), in groups of the default size and of 5.
    run ilp1,ilp2,ilp4,ilp8,ilp16,vec2,vec4 copy --n 37
    run ilp1,ilp2,ilp4,ilp8,ilp16,vec2,vec4 copy --n 4099 --param BS=5
    run vec2,vec4 copy --n 4099 --rung vec2,vec4 --param ILP=1
    run vec2,vec4 copy --n 4099 --rung vec2,vec4 --param ILP=1 --param BS=5
    ;;
*)
    echo "usage: oclgrind_peak_copy.sh KLADDER peak VECS | copy"
    exit 2
    ;;
esac
exit $((fails > 0))
