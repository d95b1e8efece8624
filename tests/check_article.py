#!/usr/bin/env python3
"""Checks an article of kladder's (`kladder article`) against the run it was made from.

  check_article.py html PAGE RUN.json
      the page is well-formed XML; every rung of the run (not the peers) has a section,
      in ladder order, whose Change paragraph, sentence and figures are there (a host
      rung has no Change paragraph: it has no kernel); no section is empty; every
      internal link (href="#x") finds an element of that id; each chart mark of a rung
      links to its section
  check_article.py md FOLDER RUN.json KERNELS
      article.md parses as CommonMark (markdown-it): a heading a rung, a fenced diff block
      for every rung whose source differs from the one below, tables; its charts are
      there; and every diff applies: the rung below's source (under KERNELS) patched by it
      gives the rung's own source back, line for line
Exit 0 when every check holds, else 1 naming what failed.
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

XHTML = "{http://www.w3.org/1999/xhtml}"
SVG = "{http://www.w3.org/2000/svg}"
fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def rungs_of(run_path):
    with open(run_path, encoding="utf-8") as f:
        run = json.load(f)
    return [r for r in run["results"] if not r["peer"]]


def text_of(el):
    return "".join(el.itertext()).strip()


def check_html(page, run_path):
    rungs = rungs_of(run_path)
    try:
        root = ET.parse(page).getroot()
    except ET.ParseError as e:
        fail("%s is not well-formed: %s" % (page, e))
        return
    sections = [s for s in root.iter(XHTML + "section") if s.get("class") == "rung"]
    names = [text_of(s.find(XHTML + "h2")).rsplit(" ", 1)[0] for s in sections]
    if names != [r["rung"] for r in rungs]:
        fail("the sections %s are not the run's rungs %s" % (names, [r["rung"] for r in rungs]))
    ids = {el.get("id") for el in root.iter() if el.get("id")}
    for s, r in zip(sections, rungs):
        classes = {el.get("class") for el in s.iter() if el.get("class")}
        host = r.get("on_host")
        if not host and "change" not in classes:
            fail("%s: no Change paragraph" % r["rung"])
        for need in ("sentence", "figures"):
            if need not in classes:
                fail("%s: no %s" % (r["rung"], need))
        sentence = [el for el in s.iter() if el.get("class") == "sentence"]
        if sentence and len(text_of(sentence[0])) < 20:
            fail("%s: an empty sentence" % r["rung"])
        if not host and r.get("source") and r["status"] != "skipped" and \
                not any(el.tag == XHTML + "pre" for el in s.iter()):
            fail("%s: no source shown" % r["rung"])
    links = [el.get("href") for el in root.iter() if el.get("href", "").startswith("#")]
    broken = sorted({h for h in links if h[1:] not in ids})
    if broken:
        fail("internal links that lead nowhere: %s" % broken)
    marks = {}
    for a in root.iter(SVG + "a"):
        for g in a:
            if g.get("data-rung"):
                marks[g.get("data-rung")] = a.get("href")
    for s, r in zip(sections, rungs):
        if r["rung"] in marks and marks[r["rung"]] != "#" + s.get("id"):
            fail("%s's chart mark links to %s, not its section" % (r["rung"], marks[r["rung"]]))
    if not marks:
        fail("no chart mark links to a section")
    if not fails:
        print("ok: %s: %d sections, in the run's order, none empty; %d internal links and %d "
              "chart marks resolve" % (page, len(sections), len(links), len(marks)))


def apply_patch(old, patch):
    """The text old patched by one file's unified diff (as git writes it), or None."""
    out, i = [], 0
    lines = old.split("\n")
    hunks = re.split(r"^(@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@.*)$", patch, flags=re.M)
    for k in range(1, len(hunks), 2):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)", hunks[k])
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        out += lines[i:start]
        i = start
        body = hunks[k + 1].split("\n")[1:]
        for line in body:
            if line == "" or line.startswith("\\"):
                continue
            tag, text = line[0], line[1:]
            if tag == " ":
                if lines[i] != text:
                    return None
                out.append(text)
                i += 1
            elif tag == "-":
                if lines[i] != text:
                    return None
                i += 1
            elif tag == "+":
                out.append(text)
    out += lines[i:]
    return "\n".join(out)


def markdown_parser():
    """markdown-it (Debian's python3-markdown-it, which scripts/setup.sh --tests installs), from
    this Python's packages or, for another Python on the PATH, Debian's."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:
        sys.path.append("/usr/lib/python3/dist-packages")
        try:
            from markdown_it import MarkdownIt
        except ImportError:
            fail("no Markdown parser: python3-markdown-it is not installed")
            return None
    return MarkdownIt


def check_md(folder, run_path, kernels):
    MarkdownIt = markdown_parser()
    if not MarkdownIt:
        return
    rungs = rungs_of(run_path)
    path = os.path.join(folder, "article.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    heads = [tokens[i + 1].content for i, t in enumerate(tokens)
             if t.type == "heading_open" and t.tag == "h2"]
    want = ["%s (%s)" % (r["rung"], r["status"]) for r in rungs]
    got = [h.replace("\\", "") for h in heads if not h.startswith("The libraries")]
    if got != want:
        fail("the headings %s are not the run's rungs %s" % (got, want))
    if not any(t.type == "table_open" for t in tokens):
        fail("no table")
    diffs = [t.content for t in tokens if t.type == "fence" and t.info == "diff"]
    applied = 0
    for d in diffs:
        m = re.search(r"^--- a/(\S+)\n\+\+\+ b/(\S+)$", d, re.M)
        if not m:
            fail("a diff block without its files: %s" % d[:200])
            continue
        try:
            with open(os.path.join(kernels, m.group(1)), encoding="utf-8") as f:
                old = f.read()
            with open(os.path.join(kernels, m.group(2)), encoding="utf-8") as f:
                new = f.read()
        except OSError as e:
            fail("a diff names a file not under %s: %s" % (kernels, e))
            continue
        if apply_patch(old, d) != new:
            fail("the diff from %s to %s does not give %s back" % (m.group(1), m.group(2),
                                                                  m.group(2)))
        else:
            applied += 1
    if not diffs:
        fail("no fenced diff block")
    for chart in ("ladder.svg",):
        try:
            ET.parse(os.path.join(folder, chart))
        except (OSError, ET.ParseError) as e:
            fail("chart %s: %s" % (chart, e))
    if not fails:
        print("ok: %s: %d rung headings, %d diff blocks, each applies and gives the rung's "
              "source back" % (path, len(heads), applied))


def main(argv):
    if len(argv) == 3 and argv[0] == "html":
        check_html(argv[1], argv[2])
    elif len(argv) == 4 and argv[0] == "md":
        check_md(argv[1], argv[2], argv[3])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
