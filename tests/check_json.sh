#!/usr/bin/env bash
# The JSON report is valid JSON with the promised fields, and its numbers
# agree with each other (GFLOP/s = 2·M·N·K / median).
set -eu
kladder=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$kladder" gemm --m 13 --n 7 --k 5 --rung 01,10 --warmup 0 --repeats 2 --min-time 0 \
    --format json --output "$out"
python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for key in ("device", "workload", "params", "results", "provenance"):
    assert key in r, key
assert r["workload"] == "gemm"
assert r["params"] == {"M": 13, "N": 7, "K": 5, "type": "float", "seed": 1}, r["params"]
for key in ("kladder_version", "backend", "driver", "date"):
    assert r["provenance"][key], key
assert [x["rung"] for x in r["results"]] == ["01_naive", "10_tiled"]
for x in r["results"]:
    assert x["status"] == "verified", x
    assert x["repeats"] == 2, x
    assert x["min_s"] <= x["median_s"] <= x["max_s"], x
    want = 2 * 13 * 7 * 5 / x["median_s"] * 1e-9
    assert abs(x["gflops"] - want) <= 1e-6 * want, (x["gflops"], want)
    assert "-DKL_T_FLOAT" in x["build_options"], x
    # The arithmetic of every row, and the error its verification measured (K = 5: a
    # few units of float's rounding at most, within the fp32 tolerance 4u*sqrt(5)).
    assert x["precision"] == "fp32", x
    assert 0 <= x["error"] <= 4 * 2.0**-24 * 5**0.5, x
print("ok: JSON report has every field and consistent numbers")
PY
