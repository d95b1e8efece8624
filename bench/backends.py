#!/usr/bin/env python3
"""Per rung, CUDA's median time against OpenCL's, from bench/backends.sh's JSON.

Usage: backends.py DIR. Prints one table per workload: each rung's rate on
both backends (GFLOP/s where the workload counts flops, else GB/s) and the
ratio CUDA / OpenCL, flagging differences beyond 10%.
"""
import json
import os
import sys


def rows(path):
    with open(path) as f:
        r = json.load(f)
    out = {}
    for x in r.get("results", []):
        rate = x.get("gflops") or x.get("gbps")
        if x.get("status") in ("verified", "measured") and rate:
            out[x["rung"]] = (rate, "GFLOP/s" if x.get("gflops") else "GB/s")
        else:
            out[x["rung"]] = (None, x.get("status", "?"))
    return out


def main():
    d = sys.argv[1]
    names = sorted({f[: -len("_opencl.json")] for f in os.listdir(d) if f.endswith("_opencl.json")})
    for name in names:
        cl, cu = os.path.join(d, name + "_opencl.json"), os.path.join(d, name + "_cuda.json")
        if not os.path.exists(cu):
            continue
        a, b = rows(cl), rows(cu)
        print(f"\n{name}")
        print(f"  {'rung':<22}{'OpenCL':>12}{'CUDA':>12}  unit      CUDA/OpenCL")
        for rung in list(a) + [r for r in b if r not in a]:
            ra, rb = a.get(rung, (None, "absent")), b.get(rung, (None, "absent"))
            if ra[0] and rb[0]:
                q = rb[0] / ra[0]
                flag = "  <-- beyond 10%" if abs(q - 1) > 0.10 else ""
                print(f"  {rung:<22}{ra[0]:>12.1f}{rb[0]:>12.1f}  {ra[1]:<8}  {q:6.2f}{flag}")
            else:
                sa = f"{ra[0]:.1f}" if ra[0] else ra[1]
                sb = f"{rb[0]:.1f}" if rb[0] else rb[1]
                print(f"  {rung:<22}{sa:>12}{sb:>12}")


if __name__ == "__main__":
    main()
