#!/usr/bin/env python3
"""The tables of bench/protocol.sh from the runs it kept (not a test).

usage: bench/protocol.py KLADDER DIR

Each part prints where its runs are present: the conditions; each row's spread over ten
runs with the fixed protocol and with --noise/--min-clock; kladder compare's verdicts on
A/A pairs and on real 2, 3 and 5 % slowdowns; warm against cold; energy against power x
time."""
import glob
import json
import os
import re
import statistics
import subprocess
import sys


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


def rows(run):
    return {(r["rung"], r["config"]): r for r in (run or {}).get("results", [])}


def conditions(d):
    for name in ("rowdot_conditions", "lock", "minclock99", "minclock75"):
        txt = os.path.join(d, name + ".txt")
        if not os.path.exists(txt):
            continue
        print(f"--- {name}")
        for line in open(txt):
            if re.match(r"(machine:|           ECC|inputs:|kladder: warning|protocol:)", line):
                print("   ", line.rstrip())
        for r in rows(load(os.path.join(d, name + ".json"))).values():
            if r.get("median_s"):
                print(f"    {r['rung']}: {r['median_s'] * 1e3:.4g} ms, {r['status']}, cycles "
                      f"{r.get('cycles')}, re-taken {r.get('retaken')}, kept low "
                      f"{r.get('low_clock_kept')}, clock {(r.get('clocks') or {}).get('sm_mhz')}")


def spread(values):
    """The largest relative distance of a value from their median (None where one is missing)."""
    if not values or not all(values):
        return None
    m = statistics.median(values)
    return max(abs(v / m - 1) for v in values)


def spreads(d, workload, mode):
    """Per row: the median of the runs' medians, its spread, the spread of the rows' cycles."""
    runs = [load(p) for p in sorted(glob.glob(f"{d}/{workload}_{mode}_*.json"))]
    runs = [r for r in runs if r]
    out = {}
    for key in rows(runs[0]) if runs else []:
        meds = [rows(r).get(key, {}).get("median_s") for r in runs]
        if all(m for m in meds) and all(rows(r)[key]["status"] == "verified" for r in runs):
            out[key] = (statistics.median(meds), spread(meds), len(meds),
                        spread([rows(r)[key].get("cycles") for r in runs]))
    return out


def repeat(d):
    for workload in ("gemm", "rowdot"):
        modes = [spreads(d, workload, m) for m in ("fixed", "noise", "locked")]
        if not modes[0]:
            continue
        print(f"--- {workload}: each row's median over the runs, and the largest distance of a "
              f"run's median from it (in cycles: of its cycles, where the run read clocks)")
        print(f"    {'rung':40s} {'median ms':>10s} {'fixed':>8s} {'--noise':>8s} {'cycles':>8s} "
              f"{'locked':>8s}  ≥ 50 µs within ±1 % (--noise, locked)")
        pct = lambda x: f"{x * 100:7.2f}%" if x is not None else f"{'-':>8s}"
        for key, (m, s, n, _) in modes[0].items():
            t, lk = modes[1].get(key), modes[2].get(key)
            yes = lambda x: "-" if not x else "yes" if x[1] <= 0.01 else "no"
            ok = "" if m < 50e-6 else f"{yes(t)}, {yes(lk)}"
            print(f"    {' '.join(key).strip():40s} {m * 1e3:10.4g} {pct(s)} {pct(t and t[1])} "
                  f"{pct(t and t[3])} {pct(lk and lk[1])}  {ok} ({n} runs)")


def verdict(k, old, new, pct):
    """kladder compare's verdict on the one rung of old and new, and whether it regressed."""
    p = subprocess.run([k, "compare", old, new, "--force", "--fail-on-regression", str(pct)],
                       capture_output=True, text=True)
    m = re.search(r"^\S+ .*?(REGRESSION: )?(same|slower|faster|undecided) \(95% CI",
                  p.stdout, re.M)
    return (m.group(2), bool(m.group(1))) if m else ("?", False)


