#!/usr/bin/env python3
"""Checks of kladder's reports (tests/report.cmake), with the standard library
only (Pillow, where installed, only decodes screenshots faster).

  check_report.py ladder|roofline|sweep CHART.svg RUN.json
      the chart's bars or points are the run's numbers: one bar per timed row
      in ladder order (peers after the rungs, apart), none for failed rows,
      their widths and positions on the axes the values in the JSON
  check_report.py radii CHART.svg RUN.json [RUN.json ...]
      the blur radius chart: a group per pixel type and size at two radii or
      more, each point (kladder's best, NPP, the memory floor) the runs' time
      where the log axes put it; NPP's failures hollow and off its line
  check_report.py html PAGE.html RUN.json [RUN.json ...]
      one self-contained page: no script, nothing fetched, the charts each run
      should have, a blur's pictures as PNG of the right size
  check_report.py screenshot SHOT.png PAGE.html
      a browser's screenshot of PAGE shows every chart: each chart's plot area
      (found by its background tint) has marks in it, and every bar and point
      is drawn in its colour where the SVG puts it
  check_report.py schema SCHEMA.json RUN.json [...]
      every run validates against the JSON Schema, which is not vacuous
  check_report.py doctor IN.json OUT.json HOW
      writes a changed copy of a run for the other tests
"""
import base64
import json
import math
import random
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

SVG = "{http://www.w3.org/2000/svg}"
XHTML = "{http://www.w3.org/1999/xhtml}"
BAR_COLOURS = {"device": (0x34, 0x65, 0xA4), "host": (0x8A, 0x96, 0xA3), "peer": (0xD9, 0x82, 0x2B)}
SERIES = [(0x34, 0x65, 0xA4), (0xD9, 0x82, 0x2B), (0x2E, 0x7D, 0x32), (0x75, 0x50, 0x7B),
          (0xC4, 0x16, 0x1C), (0x00, 0x97, 0xA7), (0x8F, 0x59, 0x02), (0x55, 0x57, 0x53)]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def close(a, b, rel=1e-6, abs_=1e-9):
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def timed(r):
    return r["status"] in ("verified", "measured")


def metric(run, r):
    if (r["flops"] or 0) > 0:
        return "GIOP/s" if run["params"]["type"] == "int" else "GFLOP/s"
    if (r["bytes"] or 0) > 0:
        return "GB/s"
    return "µs"


def value(r, unit):
    if unit in ("GFLOP/s", "GIOP/s"):
        return r["gflops"]
    if unit == "GB/s":
        return r["gbps"]
    return r["median_s"] * 1e6


def cls(e):
    return (e.get("class") or "").split()


def find_all(root, tag, klass=None):
    return [e for e in root.iter(SVG + tag) if klass is None or klass in cls(e)]


def plot_of(svg):
    plots = find_all(svg, "g", "plot")
    if len(plots) != 1:
        raise SystemExit(f"FAIL: {len(plots)} plot groups in a chart")
    return plots[0]


def num(e, key):
    return float(e.get(key))


# ---- charts ---------------------------------------------------------------------

def check_ladder(svg, run, name):
    plot = plot_of(svg)
    unit, axis = plot.get("data-metric"), num(plot, "data-axis-max")
    left, width = num(plot, "data-left"), num(plot, "data-width")
    rows = [r for r in run["results"] if metric(run, r) == unit]
    want = [r for r in rows if not r["peer"]] + [r for r in rows if r["peer"]]
    bars = find_all(svg, "rect", "bar")
    shown = [r for r in want if timed(r)]
    if [b.get("data-rung") for b in bars] != [r["rung"] for r in shown]:
        fail(f"{name}: bars {[b.get('data-rung') for b in bars]}, timed rows {[r['rung'] for r in shown]}")
        return
    vmax = 0
    for b, r in zip(bars, shown):
        v = value(r, unit)
        # The axis reaches the end of each whisker: the fastest launch's rate, or the slowest time.
        vmax = max(vmax, r["max_s"] * 1e6 if unit == "µs" else v * r["median_s"] / r["min_s"])
        kind = "peer" if r["peer"] else "host" if r["on_host"] else "device"
        if kind not in cls(b):
            fail(f"{name}: bar {r['rung']} is drawn as {cls(b)}, not {kind}")
        if not close(num(b, "data-value"), v):
            fail(f"{name}: bar {r['rung']} says {b.get('data-value')}, the JSON {v}")
        if abs(num(b, "width") - v / axis * width) > 0.01 or num(b, "x") != left:
            fail(f"{name}: bar {r['rung']} is {b.get('width')} px wide at x={b.get('x')}, "
                 f"{v} of {axis} is {v / axis * width:.2f} px from {left}")
    if not (vmax <= axis <= 2.6 * vmax or vmax == 0):
        fail(f"{name}: axis to {axis} for values up to {vmax}")
    # Ticks sit where their values are.
    ticks = find_all(svg, "text", "tick")
    if len(ticks) < 3:
        fail(f"{name}: {len(ticks)} axis ticks")
    for t in ticks:
        if abs(num(t, "x") - (left + num(t, "data-value") / axis * width)) > 0.06:
            fail(f"{name}: tick {t.text} at x={t.get('x')}")
    # Failed and skipped rows: named, marked, never a bar.
    groups = {g.get("data-rung"): g for g in find_all(svg, "g", "row")}
    for r in want:
        if timed(r):
            continue
        g = groups.get(r["rung"])
        marks = [t for t in g.iter(SVG + "text") if r["status"] in cls(t)] if g is not None else []
        if not marks:
            fail(f"{name}: {r['status']} row {r['rung']} is not marked {r['status']}")
        elif r["status"] == "failed" and "failed" not in "".join(marks[0].itertext()):
            fail(f"{name}: failed row {r['rung']} does not say so")
    # Peers apart: below every rung, after a divider.
    py = [num(b, "y") for b in bars if "peer" in cls(b)]
    ry = [num(b, "y") for b in bars if "peer" not in cls(b)]
    if py and ry:
        if min(py) <= max(ry):
            fail(f"{name}: peer bars are not below the rungs")
        div = find_all(svg, "line", "peer-divider")
        if len(div) != 1 or not (max(ry) < num(div[0], "y1") < min(py)):
            fail(f"{name}: no divider between the rungs and the peers")
    print(f"ok: {name}: {len(bars)} bars ({unit}) match the JSON, "
          f"{len(want) - len(shown)} untimed rows marked, {len(py)} peers apart")
    return len(bars)


