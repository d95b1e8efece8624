#!/usr/bin/env bash
# The main job on a GPU machine from an empty cache, as a newcomer meets it
# (CI has no GPU; run this on the GPU machine): `bash tests/gpu/main_job.sh
# [build-dir]`. Outputs go to $OUT (default tests/gpu/out).
#
#  1. `kladder` with no arguments, twice from an empty ceilings cache: the
#     first run measures the ceilings by the brief search; both are timed
#     (target on an H100: under 30 s, then under 20 s). Where CUDA works the
#     run is through CUDA, every rung verified or skipped with a reason,
#     rungs 17 and 18 (Hopper) and cuBLAS's rows among the verified.
#  2. Two more brief searches, then `kladder peak --refresh` (the full
#     search): each figure the brief search measures, as the median of the
#     three brief runs over the full one (target: within 3 %).
# Exit status: 0 when every check of 1 passes (2 is a measurement), else 1.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
build=${1:-build}
out=${OUT:-tests/gpu/out}
mkdir -p "$out/work"
case $build in
/*) kl=$build/kladder ;;
*) kl=$PWD/$build/kladder ;;
esac
[ -x "$kl" ] || { echo "no $kl: build kladder first" >&2; exit 2; }
export KLADDER_CACHE_DIR=$out/main_job_cache
rm -rf "$KLADDER_CACHE_DIR"
status=0

for n in 1 2; do
    t0=$(date +%s%N)
    (cd "$out/work" && "$kl" --json "../main_job_$n.json" >"../main_job_$n.txt" 2>&1)
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    printf 'main job, run %d: exit %d in %d.%d s\n' "$n" "$rc" $((ms / 1000)) $((ms % 1000 / 100))
    [ "$rc" -eq 0 ] || { status=1; tail -n 5 "$out/main_job_$n.txt"; }
done
head -n 3 "$out/main_job_1.txt"
sed -n '/^fastest verified rung/,/^$/p' "$out/main_job_2.txt"
python3 - "$out/main_job_2.json" <<'PY' || status=1
import json, sys
r = json.load(open(sys.argv[1]))
rows = {x["rung"]: x for x in r["results"]}
bad = [n for n, x in rows.items() if x["status"] not in ("verified", "skipped")]
bad += [n + ": skipped without a reason" for n, x in rows.items()
        if x["status"] == "skipped" and not x.get("note")]
backend = r.get("provenance", {}).get("backend")
if backend == "cuda":
    for want in ("17_wgmma_tf32", "18_wgmma_3xtf32", "15cl_mma_tf32", "peer:cublas",
                 "peer:cublas_tf32"):
        if want not in rows or rows[want]["status"] != "verified":
            bad.append(want + " not verified")
print("main job rows:", "; ".join(bad) if bad else "every row verified or skipped with a reason",
      "(backend %s)" % backend)
sys.exit(1 if bad else 0)
PY

# The main job chose its backend; `kladder peak` takes the default device's, so name it.
backend=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["provenance"]["backend"])' \
    "$out/main_job_1.json" 2>/dev/null || echo opencl)
for n in 2 3; do
    "$kl" peak --backend "$backend" --brief --json "$out/brief_$n.json" >"$out/brief_$n.txt" 2>&1 || status=1
done
"$kl" peak --backend "$backend" --refresh --json "$out/full.json" >"$out/full.txt" 2>&1 || status=1
python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
def figures(path):
    return json.load(open(path)).get("ceiling_values", {})
brief = [figures(f"{out}/main_job_1.json")] + [figures(f"{out}/brief_{n}.json") for n in (2, 3)]
full = figures(f"{out}/full.json")
for k, v in sorted(full.items()):
    if not isinstance(v, (int, float)) or not v:
        continue
    got = [b[k] for b in brief if isinstance(b.get(k), (int, float)) and b.get(k)]
    if len(got) == 3:
        m = statistics.median(got)
        print(f"{k:24s} brief median {m:12.1f} full {v:12.1f}  {m / v:6.3f}  ({', '.join('%.1f' % g for g in got)})")
PY
exit "$status"
