#!/usr/bin/env python3
"""Mutation testing: does the suite notice a bug?

Each mutation (tests/mutation/*.txt) is one small, deliberate bug: a piece of
text in one file of the source tree replaced by another. For each one chosen,
this runner applies it to a scratch copy of the tree (build-mutation/tree, the
working tree's tracked files, so uncommitted changes count), rebuilds
(build-mutation/build, incrementally), runs the tests the mutation names, and
restores the file. A mutation is

  killed    when at least one of its tests fails (the tests that failed are
            listed; "end to end" when one of them runs the command line or the
            library whole, not only a unit test of a function),
  survived  when all of them pass: the suite would not have noticed the bug,
  expected  a survivor the list marks `survives:` with the reason it cannot be
            observed (the runner still runs it, and reports it if killed),
  invalid   when its text is not found exactly once, or the tree no longer
            builds with it: the list is out of date.

Usage: tests/mutation/run.py [--list] [--check] [--in-place] [all | sample [N] [SEED] | NAME...]
  --list      print the mutations and exit
  --check     parse the list and check every mutation's text occurs exactly once,
              without building anything
  --in-place  mutate the working tree itself and rebuild build/ (CI's fresh clone, where
              build/ is already built): no scratch copy to build from nothing. Refused
              where the tree has uncommitted changes; each file is restored after its
              mutation, and build/ rebuilt at the end
  all         every mutation; writes the score
  sample      N mutations (default 4) chosen by SEED (default: the day of the
              year), so that CI rotates through the list
  NAME...     those mutations

Exit status: 0 when every mutation run was killed or expected to survive; 1
when one survived unexpectedly or was invalid; 2 on bad usage.
"""
import datetime
import os
import random
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.join(ROOT, "build-mutation")
TREE = os.path.join(WORK, "tree")
BUILD = os.path.join(WORK, "build")
# Tests that exercise one function or file, not the command line or the library whole.
UNIT_TESTS = {"units", "hierarchy", "user_rung", "image", "report_json_reader", "tune_units",
              "dist", "nvrtc"}
FIELDS = ("name", "breaks", "file", "find", "replace", "tests", "survives")


class Mutation:
    def __init__(self, fields, where):
        self.where = where
        for key in FIELDS:
            setattr(self, key, fields.get(key, ""))
        self.find = unescape(self.find)
        self.replace = unescape(self.replace)


def unescape(s):
    """\\n and \\t in a field stand for a newline and a tab; \\\\ for a backslash."""
    return re.sub(r"\\([nt\\])", lambda m: {"n": "\n", "t": "\t", "\\": "\\"}[m.group(1)], s)


def load():
    """Every mutation of tests/mutation/*.txt, in file order; exits 2 on a malformed entry."""
    out, names, errors = [], set(), []
    for fname in sorted(f for f in os.listdir(HERE) if f.endswith(".txt")):
        path = os.path.join(HERE, fname)
        fields, start = {}, None
        lines = open(path, encoding="utf-8").read().split("\n") + [""]
        for number, line in enumerate(lines, 1):
            if line.startswith("#"):
                continue
            if not line.strip():
                if fields:
                    m = Mutation(fields, "%s:%d" % (fname, start))
                    missing = [k for k in FIELDS[:-1] if not fields.get(k)]
                    if missing:
                        errors.append("%s: missing %s" % (m.where, ", ".join(missing)))
                    elif m.name in names:
                        errors.append("%s: the name %s is taken" % (m.where, m.name))
                    else:
                        names.add(m.name)
                        out.append(m)
                fields, start = {}, None
                continue
            key, sep, value = line.partition(": ")
            if not sep or key not in FIELDS:
                errors.append("%s:%d: expected \"KEY: value\" with KEY one of %s"
                              % (fname, number, ", ".join(FIELDS)))
                continue
            if key in fields:
                errors.append("%s:%d: %s given twice" % (fname, number, key))
            start = start or number
            fields[key] = value
    if errors:
        sys.exit("mutation: the list is malformed:\n  " + "\n  ".join(errors))
    return out


def occurrences(m, root):
    try:
        return open(os.path.join(root, m.file), encoding="utf-8").read().count(m.find)
    except OSError:
        return -1


def run(cmd, log, timeout=None, cwd=None):
    """Runs cmd with its output appended to log; its exit code (124 when it timed out)."""
    with open(log, "a") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        try:
            return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            f.write("(timed out after %s s)\n" % timeout)
            return 124