def check_roofline(svg, run, name):
    plot = plot_of(svg)
    x0, x1, y0, y1 = (num(plot, k) for k in ("data-x-log-min", "data-x-log-max",
                                             "data-y-log-min", "data-y-log-max"))
    left, top, w, h = (num(plot, k) for k in ("data-left", "data-top", "data-width", "data-height"))

    def px(ai):
        return left + (math.log10(ai) - x0) / (x1 - x0) * w

    def py(p):
        return top + h - (math.log10(p) - y0) / (y1 - y0) * h

    want = [r for r in run["results"] if timed(r) and (r["flops"] or 0) > 0 and (r["bytes"] or 0) > 0]
    pts = find_all(svg, "circle", "point")
    if sorted(p.get("data-rung") for p in pts) != sorted(r["rung"] for r in want):
        fail(f"{name}: points {[p.get('data-rung') for p in pts]}, rows {[r['rung'] for r in want]}")
        return
    by = {}
    for p in pts:
        by.setdefault(p.get("data-rung"), []).append(p)
    for r in want:
        p = by[r["rung"]].pop(0)
        ai, perf = r["flops"] / r["bytes"], r["gflops"]
        if not (close(num(p, "data-ai"), ai) and close(num(p, "data-perf"), perf)):
            fail(f"{name}: point {r['rung']} says AI {p.get('data-ai')} and {p.get('data-perf')}, "
                 f"the JSON {ai} and {perf}")
        if abs(num(p, "cx") - px(ai)) > 0.01 or abs(num(p, "cy") - py(perf)) > 0.01:
            fail(f"{name}: point {r['rung']} at ({p.get('cx')}, {p.get('cy')}), "
                 f"expected ({px(ai):.2f}, {py(perf):.2f})")
        if not (left <= px(ai) <= left + w and top <= py(perf) <= top + h):
            fail(f"{name}: point {r['rung']} is outside the plot")
    # Log axes: labelled decades where they belong, at least two on each axis.
    xt = [t for t in find_all(svg, "text", "tick") if "x" in cls(t)]
    yt = [t for t in find_all(svg, "text", "tick") if "y" in cls(t)]
    for t in xt:
        if abs(num(t, "x") - px(num(t, "data-value"))) > 0.06:
            fail(f"{name}: x tick {t.text} misplaced")
    for t in yt:
        if abs(num(t, "y") - 4 - py(num(t, "data-value"))) > 0.06:
            fail(f"{name}: y tick {t.text} misplaced")
    decades = [t for t in xt + yt if math.log10(num(t, "data-value")).is_integer()]
    if len([t for t in xt if t in decades]) < 2 or len([t for t in yt if t in decades]) < 2:
        fail(f"{name}: fewer than two labelled decades on an axis")
    # The roofs, where the run has them: the polyline lies on min(peak, AI × bandwidth).
    cv = run.get("ceiling_values")
    if run["workload"] == "peak":  # a peak run's roofs are its own best rows
        best = lambda pre, k: max([x[k] for x in run["results"] if x["rung"].startswith(pre)
                                   and x["status"] == "verified" and x[k]] or [0])
        cv = {"copy_gbps": best("copy_", "gbps"), "f32_gflops": best("fma_f32", "gflops"),
              "f64_gflops": best("fma_f64", "gflops"), "i32_giops": best("fma_i32", "gflops")}
    roofs = [e for e in find_all(svg, "polyline", "roof") if "other" not in cls(e)]
    if cv and cv.get("copy_gbps"):
        peak = {"double": cv.get("f64_gflops"), "int": cv.get("i32_giops")}.get(run["params"]["type"], cv.get("f32_gflops"))
        if len(roofs) != 1 or not close(num(roofs[0], "data-copy-gbps"), cv["copy_gbps"]):
            fail(f"{name}: no roof at the run's copy bandwidth {cv['copy_gbps']}")
        else:
            for xy in roofs[0].get("points").split():
                X, Y = map(float, xy.split(","))
                ai = 10 ** (x0 + (X - left) / w * (x1 - x0))
                perf = 10 ** (y0 + (top + h - Y) / h * (y1 - y0))
                bound = min(peak or math.inf, ai * cv["copy_gbps"])
                if abs(math.log10(perf / bound)) > 0.004:
                    fail(f"{name}: roof point ({X}, {Y}) is {perf:.4g}, the roofline {bound:.4g}")
        labels = "".join("".join(t.itertext()) for t in find_all(svg, "text", "point-label"))
        for r in want:
            if r["pct_ceiling"] and f"{r['rung']} " not in labels:
                fail(f"{name}: {r['rung']} has no % of roof label")
    elif roofs:
        fail(f"{name}: roofs drawn for a run without ceilings")
    print(f"ok: {name}: {len(pts)} points on log-log axes match the JSON"
          f"{', roofs on the measured ceilings' if roofs else ''}")
    return len(pts)