def detect(k, d):
    base = sorted(glob.glob(f"{d}/detect_100_*.json"))
    if len(base) < 2:
        return
    print("--- kladder compare on rowdot's runs (one run a side, then five a side)")
    pairs = [(a, b) for i, a in enumerate(base) for b in base[i + 1:]]
    v = [verdict(k, a, b, 2) for a, b in pairs]
    print(f"    A/A, {len(pairs)} pairs of separate runs: " +
          ", ".join(f"{w} {sum(x[0] == w for x in v)}" for w in ("same", "slower", "faster", "undecided")) +
          f"; regressions at 2 %: {sum(x[1] for x in v)}")
    for f in (102, 103, 105):
        slow = sorted(glob.glob(f"{d}/detect_{f}_*.json"))
        if not slow:
            continue
        v = [verdict(k, a, b, 1) for a, b in zip(base, slow)]
        lists = verdict(k, ",".join(base), ",".join(slow), 1)
        print(f"    {f - 100} % more rows: {sum(x[0] == 'slower' for x in v)} of {len(v)} pairs "
              f"slower ({', '.join(x[0] for x in v)}); five runs a side: {lists[0]}")


def cache(d):
    files = sorted(glob.glob(f"{d}/cache_*.json"))
    if not files:
        return
    print("--- warm against cold (--warm-cold)")
    for p in files:
        run = load(p)
        if not run:
            continue
        by = {}
        for r in run["results"]:
            if r.get("median_s") and r["config"].split()[-1:] in (["warm"], ["cold"]):
                by.setdefault(r["rung"], {})[r["config"].split()[-1]] = r
        for rung, wc in by.items():
            if len(wc) == 2:
                w, c = wc["warm"], wc["cold"]
                print(f"    {os.path.basename(p)[6:-5]:14s} {run['params']} {rung}: warm "
                      f"{w['median_s'] * 1e6:.1f} µs ({w.get('gbps') or 0:.0f} GB/s), cold "
                      f"{c['median_s'] * 1e6:.1f} µs ({c.get('gbps') or 0:.0f} GB/s), "
                      f"{c['median_s'] / w['median_s']:.2f}×")


def energy(d):
    files = sorted(glob.glob(f"{d}/energy_*.json"))
    if not files:
        return
    print("--- energy against power × time (--energy)")
    for p in files:
        for r in (load(p) or {}).get("results", []):
            if r.get("energy_j"):
                print(f"    {r['rung']:24s} {r['energy_j'] * 1e3:9.4g} mJ  {r.get('power_w') or 0:6.1f} W  "
                      f"counter / (power × time) {r.get('energy_power_ratio') or float('nan'):.4f}  "
                      f"{r.get('temperature_c')} °C")


def transfers(d):
    run = load(f"{d}/transfers.json")
    if not run:
        return
    print("--- host transfers (peak --transfers), GB/s by bytes per copy (both: each way, "
          "GB/s of the two together; sm: a kernel moving them)")
    by = {}
    for r in run["results"]:
        if r.get("gbps"):
            by.setdefault(int(r["x"]), {})[r["rung"]] = r["gbps"]
    kinds = ["h2d_pageable", "d2h_pageable", "h2d_pinned", "d2h_pinned", "both_pageable",
             "both_pinned", "sm_h2d_pinned", "sm_d2h_pinned"]
    print("    " + f"{'bytes':>12s}" + "".join(f"{k:>14s}" for k in kinds))
    for size in sorted(by):
        print("    " + f"{size:12d}" + "".join(f"{by[size].get(k, float('nan')):14.2f}" for k in kinds))


def soak(d):
    run = load(f"{d}/soak.json")
    if not run:
        return
    trace = run.get("trace") or []
    print(f"--- soak: {len(trace)} iterations, health: {run.get('health') or 'no event'}")
    for r in run["results"]:
        print(f"    {r['rung']:12s} {r['config'][:40]:40s} {r['status']:9s} median "
              f"{(r.get('median_s') or 0) * 1e3:.4g} ms (min {(r.get('min_s') or 0) * 1e3:.4g}, "
              f"max {(r.get('max_s') or 0) * 1e3:.4g})")
    clocks = [p["sm_mhz"] for p in trace if p.get("sm_mhz")]
    temps = [p["temperature_c"] for p in trace if p.get("temperature_c")]
    if clocks:
        print(f"    SM clock {min(clocks):.0f}–{max(clocks):.0f} MHz; temperature "
              f"{min(temps):.0f}–{max(temps):.0f} °C" if temps else "")


def main():
    k, d = sys.argv[1], sys.argv[2]
    conditions(d)
    repeat(d)
    detect(k, d)
    cache(d)
    energy(d)
    transfers(d)
    soak(d)


if __name__ == "__main__":
    main()