def refresh_tree():
    """The scratch tree: the working tree's tracked files, copied where they differ."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True,
                           stdout=subprocess.PIPE).stdout.decode().split("\0")
    for rel in filter(None, files):
        src, dst = os.path.join(ROOT, rel), os.path.join(TREE, rel)
        if not os.path.isfile(src):
            continue
        if os.path.exists(dst) and os.path.getsize(dst) == os.path.getsize(src) and \
                open(src, "rb").read() == open(dst, "rb").read():
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)


def build(log):
    jobs = str(os.cpu_count() or 2)
    if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")) and \
            run(["cmake", "-S", TREE, "-B", BUILD, "-DCMAKE_BUILD_TYPE=Release"], log) != 0:
        return False
    return run(["cmake", "--build", BUILD, "-j", jobs], log) == 0


def failed_tests():
    path = os.path.join(BUILD, "Testing", "Temporary", "LastTestsFailed.log")
    try:
        return [line.split(":", 1)[1].strip() for line in open(path) if ":" in line]
    except OSError:
        return []


def mutate(m, log):
    """Applies m, builds, runs its tests, restores the file: (verdict, detail)."""
    path = os.path.join(TREE, m.file)
    original = open(path, encoding="utf-8").read()
    if original.count(m.find) != 1:
        return "invalid", "its text occurs %d times in %s" % (original.count(m.find), m.file)
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(original.replace(m.find, m.replace))
        if not build(log):
            return "invalid", "the tree does not build with it (see %s)" % log
        rc = run(["ctest", "--test-dir", BUILD, "-R", m.tests, "-j", str(os.cpu_count() or 2),
                  "--timeout", "600", "--output-on-failure"], log, timeout=1800)
        if rc == 0:
            return "survived", ""
        failed = failed_tests()
        if not failed:
            return "invalid", "ctest failed without a failed test (no test matches %r?)" % m.tests
        e2e = [t for t in failed if t not in UNIT_TESTS]
        return "killed", "by %s%s" % (", ".join(failed[:6]) + (" …" if len(failed) > 6 else ""),
                                      "" if e2e else " (unit tests only)")
    finally:
        with open(path, "w", encoding="utf-8") as f:
            f.write(original)


def main(argv):
    muts = load()
    if "--list" in argv:
        for m in muts:
            print("%-32s %s" % (m.name, m.breaks))
        return 0
    if "--check" in argv:
        bad = [(m, occurrences(m, ROOT)) for m in muts]
        bad = [(m, n) for m, n in bad if n != 1]
        for m, n in bad:
            print("%s (%s): its text occurs %s in %s" % (m.name, m.where,
                  "nowhere" if n <= 0 else "%d times" % n, m.file))
        print("mutation: %d mutations, %d stale" % (len(muts), len(bad)))
        return 1 if bad else 0
    args = [a for a in argv if not a.startswith("--")]
    by_name = {m.name: m for m in muts}
    if not args:
        print(__doc__.strip().split("\n\n")[-2], file=sys.stderr)
        return 2
    if args[0] == "all":
        chosen = muts
    elif args[0] == "sample":
        try:
            n = int(args[1]) if len(args) > 1 else 4
            seed = int(args[2]) if len(args) > 2 else datetime.date.today().timetuple().tm_yday
        except ValueError:
            print("mutation: sample takes a count and a seed, both integers", file=sys.stderr)
            return 2
        chosen = random.Random(seed).sample(muts, min(n, len(muts)))
    else:
        unknown = [a for a in args if a not in by_name]
        if unknown:
            print("mutation: no mutation named %s (--list names them)" % ", ".join(unknown),
                  file=sys.stderr)
            return 2
        chosen = [by_name[a] for a in args]

    global TREE, BUILD
    if "--in-place" in argv:
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               stdout=subprocess.PIPE, check=True).stdout.strip()
        if dirty:
            print("mutation: --in-place needs a tree without uncommitted changes", file=sys.stderr)
            return 2
        TREE, BUILD = ROOT, os.path.join(ROOT, "build")
    else:
        os.makedirs(TREE, exist_ok=True)
        refresh_tree()
    log_dir = os.path.join(WORK, "logs")
    os.makedirs(log_dir, exist_ok=True)
    base_log = os.path.join(log_dir, "baseline.log")
    open(base_log, "w").close()
    print("mutation: building the unmutated tree in %s" % BUILD, flush=True)
    if TREE == ROOT and not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
        print("mutation: --in-place needs build/ configured (scripts/setup.sh)", file=sys.stderr)
        return 2
    if not build(base_log):
        print("mutation: the unmutated tree does not build: %s" % base_log, file=sys.stderr)
        return 1
    counts, survivors = {}, []
    for i, m in enumerate(chosen, 1):
        log = os.path.join(log_dir, m.name + ".log")
        open(log, "w").close()
        t0 = time.time()
        verdict, detail = mutate(m, log)
        if verdict == "survived" and m.survives:
            verdict, detail = "expected", m.survives
        counts[verdict] = counts.get(verdict, 0) + 1
        if verdict in ("survived", "invalid"):
            survivors.append(m)
        print("[%d/%d] %-30s %-9s %4.0f s  %s%s" % (i, len(chosen), m.name, verdict,
              time.time() - t0, detail, "" if verdict == "killed" else "\n        breaks: " + m.breaks),
              flush=True)
    build(base_log)  # leave the build unmutated
    killed = counts.get("killed", 0)
    print("mutation: %d run: %s" % (len(chosen), ", ".join("%d %s" % (v, k)
                                                         for k, v in sorted(counts.items()))))
    if args[0] == "all":
        scored = len(chosen) - counts.get("invalid", 0)
        print("mutation score: %d of %d killed (%.1f%%); %d expected survivors"
              % (killed, scored, 100.0 * killed / max(scored, 1), counts.get("expected", 0)))
    if survivors:
        print("mutation: not killed: %s (logs in %s)" % (" ".join(m.name for m in survivors),
                                                          log_dir), file=sys.stderr)
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