def check_sweep(svg, run, name):
    plot = plot_of(svg)
    l0, l1, ymax = num(plot, "data-x-log2-min"), num(plot, "data-x-log2-max"), num(plot, "data-y-max")
    left, top, w, h = (num(plot, k) for k in ("data-left", "data-top", "data-width", "data-height"))
    want = [r for r in run["results"] if timed(r) and r["x"]]
    pts = find_all(svg, "circle", "point")
    rungs = list(dict.fromkeys(r["rung"] for r in run["results"]))
    order = [(g, r["x"]) for g in rungs for r in want if r["rung"] == g]  # a line per rung
    if [(p.get("data-rung"), float(p.get("data-n"))) for p in pts] != order:
        fail(f"{name}: {len(pts)} points for {len(want)} timed rows, or in another order")
        return
    series = find_all(svg, "g", "series")
    if [s.get("data-rung") for s in series] != rungs:
        fail(f"{name}: lines {[s.get('data-rung') for s in series]}, rungs {rungs}")
    for p in pts:
        r = next(r for r in want if r["rung"] == p.get("data-rung") and r["x"] == float(p.get("data-n")))
        X = left + (math.log2(r["x"]) - l0) / (l1 - l0) * w
        Y = top + h - r["gbps"] / ymax * h
        if not close(num(p, "data-gbps"), r["gbps"]) or abs(num(p, "cx") - X) > 0.01 or abs(num(p, "cy") - Y) > 0.01:
            fail(f"{name}: {r['rung']} at N={r['x']:.0f} drawn at ({p.get('cx')}, {p.get('cy')}), "
                 f"{r['gbps']} GB/s belongs at ({X:.2f}, {Y:.2f})")
    if max((r["gbps"] for r in want), default=0) > ymax:
        fail(f"{name}: the y axis ends below the data")
    print(f"ok: {name}: {len(series)} lines, {len(pts)} points at log N match the JSON")
    return len(pts)


def chart(kind, svg_path, json_path):
    svg = ET.parse(svg_path).getroot()
    run = json.load(open(json_path))
    if svg.tag != SVG + "svg" or kind not in cls(svg):
        fail(f"{svg_path}: not a {kind} chart")
        return
    {"ladder": check_ladder, "roofline": check_roofline, "sweep": check_sweep}[kind](svg, run, svg_path)


# ---- the page ---------------------------------------------------------------------

def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def expected_charts(run):
    if run["params"].get("sweep") or any(r["x"] for r in run["results"]):
        kinds = ["sweep"]
    else:
        kinds = ["ladder"] * len(set(metric(run, r) for r in run["results"]))
    if any(timed(r) and (r["flops"] or 0) > 0 and (r["bytes"] or 0) > 0 for r in run["results"]) \
            or run["workload"] == "peak":
        kinds.append("roofline")
    return kinds


