#!/usr/bin/env python3
"""The test tiers of a build (tests/tiers.cmake; docs/ARCHITECTURE.md, "Test tiers").

  tiers.py label BUILD [--all | --part N]
      the CTest label regex (for ctest -L) of the tests to run: the fast tier and the
      part of the day of the year modulo the number of parts (the mutation sample's
      clock), or of KLADDER_TEST_PART where it is set (to run another day's part, in CI
      too); --part N that part instead; --all every test
  tiers.py check BUILD
      every test carries exactly one tier label (fast or rotating); every rotating
      test one part label, part0 ... part<P-1>, and no fast test any; and the parts,
      as `label --part N` selects them, are disjoint and together hold the rotating
      tier, while `label --all` selects every test. Exit 1 naming what is wrong
  tiers.py times BUILD
      the slowest tests and each tier's and part's total, from CTest's own timings
      of the last runs (Testing/Temporary/CTestCostData.txt), with the fast tests
      over 20 s, which tests/tiers.cmake must say why it runs every time

The number of parts is the build's (tests/test_parts.txt, written by tiers.cmake).
"""
import datetime
import json
import os
import re
import subprocess
import sys

TIERS = ("fast", "rotating")
LONG = 20.0  # seconds on 2 cores: a longer fast test says why it runs every time


def parts_of(build):
    with open(os.path.join(build, "tests", "test_parts.txt"), encoding="utf-8") as f:
        return int(f.read().strip())


def label(build, how):
    """The -L regex: how is None (today), an int (that part) or "all"."""
    if how == "all":
        return "^(fast|rotating)$"
    if how is None and os.environ.get("KLADDER_TEST_PART", "").isdigit():
        how = int(os.environ["KLADDER_TEST_PART"]) % parts_of(build)
    part = how if how is not None else \
        datetime.date.today().timetuple().tm_yday % parts_of(build)
    return "^(fast|part%d)$" % part


def tests_of(build, regex=None):
    """{name: labels} of the tests CTest selects with -L regex (every test without)."""
    cmd = ["ctest", "--test-dir", build, "--show-only=json-v1"]
    if regex:
        cmd += ["-L", regex]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    found = {}
    for t in json.loads(out)["tests"]:
        labels = []
        for p in t.get("properties", []):
            if p["name"] == "LABELS":
                labels = p["value"]
        found[t["name"]] = labels
    return found


def check(build):
    nparts = parts_of(build)
    every = tests_of(build)
    bad = []
    for name, labels in sorted(every.items()):
        tiers = [x for x in labels if x in TIERS]
        parts = [x for x in labels if re.fullmatch(r"part\d+", x)]
        if len(tiers) != 1:
            bad.append("%s has %d tier labels (%s), not one" % (name, len(tiers), tiers))
        elif tiers == ["rotating"] and (len(parts) != 1 or int(parts[0][4:]) >= nparts):
            bad.append("%s is rotating with part labels %s, not one of part0..part%d"
                       % (name, parts, nparts - 1))
        elif tiers == ["fast"] and parts:
            bad.append("%s is fast but labelled %s" % (name, parts))
    fast = {n for n, labels in every.items() if "fast" in labels}
    rotating = {n for n, labels in every.items() if "rotating" in labels}
    union = set()
    for p in range(nparts):
        chosen = set(tests_of(build, label(build, p)))
        part = chosen - fast
        if chosen & fast != fast:
            bad.append("part %d's selection leaves out fast tests: %s"
                       % (p, sorted(fast - chosen)))
        if part & union:
            bad.append("part %d shares tests with an earlier part: %s" % (p, sorted(part & union)))
        if not part:
            bad.append("part %d holds no test" % p)
        union |= part
    if union != rotating:
        bad.append("the parts leave out %s and add %s"
                   % (sorted(rotating - union), sorted(union - rotating)))
    if set(tests_of(build, label(build, "all"))) != set(every):
        bad.append("--all does not select every test")
    for line in bad:
        print("tiers: " + line)
    if bad:
        return 1
    print("tiers: %d tests, %d fast, %d rotating in %d parts (%s); each test in one tier, "
          "the parts disjoint and whole"
          % (len(every), len(fast), len(rotating), nparts,
             ", ".join(str(sum(1 for n in rotating if "part%d" % p in every[n]))
                       for p in range(nparts))))
    return 0


def times(build):
    cost_file = os.path.join(build, "Testing", "Temporary", "CTestCostData.txt")
    if not os.path.exists(cost_file):
        print("tiers: no timings yet (%s): run the tests first" % cost_file, file=sys.stderr)
        return 2
    seconds = {}
    with open(cost_file, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if line.startswith("---"):
                break  # the failed tests follow
            if len(fields) == 3:
                seconds[fields[0]] = float(fields[2])
    every = tests_of(build)
    nparts = parts_of(build)

    def where(name):
        labels = every.get(name, [])
        part = [x for x in labels if re.fullmatch(r"part\d+", x)]
        return part[0] if part else "fast" if "fast" in labels else "-"

    timed = sorted(((s, n) for n, s in seconds.items() if n in every), reverse=True)
    print("slowest tests (seconds of their last run, %s):" % cost_file)
    for s, n in timed[:20]:
        print("  %8.1f  %-7s %s" % (s, where(n), n))
    groups = ["fast"] + ["part%d" % p for p in range(nparts)]
    print("totals (seconds of one core; ctest -j2 takes about half):")
    for g in groups:
        names = [n for n in every if where(n) == g]
        known = [seconds[n] for n in names if n in seconds]
        print("  %-6s %8.1f  %d tests%s" % (g, sum(known), len(names),
              "" if len(known) == len(names) else ", %d never timed" % (len(names) - len(known))))
    today = label(build, None)
    print("today (%s): %.1f" % (today, sum(s for n, s in seconds.items()
                                           if n in every and re.search(today, where(n)))))
    long_fast = [(s, n) for s, n in timed if where(n) == "fast" and s > LONG]
    if long_fast:
        print("fast tests over %.0f s (tests/tiers.cmake says why each runs every time):" % LONG)
        for s, n in long_fast:
            print("  %8.1f  %s" % (s, n))
    return 0


def main(argv):
    if len(argv) < 2 or argv[0] not in ("label", "check", "times"):
        print(__doc__, file=sys.stderr)
        return 2
    command, build, rest = argv[0], argv[1], argv[2:]
    if command == "label":
        how = None
        if rest == ["--all"]:
            how = "all"
        elif len(rest) == 2 and rest[0] == "--part" and rest[1].isdigit() and \
                int(rest[1]) < parts_of(build):
            how = int(rest[1])
        elif rest:
            print("tiers.py label: --all, or --part N with N below %d" % parts_of(build),
                  file=sys.stderr)
            return 2
        print(label(build, how))
        return 0
    if rest:
        print(__doc__, file=sys.stderr)
        return 2
    return check(build) if command == "check" else times(build)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
