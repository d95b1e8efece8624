#!/usr/bin/env python3
"""The command line's outputs against their golden copies (tests/golden/).

Each case runs kladder on the test device with a fixed seed and keeps what
must not change when the code behind it is reorganised: the help texts and
rung lists whole; of the table, CSV and JSON of each workload the rows, their
order, statuses, precisions, configurations, build options and notes, the
column headers, the JSON's keys and the legends. What a run measures (times,
rates, the bound, the fastest rung), the error's digits and the machine's own
facts (device, driver, ceilings, clocks) are left out or masked, so the
goldens hold on any device that runs every rung of these cases (PoCL here).

  check_golden.py KLADDER [--update]

--update rewrites the goldens from this build (review the diff before
committing it). Exit status 0 when every case matches, 1 otherwise.
"""
import csv
import difflib
import io
import json
import os
import re
import subprocess
import sys
import tempfile

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
QUICK = ["--warmup", "0", "--repeats", "2", "--min-time", "0", "--seed", "7"]

# name -> (arguments, how the output is kept)
CASES = {
    "help": (["--help"], "text"),
    "gemm_help": (["gemm", "--help"], "text"),
    "blur_help": (["blur", "--help"], "text"),
    "gemm_rungs": (["gemm", "--list-rungs"], "text"),
    "copy_rungs": (["copy", "--list-rungs"], "text"),
    "rowdot_rungs": (["rowdot", "--list-rungs"], "text"),
    "gemv_rungs": (["gemv", "--list-rungs"], "text"),
    "blur_rungs": (["blur", "--list-rungs"], "text"),
    "mgemm_rungs": (["mgemm", "--list-rungs"], "text"),
    "main_rungs": (["--list-rungs"], "text"),
    "template_help": (["template", "--help"], "text"),
    "template_copy": (["template", "copy"], "text"),
    "gemm_table": (["gemm", "--m", "13", "--n", "7", "--k", "5", "--rung", "01,10,14", *QUICK],
                   "table"),
    "gemm_csv": (["gemm", "--m", "13", "--n", "7", "--k", "5", "--rung", "01,10,14", *QUICK,
                  "--format", "csv"], "csv"),
    "gemm_json": (["gemm", "--m", "13", "--n", "7", "--k", "5", "--rung", "01,10,14", *QUICK,
                   "--format", "json"], "json"),
    "gemm_double_json": (["gemm", "--size", "9", "--type", "double", "--rung", "02,05", *QUICK,
                          "--format", "json"], "json"),
    "copy_json": (["copy", "--n", "4099", *QUICK, "--format", "json"], "json"),
    "rowdot_csv": (["rowdot", "--rows", "13", "--d", "100", *QUICK, "--format", "csv"], "csv"),
    "gemv_json": (["gemv", "--m", "37", "--n", "33", *QUICK, "--format", "json"], "json"),
    "reduce_csv": (["reduce", "--size", "1001", "--op", "max", "--data", "skewed", *QUICK,
                    "--format", "csv"], "csv"),
    "scan_csv": (["scan", "--size", "1001", "--mode", "exclusive", "--data", "skewed", *QUICK,
                  "--format", "csv"], "csv"),
    "histogram_csv": (["histogram", "--size", "1001", "--bins", "7", "--data", "skewed", *QUICK,
                       "--format", "csv"], "csv"),
    "transpose_csv": (["transpose", "--size", "17,33", "--type", "half", *QUICK, "--format",
                       "csv"], "csv"),
    "softmax_csv": (["softmax", "--size", "9,70", "--op", "layernorm", "--type", "bf16", *QUICK,
                     "--format", "csv"], "csv"),
    "blur_table": (["blur", "--width", "17", "--height", "13", "--radius", "3", *QUICK],
                   "table"),
    "blur_json": (["blur", "--width", "17", "--height", "13", "--radius", "3", "--pixel",
                   "uchar4", *QUICK, "--format", "json"], "json"),
}

# a number with a fraction or an exponent: what a measurement or an error prints
FLOAT = re.compile(r"(?<![\w.])[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)|(?<![\w.])[-+]?\d+\.\d+")
# result fields that a run measures or that are the machine's own (noise is null where the
# timed launches all took the same time, as two launches of a tiny kernel can)
MEASURED = {"median_s", "min_s", "max_s", "gflops", "gbps", "pct_ceiling", "speedup_first",
            "speedup_host", "total_s", "build_s", "error", "bound", "noise", "resources", "clocks",
            "power_w", "power_w_max", "window_s", "energy_j", "gflops_per_j", "gbps_per_j",
            "clock_events", "capped", "machine_note", "resources_note", "samples", "x"}