def page(html_path, json_paths):
    text = open(html_path, encoding="utf-8").read()
    root = ET.fromstring(text)  # well-formed, or this raises
    if re.search(r"<script|@import|url\(", text, re.I):
        fail(f"{html_path}: has a script, an @import or a url()")
    for e in root.iter():
        for attr in ("src", "href"):
            v = e.get(attr)
            if v and not (v.startswith("data:image/png;base64,") or v.startswith("#")):
                fail(f"{html_path}: <{e.tag.split('}')[-1]} {attr}=\"{v[:60]}\"> loads something")
    runs = [json.load(open(p)) for p in json_paths]
    sections = [s for s in root.iter(XHTML + "section") if "run" in cls(s)]
    if len(sections) != len(runs):
        fail(f"{html_path}: {len(sections)} run sections for {len(runs)} runs")
        return
    ids = []
    for sec, run, path in zip(sections, runs, json_paths):
        charts = [s for s in sec.iter(SVG + "svg") if "chart" in cls(s)]
        kinds = [c for s in charts for c in cls(s) if c != "chart"]
        if kinds != expected_charts(run):
            fail(f"{html_path}: {path} has charts {kinds}, expected {expected_charts(run)}")
        for s in charts:
            ids.append(s.get("data-chart"))
            kind = [c for c in cls(s) if c != "chart"][0]
            {"ladder": check_ladder, "roofline": check_roofline, "sweep": check_sweep}[kind](
                s, run, f"{html_path} {path} {kind}")
        imgs = list(sec.iter(XHTML + "img"))
        if run["workload"] == "blur":
            want = 1 + bool((run.get("images") or {}).get("output"))
            if len(imgs) != want:
                fail(f"{html_path}: {path} shows {len(imgs)} pictures, expected {want}")
            for img in imgs:
                data = base64.b64decode(img.get("src").split(",", 1)[1], validate=True)
                size = png_size(data)
                W, H = run["params"]["width"], run["params"]["height"]
                f = 1
                while -(-W // f) > 520 or -(-H // f) > 520:
                    f += 1
                if size != (-(-W // f), -(-H // f)):
                    fail(f"{html_path}: a picture is {size}, expected {W}x{H} shown at 1/{f}")
            notes = "".join(sec.itertext())
            if want == 1 and "No output picture" not in notes:
                fail(f"{html_path}: {path} has no output picture and does not say so")
            print(f"ok: {html_path}: {len(imgs)} embedded PNG picture(s) of the run's size")
        elif imgs:
            fail(f"{html_path}: pictures in a {run['workload']} run")
        table = "".join(sec.itertext())
        for r in run["results"]:
            if r["rung"] not in table or (r["summary"] and not r["peer"] and r["summary"] not in table):
                fail(f"{html_path}: {r['rung']} or its summary is missing from the page")
        for fact in ("compute units", "driver", "kladder", run["device"]["name"], run["provenance"]["date"]):
            if fact not in table:
                fail(f"{html_path}: the page does not show {fact}")
        # The machine (version 2): a row per timed rung with its resources, as the JSON says.
        machine = [t for t in sec.iter(XHTML + "table") if "machine" in cls(t)]
        observed = [r for r in run["results"] if timed(r) and (r.get("resources") or r.get("clocks"))]
        if observed and len(machine) != 1:
            fail(f"{html_path}: {path} has resources or clocks but {len(machine)} machine tables")
        elif observed:
            rows = {tr[0].text: [td.text for td in tr] for tr in machine[0].iter(XHTML + "tr")
                    if tr[0].tag == XHTML + "td"}
            for r in observed:
                cells, q = rows.get(r["rung"]), (r.get("resources") or [{}])[0]
                if not cells:
                    fail(f"{html_path}: {r['rung']} missing from the machine table")
                elif q.get("threads") is not None and cells[5] != str(q["threads"]):
                    fail(f"{html_path}: {r['rung']} shows {cells[5]} threads, the JSON {q['threads']}")
            print(f"ok: {html_path}: the machine table has the {len(observed)} observed rows")
    if len(set(ids)) != len(ids):
        fail(f"{html_path}: chart ids repeat: {ids}")
    print(f"ok: {html_path}: self-contained, {len(ids)} charts for {len(runs)} run(s), "
          "rung summaries, device facts and provenance")


# ---- screenshots ------------------------------------------------------------------

def read_png(path):
    """(width, height, rows of RGB tuples)."""
    try:
        from PIL import Image
        im = Image.open(path).convert("RGB")
        W, H = im.size
        px = im.load()
        return W, H, lambda x, y: px[x, y]
    except ImportError:
        pass
    d = open(path, "rb").read()
    pos, idat = 8, b""
    while pos < len(d):
        n, t = struct.unpack(">I4s", d[pos:pos + 8])
        body = d[pos + 8:pos + 8 + n]
        pos += 12 + n
        if t == b"IHDR":
            W, H, bd, ct, _, _, il = struct.unpack(">IIBBBBB", body)
        elif t == b"IDAT":
            idat += body
    if bd != 8 or il or ct not in (2, 6):
        raise SystemExit(f"FAIL: {path}: an unexpected PNG format")
    bpp = 3 if ct == 2 else 4
    raw, stride = zlib.decompress(idat), W * bpp
    out, prev, i = bytearray(), bytearray(stride), 0
    for _ in range(H):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            for x in range(stride):
                line[x] = (line[x] + prev[x]) & 255
        elif f == 3:
            for x in range(stride):
                line[x] = (line[x] + ((line[x - bpp] if x >= bpp else 0) + prev[x]) // 2) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = prev[x], prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return W, H, lambda x, y: tuple(out[(y * W + x) * bpp:(y * W + x) * bpp + 3])


def near(c, want, tol=10):
    return all(abs(a - b) <= tol for a, b in zip(c, want))


def screenshot(png_path, html_path):
    W, H, at = read_png(png_path)
    root = ET.parse(html_path).getroot()
    charts = [s for s in root.iter(SVG + "svg") if "chart" in cls(s)]
    # Not blank: a good share of the page is not white, in many colours.
    step = 4
    sample = [at(x, y) for y in range(0, H, step) for x in range(0, W, step)]
    inked = sum(1 for c in sample if c != (255, 255, 255))
    if inked < 0.02 * len(sample) or len(set(sample)) < 50:
        fail(f"{png_path}: looks blank ({inked} of {len(sample)} sampled pixels not white, "
             f"{len(set(sample))} colours)")
    # Each chart's plot area, by its background tint.
    want = {}
    for s in charts:
        bg = (0xF5, 0xF7, 0xF0 + int(s.get("data-chart")) % 16)
        want[bg] = s
    boxes = {bg: [W, H, -1, -1] for bg in want}
    for y in range(H):
        for x in range(0, W):
            c = at(x, y)
            b = boxes.get(c)
            if b:
                b[0], b[1], b[2], b[3] = min(b[0], x), min(b[1], y), max(b[2], x), max(b[3], y)
    for bg, s in want.items():
        kind = [c for c in cls(s) if c != "chart"][0]
        area = [e for e in find_all(s, "rect", "area")][0]
        ax, ay, aw, ah = (num(area, k) for k in ("x", "y", "width", "height"))
        x0, y0, x1, y1 = boxes[bg]
        if x1 < 0:
            fail(f"{png_path}: the {kind} chart #{s.get('data-chart')} is not on the screenshot")
            continue
        if abs((x1 - x0 + 1) - aw) > 3 or abs((y1 - y0 + 1) - ah) > 3:
            fail(f"{png_path}: the {kind} chart's plot is {x1 - x0 + 1}x{y1 - y0 + 1} px on screen, "
                 f"{aw:.0f}x{ah:.0f} in the SVG")
            continue
        ox, oy = x0 - ax, y0 - ay  # where the SVG's origin is on the page (±1 px)
        marks = sum(1 for y in range(y0, y1 + 1, 2) for x in range(x0, x1 + 1, 2) if at(x, y) != bg)
        if marks < 40:
            fail(f"{png_path}: the {kind} chart's plot area is empty ({marks} marks)")
        seen = drawn = 0
        if kind == "ladder":
            for b in find_all(s, "rect", "bar"):
                bw = num(b, "width")
                if bw < 6:
                    continue  # too thin to sample reliably
                drawn += 1
                # Above the middle, where the whisker runs.
                c = at(int(ox + num(b, "x") + bw / 2), int(oy + num(b, "y") + 3))
                colour = BAR_COLOURS[[k for k in BAR_COLOURS if k in cls(b)][0]]
                seen += near(c, colour)
            for g in find_all(s, "g", "row"):
                if g.get("data-status") == "failed":
                    t = [t for t in g.iter(SVG + "text") if "failed" in cls(t)][0]
                    c = at(int(ox + num(t, "x") - 3), int(oy + num(t, "y") - 4))
                    if any(near(c, col, 30) for col in BAR_COLOURS.values()):
                        fail(f"{png_path}: a failed rung is drawn as a bar")
        else:
            # A point is on screen when a pixel of its disc (the centre or one next to it)
            # has a point colour: another point's label or a roof line may cross the centre.
            colours = list(BAR_COLOURS.values()) if kind == "roofline" else SERIES
            for p in find_all(s, "circle", "point"):
                drawn += 1
                cx, cy = int(round(ox + num(p, "cx"))), int(round(oy + num(p, "cy")))
                seen += any(near(at(cx + dx, cy + dy), col, 40) for col in colours
                            for dx in (-1, 0, 1) for dy in (-1, 0, 1))
        if seen != drawn:
            fail(f"{png_path}: {seen} of {drawn} bars or points of the {kind} chart are on screen "
                 "in their colours")
        else:
            print(f"ok: {png_path}: the {kind} chart is on screen ({x1 - x0 + 1}x{y1 - y0 + 1} px "
                  f"at {x0},{y0}, {marks} marked pixels), {drawn} bars or points in their colours")


# ---- schema -----------------------------------------------------------------------

def schema(schema_path, runs):
    try:
        import jsonschema
    except ImportError:
        print("python3-jsonschema is not installed (scripts/setup.sh --tests installs it); skipped")
        sys.exit(77)
    s = json.load(open(schema_path))
    jsonschema.Draft202012Validator.check_schema(s)
    v = jsonschema.Draft202012Validator(s)
    for p in runs:
        r = json.load(open(p))
        errs = sorted(v.iter_errors(r), key=lambda e: list(e.path))
        for e in errs[:5]:
            fail(f"{p}: {'/'.join(map(str, e.path))}: {e.message[:200]}")
        if not errs:
            print(f"ok: {p} ({r['workload']}) validates against the schema")
    # Not vacuous: broken copies are refused.
    r = json.load(open(runs[0]))
    for what, change in (("no schema_version", lambda r: r.pop("schema_version")),
                         ("schema_version 4", lambda r: r.update(schema_version=4)),
                         ("an unknown status", lambda r: r["results"][0].update(status="fine")),
                         ("a string time", lambda r: r["results"][0].update(median_s="1 ms")),
                         ("no results", lambda r: r.pop("results")),
                         ("an undocumented field", lambda r: r.update(extra=1))):
        bad = json.loads(json.dumps(r))
        change(bad)
        if v.is_valid(bad):
            fail(f"the schema accepts a run with {what}")
    print("ok: the schema refuses runs with no or another schema_version, unknown fields and wrong types")
    # Version 1 files (before the machine fields) still validate: the same run without them.
    v1 = json.loads(json.dumps(r))
    v1["schema_version"] = 1
    for k in ("kladder_revision", "host", "cpu", "os", "clocks_at_start"):
        v1["provenance"].pop(k, None)
    for x in v1["results"]:
        for k in V2_ROW_FIELDS:
            x.pop(k, None)
    errs = sorted(v.iter_errors(v1), key=lambda e: list(e.path))
    for e in errs[:5]:
        fail(f"version 1 copy: {'/'.join(map(str, e.path))}: {e.message[:200]}")
    if not errs:
        print("ok: a version 1 copy of the run (no machine fields) validates too")
    # Version 2's fields are there, each row's or null with its reason.
    if r["schema_version"] == 2:
        for x in r["results"]:
            missing = [k for k in V2_ROW_FIELDS if k not in x]
            if missing:
                fail(f"{x['rung']}: version 2 row lacks {missing}")
            elif timed(x) and x["resources"] is None and not x["resources_note"]:
                fail(f"{x['rung']}: no resources and no reason")
            elif timed(x) and x["clocks"] is None and not x["machine_note"]:
                fail(f"{x['rung']}: no clocks and no reason")
            elif timed(x) and not x["peer"] and not x["on_host"] and x["samples"] is not None and \
                    len(x["samples"]) != x["repeats"]:
                fail(f"{x['rung']}: {len(x['samples'])} samples for {x['repeats']} timed launches")
        print("ok: every version 2 row has its machine fields, or null with the reason")


V2_ROW_FIELDS = ("bound", "resources", "resources_note", "clocks", "power_w", "power_w_max",
                 "window_s", "energy_j", "gflops_per_j", "gbps_per_j", "clock_events", "capped",
                 "machine_note", "samples")


# ---- doctored runs ------------------------------------------------------------------

def set_times(x, samples):
    """A row's launch times, and the order statistics and rates that follow from them."""
    s = sorted(samples)
    n = len(s)
    x["samples"] = samples
    x["repeats"] = n
    x["min_s"], x["max_s"] = s[0], s[-1]
    x["median_s"] = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    for k in ("gflops", "gbps"):
        if x.get(k):
            x[k] = (x["flops"] if k == "gflops" else x["bytes"]) / x["median_s"] * 1e-9


def doctor(src, dst, how):
    r = json.load(open(src))
    rows = [x for x in r["results"] if timed(x) and not x["on_host"]]
    if how in ("slower", "faster", "preset"):
        # One device rung well outside both runs' spreads.
        # Its launch times moved with it (compare refuses a median its launch times contradict).
        # preset: slower, and under another config (a preset that changed between the runs).
        x = rows[len(rows) // 2]
        f = 0.4 if how == "faster" else 2.0
        if how == "preset":
            x["config"] = "preset sm_90 BN=64"
        lo, hi = x["min_s"], x["max_s"]
        a, b = (lo * f * 0.9, lo * f) if how == "faster" else (hi * f, hi * f * 1.1)
        n = len(x.get("samples") or []) or 3
        set_times(x, [a + (b - a) * k / max(n - 1, 1) for k in range(n)])
        print(x["rung"])
    elif how == "newfail":
        x = rows[0]
        x["status"] = "failed"
        for k in ("median_s", "min_s", "max_s", "gflops", "gbps", "speedup_first", "speedup_host",
                  "total_s", "build_s", "pct_ceiling"):
            x[k] = None
        x["repeats"] = 0
        x["note"] = "12 of 256 elements differ from the reference"
        print(x["rung"])
    elif how == "othersize":
        key = next(k for k in r["params"] if k not in ("type", "seed"))
        r["params"][key] += 1
        print(key)
    elif how == "otherdevice":
        r["device"]["name"] = "Another Device 9000"
    elif how == "otherdriver":
        r["device"]["driver"] = r["provenance"]["driver"] = "99.9"
        r["params"]["seed"] = 7
    elif how == "failed_peer_roofs":
        # A failed rung, a skipped one and a peer (vendor library) row; measured ceilings.
        x = rows[1]
        x["status"] = "failed"
        for k in ("median_s", "min_s", "max_s", "gflops", "gbps", "speedup_first", "total_s",
                  "build_s", "pct_ceiling"):
            x[k] = None
        x["note"] = "3 elements differ from the reference"
        y = dict(rows[-1])
        y.update(rung="vendor_blas", peer=True, summary="", note="a vendor library on the same data")
        r["results"].append(y)
        z = dict(rows[0])
        z.update(rung="zz_skipped", status="skipped", note="needs more local memory", median_s=None,
                 min_s=None, max_s=None, gflops=None, gbps=None, pct_ceiling=None)
        r["results"].insert(len(r["results"]) - 1, z)
        peak = max(x["gflops"] for x in rows if x["gflops"]) * 20
        r["ceiling_values"] = {"copy_gbps": peak / 40, "read_gbps": None, "write_gbps": None,
                               "f32_gflops": peak, "f64_gflops": peak / 2, "i32_giops": peak / 3,
                               "date": "2026-01-01T00:00:00Z"}
        for x in r["results"]:
            if timed(x) and x["flops"]:
                ai = x["flops"] / x["bytes"]
                x["pct_ceiling"] = 100 * x["gflops"] / min(peak, ai * peak / 40)
    elif how.startswith("shape:"):
        # The run as if of shape M×N×K, with libraries beside its rungs: an fp32 peer at
        # FACTOR × the fastest fp32 rung, and a tf32 rung with a tf32 peer at 1 / FACTOR of it.
        _, m, n, k, factor = how.split(":")
        m, n, k, factor = int(m), int(n), int(k), float(factor)
        r["params"].update(M=m, N=n, K=k)
        r["flops_per_launch"] = 2 * m * n * k
        fast = max((x for x in rows if x["precision"] == "fp32"), key=lambda x: x["gflops"])
        peer = dict(fast, rung="peer:blas", peer=True, on_host=False, summary="")
        peer["gflops"] = fast["gflops"] * factor
        tf = dict(fast, rung="zz_tf32", precision="tf32", summary="a TF32 rung")
        tf["gflops"] = fast["gflops"] * 3
        tpeer = dict(tf, rung="peer:blas_tf32", peer=True)
        tpeer["gflops"] = tf["gflops"] / factor
        r["results"] += [tf, peer, tpeer]
    elif how.startswith("radii:"):
        # A blur run with a recorded copy bandwidth of GBPS (0: none) and NPP's row beside it:
        # verified at 3× the fastest rung's time, failed verification with its time in the
        # note (as blur/peers.c writes it), or none.
        _, npp, gbps = how.split(":")
        if float(gbps) > 0:
            r["ceiling_values"] = {"copy_gbps": float(gbps), "read_gbps": None, "write_gbps": None,
                                   "f32_gflops": 1000.0, "f64_gflops": 500.0, "i32_giops": 300.0,
                                   "date": "2026-01-01T00:00:00Z"}
        fast = min((x for x in rows if not x["peer"]), key=lambda x: x["median_s"])
        peer = dict(fast, rung="peer:npp", peer=True, summary="", precision="fp32")
        for k in ("median_s", "min_s", "max_s"):
            peer[k] = fast[k] * 3
        for k in ("gflops", "gbps", "mitems_per_s"):
            peer[k] = fast[k] / 3 if fast.get(k) else fast.get(k)
        if npp == "failed":
            for k in ("median_s", "min_s", "max_s", "gflops", "gbps", "mitems_per_s",
                      "speedup_first", "speedup_host", "total_s", "build_s", "pct_ceiling"):
                peer[k] = None
            peer.update(status="failed", repeats=0, samples=None,
                        note="110 of 65536 values differ from the reference by more than 1 "
                        f"(its launches took {fast['median_s'] * 4e3:.4g} ms, median of 3; "
                        "not a result)")
        if npp != "none":
            r["results"].append(peer)
    elif how.startswith("split:"):
        # An A/A pair from one run: each timed row's launch times shuffled (seed K) and dealt
        # into two halves, side a or b; the row's order statistics follow its half.
        _, k, side = how.split(":")
        rng = random.Random(int(k))
        for x in r["results"]:
            s = x.get("samples")
            if not timed(x) or not s:
                continue
            s = s[:]
            rng.shuffle(s)
            half = s[: len(s) // 2] if side == "a" else s[len(s) // 2:]
            set_times(x, half)
    elif how == "steady":
        # Every timed row's launch times made steady (within 0.4 % of its median), so that a
        # known slowdown of them is judged on what compare computes, not on the machine's load.
        for x in r["results"]:
            if timed(x) and x.get("samples"):
                m = x["median_s"]
                set_times(x, [m * (1 + 0.001 * (k % 5)) for k in range(len(x["samples"]))])
    elif how.startswith("spread:"):
        # The device's run-to-run spread of P % for every kind of row, as `kladder peak` would
        # have measured it (and the run would carry with its roofs); roofs made up where the
        # run had none, which compare does not read.
        p = float(how.split(":")[1])
        c = r.get("ceiling_values") or {"copy_gbps": 1.0, "f32_gflops": 1.0, "f64_gflops": 1.0,
                                         "i32_giops": 1.0, "date": "2026-12-03T00:00:00Z"}
        for k in ("spread_memory_pct", "spread_fma_pct", "spread_tensor_pct"):
            c[k] = p
        r["ceiling_values"] = c
    elif how.startswith("scale:"):
        # Every timed row's launch times times F: a known slowdown (F > 1) in real noise.
        f = float(how.split(":")[1])
        for x in r["results"]:
            if timed(x) and x.get("samples"):
                set_times(x, [v * f for v in x["samples"]])
    elif how.startswith("clock:"):
        # Every timed row's SM clock (MHz), as NVML would have read it.
        mhz = float(how.split(":")[1])
        for x in r["results"]:
            if timed(x):
                x["clocks"] = {"sm_mhz": mhz, "sm_mhz_min": mhz, "mem_mhz": None}
    elif how.startswith("launchclock:"):
        # Every timed launch's SM clock (MHz), as NVML would have read it after each; the
        # row's mean clock with it. "launchclock:split": every other launch 25 % longer at
        # 1600 MHz, the rest as they were at 2000 (mean 1800): each launch the same cycles.
        what = how.split(":")[1]
        for x in r["results"]:
            if not timed(x) or not x.get("samples"):
                continue
            if what == "split":
                set_times(x, [v * 1.25 if k % 2 == 0 else v for k, v in enumerate(x["samples"])])
                x["sample_clocks_mhz"] = [1600 if k % 2 == 0 else 2000
                                          for k in range(len(x["samples"]))]
                mhz = 1800
            else:
                mhz = float(what)
                x["sample_clocks_mhz"] = [mhz] * len(x["samples"])
            x["clocks"] = {"sm_mhz": mhz, "sm_mhz_min": min(x["sample_clocks_mhz"]),
                           "mem_mhz": None}
    elif how == "noimages":
        r.pop("images", None)
    elif how == "v4":
        r["schema_version"] = 4
    elif how == "noversion":
        r.pop("schema_version")
    else:
        raise SystemExit(f"unknown doctoring {how}")
    json.dump(r, open(dst, "w"), indent=1, ensure_ascii=False)


def check_shapes(svg_path, json_paths):
    """The shapes chart: a point per run and precision with a rung and a library, at the ratio of
    their rates; shapes in order of work; each series' count of shapes at 0.95× or more."""
    svg = ET.parse(svg_path).getroot()
    runs = [json.load(open(p)) for p in json_paths]
    order = sorted(range(len(runs)), key=lambda i: runs[i]["flops_per_launch"])
    names = ["%d×%d×%d" % (runs[i]["params"]["M"], runs[i]["params"]["N"], runs[i]["params"]["K"])
             for i in order]
    labels = [t.text for t in find_all(svg, "text", "tick") if "x" in cls(t)]
    if labels != names:
        fail(f"{svg_path}: shapes {labels}, expected {names} (by FLOPs per launch)")
    want = {}
    for i in order:
        for p in sorted({x["precision"] for x in runs[i]["results"] if x.get("precision")}):
            ok = [x for x in runs[i]["results"] if x.get("precision") and x["status"] == "verified"
                  and x["gflops"]]
            best = [x for x in ok if not x["peer"] and x["precision"] == p]
            tol = {"3xtf32": "fp32"}.get  # float-accurate: one class with fp32
            peers = [x for x in ok if x["peer"] and tol(x["precision"], x["precision"]) == tol(p, p)]
            if best and peers:
                b, q = max(best, key=lambda x: x["gflops"]), max(peers, key=lambda x: x["gflops"])
                want[(p, names[order.index(i)])] = (b["gflops"] / q["gflops"], b["rung"], q["rung"])
    got = {}
    for c in find_all(svg, "circle", "point"):
        got[(c.get("data-precision"), c.get("data-shape"))] = (
            float(c.get("data-ratio")), c.get("data-rung"), c.get("data-peer"))
    if set(got) != set(want):
        fail(f"{svg_path}: points {sorted(got)}, expected {sorted(want)}")
    for key in set(got) & set(want):
        if not close(got[key][0], want[key][0]) or got[key][1:] != want[key][1:]:
            fail(f"{svg_path}: {key}: {got[key]}, expected {want[key]}")
    for g in find_all(svg, "g", "series"):
        p = g.get("data-precision")
        good = sum(1 for (q, _), v in want.items() if q == p and v[0] >= 0.95)
        if int(g.get("data-good")) != good:
            fail(f"{svg_path}: {p}: {g.get('data-good')} shapes at 0.95× or more, expected {good}")
    if not failures:
        print(f"ok: {svg_path}: {len(got)} points over {len(names)} shapes, the ratios of the runs")


def radii_expected(runs):
    """The points the radius chart should draw, per (pixel, width, height): for each blur run,
    kladder's fastest verified rung, NPP's row (verified: its median; failed verification: the
    time in its note, hollow) and the floor, bytes per launch at the recorded copy bandwidth."""
    groups = {}
    for r in runs:
        if r["workload"] != "blur":
            continue
        p = r["params"]
        pts = groups.setdefault((p.get("pixel", "float"), p["width"], p["height"]), [])
        best = [x for x in r["results"] if x["status"] == "verified" and not x["peer"]]
        if best:
            b = min(best, key=lambda x: x["median_s"])
            pts.append(("best", p["radius"], b["rung"], False, b["median_s"] * 1e6))
        for x in r["results"]:
            if x["rung"] != "peer:npp":
                continue
            note = re.search(r"its launches took ([0-9.e+-]+) ms", x["note"] or "")
            if x["status"] == "verified":
                pts.append(("peer", p["radius"], x["rung"], False, x["median_s"] * 1e6))
            elif x["status"] == "failed" and note:
                pts.append(("peer", p["radius"], x["rung"], True, float(note.group(1)) * 1e3))
        gbps = (r.get("ceiling_values") or {}).get("copy_gbps")
        if gbps:
            pts.append(("floor", p["radius"], "", False, r["bytes_per_launch"] / (gbps * 1e3)))
    return {k: v for k, v in groups.items() if len({pt[1] for pt in v}) >= 2}


def check_radii(svg_path, json_paths):
    """The radius chart: a group per pixel type and size with two radii or more, each point
    the run's number where the plot's log axes put it, NPP's failures hollow and off its line."""
    svg = ET.parse(svg_path).getroot()
    want = radii_expected([json.load(open(p)) for p in json_paths])
    groups = find_all(svg, "g", "group")
    got_keys = [(g.get("data-pixel"), int(g.get("data-width")), int(g.get("data-height")))
                for g in groups]
    if sorted(got_keys) != sorted(want):
        fail(f"{svg_path}: groups {got_keys}, expected {sorted(want)}")
        return
    npoints = 0
    for g, key in zip(groups, got_keys):
        plot = find_all(g, "g", "plot")[0]
        d = {k: num(plot, "data-" + k) for k in ("x-log-min", "x-log-max", "y-log-min",
                                                  "y-log-max", "left", "top", "width", "height")}
        got = []
        for c in find_all(g, "circle", "point"):
            series, radius, us = c.get("data-series"), int(c.get("data-radius")), num(c, "data-us")
            failed = "failed" in cls(c)
            got.append((series, radius, c.get("data-rung"), failed, us))
            fx = (math.log10(radius) - d["x-log-min"]) / (d["x-log-max"] - d["x-log-min"])
            fy = (math.log10(us) - d["y-log-min"]) / (d["y-log-max"] - d["y-log-min"])
            x, y = d["left"] + fx * d["width"], d["top"] + (1 - fy) * d["height"]
            if abs(num(c, "cx") - x) > 0.05 or abs(num(c, "cy") - y) > 0.05:
                fail(f"{svg_path}: {series} at radius {radius} is at ({c.get('cx')}, "
                     f"{c.get('cy')}), the axes put {us} µs at ({x:.2f}, {y:.2f})")
            if not (0 <= fx <= 1 and 0 <= fy <= 1):
                fail(f"{svg_path}: {series} at radius {radius} is outside the plot")
            if failed and (c.get("fill") != "#ffffff" or c.get("data-verified") != "0"):
                fail(f"{svg_path}: NPP's failed row at radius {radius} is drawn as a result")
        got.sort(), want[key].sort()
        if [p[:4] for p in got] != [p[:4] for p in want[key]] or \
                not all(close(a[4], b[4]) for a, b in zip(got, want[key])):
            fail(f"{svg_path}: {key}: points {got}, expected {want[key]}")
        for sg in find_all(g, "g", "series"):
            name = sg.get("data-series")
            line = [p for p in sg.iter(SVG + "polyline")][0].get("points").split()
            on = sum(1 for p in want[key] if p[0] == name and not p[3])
            if len(line) != on:
                fail(f"{svg_path}: {key}: the {name} line joins {len(line)} points, expected {on} "
                     "(results only)")
        npoints += len(got)
    if not failures:
        print(f"ok: {svg_path}: {npoints} points in {len(groups)} group(s), the runs' times on the "
              "log axes, NPP's failures hollow and off its line")


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode in ("ladder", "roofline", "sweep"):
        chart(mode, *args)
    elif mode == "shapes":
        check_shapes(args[0], args[1:])
    elif mode == "radii":
        check_radii(args[0], args[1:])
    elif mode == "html":
        page(args[0], args[1:])
    elif mode == "screenshot":
        screenshot(*args)
    elif mode == "schema":
        schema(args[0], args[1:])
    elif mode == "doctor":
        doctor(*args)
    else:
        raise SystemExit(__doc__)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
