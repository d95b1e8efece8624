#!/usr/bin/env python3
"""The layers of src/: no circle of calls between files, no private header
included from another folder (docs/ARCHITECTURE.md, "Layout").

A file uses another where its code refers to a function or object the other
defines: a relocation in one of its object's code sections (.text*) naming a
global symbol another object of src/ defines. References from data sections
(a rung table's hook, a backend's table of entries) are calls through a
pointer and do not count. The uses make a graph; every strongly connected
component of more than one file is a circle, printed with the symbols of
each edge inside it.

A private header is one of a workload's folder (src/workloads/NAME/) other
than NAME.h, the folder's face, or any header named parts.h or *_impl.h. A
file of src/ may include one only from its own folder.

Usage: check_layers.py OBJECTS SOURCE_DIR   (OBJECTS: a file naming the objects of
                                            src/ that the targets link, one a line,
                                            as tests/CMakeLists.txt writes it)
       check_layers.py --self-test         (the checker on made-up files)
Exit status 0 when the layers hold, 1 naming what breaks them, 2 on bad use.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

def symbols(obj):
    """The global symbols obj defines, and those its code sections refer to."""
    defined, used = set(), set()
    out = subprocess.run(["readelf", "-sW", obj], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        f = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(f) >= 8 and f[4] in ("GLOBAL", "WEAK") and f[6] != "UND":
            defined.add(f[7])
    out = subprocess.run(["readelf", "-rW", obj], capture_output=True, text=True, check=True)
    in_code = False
    for line in out.stdout.splitlines():
        m = re.match(r"Relocation section '\.rela?(\S*)'", line)
        if m:
            in_code = m.group(1).startswith(".text")
            continue
        f = line.split()
        # Offset Info Type Sym.Value Sym.Name + Addend
        if in_code and len(f) >= 5 and re.fullmatch(r"[0-9a-f]+", f[0]):
            used.add(f[4].split("@")[0])
    return defined, used


def uses(objects):
    """{file: {file it uses: [symbols]}} over objects, a {source path: object path}."""
    owner, refs = {}, {}
    for src, obj in objects.items():
        defined, used = symbols(obj)
        for s in defined:
            owner.setdefault(s, src)
        refs[src] = used
    graph = {src: {} for src in objects}
    for src, used in refs.items():
        for s in sorted(used):
            other = owner.get(s)
            if other and other != src:
                graph[src].setdefault(other, []).append(s)
    return graph


def circles(graph):
    """The strongly connected components of more than one node (Tarjan's, iterative)."""
    index, low, on, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, {})))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def private(header):
    """1 where header (a path from src/) is private to its folder."""
    parts = header.split("/")
    name = parts[-1]
    if name == "parts.h" or name.endswith("_impl.h"):
        return True
    return len(parts) == 3 and parts[0] == "workloads" and name != parts[1] + ".h"


def bad_includes(src_dir):
    """(file, line, header) for each include of another folder's private header."""
    found = []
    for path in sorted(glob.glob(os.path.join(src_dir, "**", "*.[ch]"), recursive=True)):
        rel = os.path.relpath(path, src_dir)
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if m and private(m.group(1)) and \
                        os.path.dirname(m.group(1)) != os.path.dirname(rel):
                    found.append(("src/" + rel, n, m.group(1)))
    return found


def report(graph, includes, out):
    """Prints what breaks the layers; the count of breaks."""
    found = circles(graph)
    for comp in found:
        print("layers: a circle of calls between %d files:" % len(comp), file=out)
        for a in comp:
            for b in sorted(graph[a]):
                if b in comp:
                    syms = graph[a][b]
                    more = " and %d more" % (len(syms) - 4) if len(syms) > 4 else ""
                    print("  %s -> %s (%s%s)" % (a, b, ", ".join(syms[:4]), more), file=out)
    for path, n, header in includes:
        print("layers: %s:%d includes %s, private to another folder" % (path, n, header),
              file=out)
    return len(found) + len(includes)


def objects_of(listing):
    """{source path: object path} of the objects listing names (stale objects a build dir
    still holds from renamed files are not among them)."""
    objects = {}
    with open(listing, encoding="utf-8") as f:
        for obj in f.read().split():
            m = re.search(r"\.dir/(src/.*)\.o$", obj)
            if m:
                objects[m.group(1)] = obj
    return objects


def self_test():
    """The checker on three made-up files: a circle through calls is found and
    named, a circle closed only by a table of function pointers is not, and an
    include of another folder's private header is found. 0 when it behaves."""
    files = {
        # a.c calls b.c, b.c calls a.c back: a circle
        "a.c": "int b1(void);\nint a1(void) { return b1() + 1; }\n",
        "b.c": "int a1(void);\nint b1(void) { return 2; }\nint b2(void) { return a1(); }\n",
        # c.c calls d.c; d.c only holds c.c's function in a table: no circle
        "c.c": "int d1(void);\nint c1(void) { return d1(); }\n",
        "d.c": "int c1(void);\nint d1(void) { return 4; }\n"
               "int (*const d_table[])(void) = {c1};\n",
    }
    with tempfile.TemporaryDirectory() as tmp:
        objects = {}
        for name, text in files.items():
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            subprocess.run(["cc", "-c", "-fPIC", "-O1", path, "-o", path + ".o"], check=True)
            objects["src/" + name] = path + ".o"
        graph = uses(objects)
        found = circles(graph)
        src = os.path.join(tmp, "src")
        os.makedirs(os.path.join(src, "workloads", "w"))
        os.makedirs(os.path.join(src, "cli"))
        with open(os.path.join(src, "workloads", "w", "x.c"), "w", encoding="utf-8") as f:
            f.write('#include "workloads/w/parts.h"\n#include "workloads/w/w.h"\n')
        with open(os.path.join(src, "cli", "y.c"), "w", encoding="utf-8") as f:
            f.write('#include "workloads/w/w.h"\n#include "workloads/w/bound.h"\n')
        includes = bad_includes(src)
    ok = (found == [["src/a.c", "src/b.c"]]
          and graph["src/a.c"] == {"src/b.c": ["b1"]} and graph["src/b.c"] == {"src/a.c": ["a1"]}
          and graph["src/c.c"] == {"src/d.c": ["d1"]} and graph["src/d.c"] == {}
          and includes == [("src/cli/y.c", 2, "workloads/w/bound.h")])
    if not ok:
        print("layers: the self-test failed: circles %s, graph %s, includes %s"
              % (found, graph, includes), file=sys.stderr)
        return 1
    print("layers: self-test passed (a circle of calls found, a table's pointer not counted, "
          "a private include found)")
    return 0


def main(argv):
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    listing, source_dir = argv
    objects = objects_of(listing)
    # kladder's own library alone has over 100 files: far fewer means a wrong listing
    missing = [o for o in objects.values() if not os.path.exists(o)]
    if len(objects) < 100 or missing:
        print("layers: %d objects of src/ named in %s, %d of them not built"
              % (len(objects), listing, len(missing)), file=sys.stderr)
        return 2
    graph = uses(objects)
    edges = sum(len(v) for v in graph.values())
    breaks = report(graph, bad_includes(os.path.join(source_dir, "src")), sys.stdout)
    if breaks:
        return 1
    print("layers: %d files of src/, %d uses between them, no circle; no private header "
          "included from another folder" % (len(graph), edges))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
