#!/usr/bin/env bash
# Every kernel of `kladder blur` (issue 5) under oclgrind's simulator with
# data-race and uninitialised-value detection, at tiny awkward sizes (9×7
# with radius 2; 11×9 with radius 6; 5×3 with radius 4, larger than the
# image; 1×1; 13×2) with default and with small work-groups and pixels per
# work-item, in float or uchar4: oclgrind must report nothing (an empty
# log), kladder must exit 0 and every rung must be verified.
# -cl-opt-disable: oclgrind 21.10's --uninitialized crashes on optimised
# vector code. One simulator thread per run, since CTest runs tests side by
# side.
#
# 08_image runs without --uninitialized: oclgrind 21.10 reports every value
# read_imagef returns as uninitialised, even from an image created with
# CL_MEM_COPY_HOST_PTR (or filled with clEnqueueWriteImage) and read in
# bounds: a standalone 4-pixel CL_R/CL_FLOAT image read with
# read_imagef(im, sampler, (int2)(x, 0)) into a buffer gives "Uninitialized
# value written to global memory" under --uninitialized -cl-opt-disable. Its
# blur_v is rung 03's, which is checked with --uninitialized.
# usage: oclgrind_blur.sh KLADDER float|uchar4
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
pixel=$2
case $pixel in
float | uchar4) ;;
*)
    echo "usage: oclgrind_blur.sh KLADDER float|uchar4"
    exit 2
    ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KLADDER_CACHE_DIR=$tmp/cache # oclgrind's own device; no user cache involved
q=(--warmup 0 --repeats 1 --min-time 0)
fails=0

"$kladder" blur --list-rungs >"$tmp/rungs.txt" || { echo "FAIL: blur --list-rungs"; exit 1; }
images=no
oclgrind "$kladder" devices 2>/dev/null | grep -Eq 'Image support +yes' && images=yes

# run RUNGS TOOLS ARGS...: kladder blur --rung RUNGS ARGS under oclgrind with
# the detectors TOOLS (a comma-separated list), a JSON report; every row
# verified (08_image skipped for want of images only where the simulated
# device has none).
run() {
    local sel=$1 tools=$2
    shift 2
    local t0=$SECONDS flags=()
    case $tools in *races*) flags+=(--data-races) ;; esac
    case $tools in *uninit*) flags+=(--uninitialized) ;; esac
    : >"$tmp/log"
    rm -f "$tmp/out.json"
    oclgrind "${flags[@]}" --build-options -cl-opt-disable --num-threads 1 --log "$tmp/log" \
        "$kladder" blur --pixel "$pixel" --rung "$sel" "$@" "${q[@]}" --format json \
        >"$tmp/out.json" 2>"$tmp/stderr"
    local rc=$?
    local verdict
    verdict=$(python3 - "$tmp/out.json" "$tmp/rungs.txt" "$sel" "$images" <<'PY'
import json, re, sys
path, listing, sel, images = sys.argv[1:5]
order = [m.group(1) for m in (re.match(r"^  ([0-9]{2}_[a-z0-9_]+)\s", l) for l in open(listing)) if m]
want = [r for r in order if any(r.startswith(s) for s in sel.split(","))]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"no JSON report ({e})")
    sys.exit(1)
got = [x["rung"] for x in r["results"]]
bad = [] if got == want else [f"rows {got}, expected {want}"]
nver = 0
for x in r["results"]:
    if x["rung"] == "08_image" and images != "yes":
        if x["status"] != "skipped" or "image" not in x["note"]:
            bad.append(f"08_image {x['status']} ({x['note']}), expected skipped for want of images")
    elif x["status"] != "verified":
        bad.append(f"{x['rung']} {x['status']} ({x['note']})")
    else:
        nver += 1
if "Oclgrind" not in r["device"]["platform"]:
    bad.append(f"ran on {r['device']['platform']!r}, not on oclgrind's simulator")
print("; ".join(bad) if bad else f"{nver} of {len(want)} rungs verified")
sys.exit(1 if bad else 0)
PY
    )
    local ok=$?
    local title="oclgrind $tools kladder blur --pixel $pixel --rung $sel $*"
    if [ "$rc" -ne 0 ] || [ -s "$tmp/log" ] || [ "$ok" -ne 0 ]; then
        printf 'FAIL: %s: exit %s, %s\n--- stderr:\n%s\n--- oclgrind log:\n%s\n' \
            "$title" "$rc" "$verdict" "$(cat "$tmp/stderr")" "$(head -c 20000 "$tmp/log")"
        fails=$((fails + 1))
    else
        printf 'ok: %s: %s, oclgrind reported nothing (%ss)\n' "$title" "$verdict" $((SECONDS - t0))
    fi
}

# case W H R [--param ...]: rungs 01-07 with both detectors, 08 with data races.
case_() {
    local W=$1 H=$2 R=$3
    shift 3
    run 01,02,03,04,05,06,07 races,uninit --width "$W" --height "$H" --radius "$R" "$@"
    # --param PX, SY and PF apply to 06_vector and 07_fused only; leave them
    # out for 08.
    local p8=() a
    for a in "$@"; do
        case $a in PX=* | SY=* | PF=*) unset 'p8[-1]' ;; *) p8+=("$a") ;; esac
    done
    run 08 races --width "$W" --height "$H" --radius "$R" "${p8[@]}"
}

# Images smaller than a work-group in both directions, partial groups at
# both edges, tiles whose halo is wider than the image, several groups of
# 4×4 (with a halo narrower and wider than the tile; 07_fused: strips of 3
# and 2 rows, running down and up, loaded 2 and 4 rows ahead), one pixel, a
# PX wider than the image, one row of several groups.
case_ 9 7 2 --param BX=4 --param BY=4 --param SY=3 --param PF=2
case_ 11 9 6 --param BX=4 --param BY=4 --param SY=2 --param PF=4
case_ 9 7 2
case_ 5 3 4
case_ 5 3 4 --param BX=4 --param BY=2 --param PX=8
case_ 1 1 1 --param BX=2 --param BY=2 --param PX=2
case_ 13 2 3 --param BX=8 --param BY=2 --param PX=1
exit $((fails > 0))