CSV_KEPT = {"workload", "sizes", "type", "rung", "config", "status", "repeats",
            "build_options", "note", "precision"}
# table lines that name the machine or what it measured
MACHINE_LINES = ("device:", "reference:", "ceilings:", "machine:")


# measured or machine's words inside notes: an error that can be exactly 0 (double GEMM on
# some CPUs), and the device's vendor (PoCL names the CPU's: GenuineIntel, AuthenticAMD)
NOTE_FACTS = ((re.compile(r"worst \S+ of tolerance"), "worst # of tolerance"),
              (re.compile(r"this device is [^()]*?'s\b"), "this device is #'s"))


# the hash of a kernel's text, which changes with any edit of the kernel
SOURCE_HASH = re.compile(r"fnv1a64:[0-9a-f]{16}")


def mask(s):
    s = SOURCE_HASH.sub("fnv1a64:#", s)
    s = FLOAT.sub("#", s)
    for pattern, text in NOTE_FACTS:
        s = pattern.sub(text, s)
    return s


def keep_text(out):
    return out


def keep_table(out):
    """The heading, the main table's rung, status and precision columns, the legends."""
    kept, in_rows = [], False
    for line in out.splitlines():
        if line.startswith(MACHINE_LINES):
            continue
        if line.startswith("rung ") and " status " in line:
            kept.append(" ".join(line.split()))
            in_rows = True
            continue
        if in_rows:
            if not line.strip():
                in_rows = False
                kept.append("")
            else:
                kept.append(" ".join(line.split()[:3]))
            continue
        if line.startswith(("kladder ", "protocol:", "work:", "% roof:", "prec:", "bound:")):
            kept.append(mask(line))
    return "\n".join(kept) + "\n"


def keep_csv(out):
    rows = list(csv.DictReader(io.StringIO(out)))
    if not rows:
        return "(no rows)\n"
    lines = [",".join(rows[0].keys())]
    for r in rows:
        lines.append(",".join("%s=%s" % (k, mask(v)) for k, v in r.items() if k in CSV_KEPT))
    return "\n".join(lines) + "\n"


def keep_value(v):
    """A JSON value less its measured digits: floats are what a run measures."""
    if isinstance(v, float):
        return "#"
    if isinstance(v, str):
        return mask(v)
    if isinstance(v, list):
        return [keep_value(x) for x in v]
    if isinstance(v, dict):
        return {k: keep_value(x) for k, x in v.items()}
    return v


def keep_json(out):
    r = json.loads(out)
    results = r.get("results", [])
    kept = {"keys": sorted(r), "workload": r.get("workload"), "params": r.get("params"),
            "provenance_keys": sorted(r.get("provenance", {})),
            "result_keys": sorted({k for x in results for k in x}), "results": []}
    for x in results:
        kept["results"].append({k: keep_value(v) for k, v in x.items() if k not in MEASURED})
    return json.dumps(kept, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


KEEP = {"text": keep_text, "table": keep_table, "csv": keep_csv, "json": keep_json}


def run(kladder, args, cache):
    env = dict(os.environ, KLADDER_CACHE_DIR=cache, COLUMNS="100")
    p = subprocess.run([kladder, *args], capture_output=True, text=True, env=env, timeout=300)
    if p.returncode != 0:
        raise RuntimeError("kladder %s: exit %d\n%s" % (" ".join(args), p.returncode,
                                                       p.stderr[-2000:]))
    return p.stdout


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    kladder, update = sys.argv[1], "--update" in sys.argv[2:]
    failed = 0
    with tempfile.TemporaryDirectory() as cache:
        for name, (args, how) in CASES.items():
            path = os.path.join(GOLDEN, name + ".txt")
            try:
                got = KEEP[how](run(kladder, args, cache))
            except (RuntimeError, ValueError, subprocess.TimeoutExpired) as e:
                print("FAIL %s: %s" % (name, e))
                failed += 1
                continue
            if update:
                os.makedirs(GOLDEN, exist_ok=True)
                with open(path, "w") as f:
                    f.write(got)
                print("wrote %s" % path)
                continue
            want = open(path).read() if os.path.exists(path) else ""
            if got == want:
                print("ok   %s" % name)
            else:
                failed += 1
                print("FAIL %s: differs from %s" % (name, path))
                sys.stdout.writelines(difflib.unified_diff(
                    want.splitlines(True), got.splitlines(True), "golden", "this build", n=1))
    print("%d of %d cases match their goldens" % (len(CASES) - failed, len(CASES)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
