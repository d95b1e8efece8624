#!/usr/bin/env python3
"""torch's host <-> device copies as a peer of `kladder peak --transfers` (not a test; issue
41's benchmark). The same sizes (4 KiB, then ×4 to --max bytes) and the same clock: the host's,
around one copy and its synchronisation, the median of --repeats after one warm-up. Rows:
h2d and d2h from pageable memory (torch.empty) and from pinned memory (pin_memory=True), and
both ways at once from pinned memory on two streams (GB/s counting both directions). Prints
one table, GB/s.

usage: bench/transfers_torch.py [--max BYTES] [--repeats N]     (torch from /opt/torch/.venv)
"""
import argparse
import statistics
import time

import torch


def timed(fn, repeats):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=1 << 30)
    ap.add_argument("--repeats", type=int, default=20)
    a = ap.parse_args()
    dev = torch.empty(a.max, dtype=torch.uint8, device="cuda")
    dev2 = torch.empty(a.max, dtype=torch.uint8, device="cuda")
    pageable = torch.randint(0, 255, (a.max,), dtype=torch.uint8)
    pinned = pageable.pin_memory()
    pinned2 = torch.empty(a.max, dtype=torch.uint8, pin_memory=True)
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()

    def both(n):
        with torch.cuda.stream(s1):
            dev[:n].copy_(pinned[:n], non_blocking=True)
        with torch.cuda.stream(s2):
            pinned2[:n].copy_(dev2[:n], non_blocking=True)

    cols = ["h2d_pageable", "d2h_pageable", "h2d_pinned", "d2h_pinned", "both_pinned"]
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}; GB/s, host clock, "
          f"median of {a.repeats}")
    print(f"{'bytes':>12s} " + " ".join(f"{c:>13s}" for c in cols))
    n = 4096
    while n <= a.max:
        reps = a.repeats if n < (256 << 20) else max(5, a.repeats // 4)
        fns = [lambda: dev[:n].copy_(pageable[:n]), lambda: pageable[:n].copy_(dev[:n]),
               lambda: dev[:n].copy_(pinned[:n]), lambda: pinned[:n].copy_(dev[:n]),
               lambda: both(n)]
        rates = [(2 if c.startswith("both") else 1) * n / timed(f, reps) / 1e9
                 for c, f in zip(cols, fns)]
        print(f"{n:12d} " + " ".join(f"{r:13.2f}" for r in rates), flush=True)
        n = a.max if n < a.max and n * 4 > a.max else n * 4


if __name__ == "__main__":
    main()
