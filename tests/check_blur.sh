#!/usr/bin/env bash
# `kladder blur` (issue 5): the Gaussian blur ladder of seed 001.
# usage: check_blur.sh KLADDER rungs float|uchar4 default|tiles|px1|px8
#        check_blur.sh KLADDER png native|converted
#        check_blur.sh KLADDER pnm
#        check_blur.sh KLADDER bad CASE
#        check_blur.sh KLADDER too_big
#        check_blur.sh KLADDER named_too_big_tile
#
# rungs:  every rung verified on generated images of 1×1, 1×9, 9×1, 17×13 and
#         100×37 with radius 0, 1 and one larger than the image, with the
#         default work-groups ("default", which also runs radii that overflow
#         the device's local and constant memory, radii from --sigma alone
#         and a --rung subset), with 4×4 work-groups and, for 07_fused,
#         strips of 5 rows loaded 3 rows ahead, for 10_tile 2 warps of 3
#         rows, for 12_regblock strips of 8 columns and 6 rows in chunks of
#         3 ("tiles": strips that run up and down, a partial last strip
#         or tile), with 8×2 groups of one pixel per work-item (12_regblock:
#         strips 12 wide in chunks of 4 rows, "px1") or with eight pixels
#         per work-item ("px8"). Every row of the JSON report is verified, or
#         skipped with a reason that names local memory, the constant buffer
#         or images and that the device's facts bear out; the verified rows
#         are counted against that expectation.
# png:    grey, RGB and RGBA PNGs ("native"; written here with python3's
#         zlib, and one written by kladder itself) or grey+alpha, palette and
#         16-bit grey and RGB PNGs ("converted" to 8-bit RGBA or RGB) blurred in
#         float and uchar4 with --output: every rung verified; the output PNG
#         has the input's size and the expected colour type, differs from the
#         input, and matches a separable Gaussian computed here in double
#         within one level; --radius 0 gives back the input; --output-rung
#         picks the rung the image is written from (default: the fastest).
# pnm:    the same for binary PGM (P5) and PPM (P6), maxval 255 and 15.
# bad:    one bad input (CASE: missing, directory, truncated_png, corrupt_png,
#         random_png, empty, pgm16, truncated_ppm, output_unwritable): exit 2
#         and a clear message.
# too_big: an image whose buffers exceed the device's largest allocation:
#         exit 2 and "largest allocation"; skipped (77) where no image within
#         kladder's limits (65536 on a side, 2^30 pixels) exceeds it.
# named_too_big_tile: 04_tiled2d named with --rung at a radius whose tile
#         does not fit the device's local memory is refused (exit 2) with the
#         reason, before anything is built; skipped (77) where no radius up to
#         512 overflows it.
# One "ok" line per check; FAIL lines and exit 1 on any failure.
set -u
kladder=$1
mode=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export KLADDER_CACHE_DIR=$tmp/cache # no ceilings: the report must not depend on a user's cache
q=(--warmup 0 --repeats 1 --min-time 0)
fails=0

ok() { printf 'ok: %s\n' "$*"; }
fail() {
    printf 'FAIL: %s\n' "$*"
    fails=$((fails + 1))
}

# The default device's section of `kladder devices`, one fact per line.
source "$(dirname "$0")/device_facts.sh"
device_facts "$kladder"
if [ -z "$facts" ]; then
    echo "FAIL: could not read the default device from \`kladder devices\`"
    exit 1
fi
localmem=$(bytes_of "Local memory")
constmem=$(bytes_of "Constant buffer")
maxalloc=$(bytes_of "Max allocation")
images=$(fact "Image support")
optin=$(bytes_of "Shared memory opt-in")
"$kladder" blur --list-rungs >"$tmp/rungs.txt" || { echo "FAIL: blur --list-rungs"; exit 1; }

# ---- Python helpers: PNG/PNM writing and reading, the reference blur, the report check.
cat >"$tmp/blurlib.py" <<'PY'
import json, math, re, struct, sys, zlib

SIG = b"\x89PNG\r\n\x1a\n"


def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)


def write_png(path, W, H, ctype, depth, samples, palette=None, trns=None):
    """samples: row-major, the PNG's own channels (a palette index for type 3)."""
    nch = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw = bytearray()
    for y in range(H):
        raw.append(y % 5)  # every filter type, applied below
        row = samples[y * W * nch:(y + 1) * W * nch]
        b = bytearray()
        for v in row:
            b += struct.pack(">H", v) if depth == 16 else bytes([v])
        bpp = max(1, nch * depth // 8)
        prev = raw_rows[-1] if y else bytearray(len(b))
        raw += filt(y % 5, b, prev, bpp)
        raw_rows.append(b)
    raw_rows.clear()
    d = SIG + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, depth, ctype, 0, 0, 0))
    if palette is not None:
        d += chunk(b"PLTE", bytes(v for rgb in palette for v in rgb))
    if trns is not None:
        d += chunk(b"tRNS", bytes(trns))
    d += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    open(path, "wb").write(d)


raw_rows = []  # write_png's unfiltered rows (the filters look at the row above)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def filt(f, cur, prev, bpp):
    out = bytearray(len(cur))
    for i in range(len(cur)):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        pred = [0, a, b, (a + b) // 2, paeth(a, b, c)][f]
        out[i] = (cur[i] - pred) & 255
    return out


def read_png(path):
    """(W, H, colour type, channels, samples) of an 8-bit non-interlaced PNG."""
    b = open(path, "rb").read()
    if b[:8] != SIG:
        raise ValueError("no PNG signature")
    pos, idat, hdr = 8, b"", None
    while pos < len(b):
        n, t = struct.unpack(">I4s", b[pos:pos + 8])
        d = b[pos + 8:pos + 8 + n]
        pos += 12 + n
        if t == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", d)
        elif t == b"IDAT":
            idat += d
        elif t == b"IEND":
            break
    W, H, depth, ctype, _, _, inter = hdr
    if depth != 8 or inter != 0 or ctype not in (0, 2, 4, 6):
        raise ValueError(f"unexpected PNG: depth {depth}, colour type {ctype}, interlace {inter}")
    nch = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = W * nch
    out, prev, i = bytearray(), bytearray(stride), 0
    for y in range(H):
        f = raw[i]
        cur = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for k in range(stride):
            a = cur[k - nch] if k >= nch else 0
            bb = prev[k]
            c = prev[k - nch] if k >= nch else 0
            cur[k] = (cur[k] + [0, a, bb, (a + bb) // 2, paeth(a, bb, c)][f]) & 255
        out += cur
        prev = cur
    return W, H, ctype, nch, list(out)


def png_size(path):
    b = open(path, "rb").read(33)
    if b[:8] != SIG or b[12:16] != b"IHDR":
        raise ValueError("no PNG signature or IHDR")
    return struct.unpack(">II", b[16:24]) + (b[25],)


def pattern(W, H, nch, seed=0):
    """A picture with edges, gradients and noise: not constant, not smooth."""
    v = []
    for y in range(H):
        for x in range(W):
            edge = 200 if ((x // 3 + y // 2 + seed) % 2) else 0
            grad = (x * 255) // max(1, W - 1)
            for c in range(nch):
                noise = (x * 131 + y * 71 + c * 29 + seed * 17) * 2654435761 % 251 // 8
                v.append((edge + grad // 2 + noise + c * 40) % 256)
    return v


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def half(x):
    """x rounded to the nearest binary16, ties to even."""
    return struct.unpack("e", struct.pack("e", x))[0]


def hulp(x):
    """The most one rounding to half moves a value of magnitude up to x: half its spacing."""
    return 2.0 ** -25 if x < 2.0 ** -14 else 2.0 ** (math.floor(math.log2(x)) - 11)


def weights(sigma, R):
    d = [math.exp(-float(i) * i / (2 * sigma * sigma)) for i in range(-R, R + 1)]
    s = 0.0
    for v in d:
        s += v
    return [f32(v / s) for v in d]


def blur(px, W, H, ch, sigma, R):
    """Separable Gaussian in double, clamped edges, kladder's float weights."""
    w = weights(sigma, R)
    out = [0.0] * (W * H * ch)
    for c in range(ch):
        tmp = [0.0] * (W * H)
        for y in range(H):
            for x in range(W):
                s = 0.0
                for i in range(-R, R + 1):
                    s += w[i + R] * px[(y * W + min(max(x + i, 0), W - 1)) * ch + c]
                tmp[y * W + x] = s
        for y in range(H):
            for x in range(W):
                s = 0.0
                for j in range(-R, R + 1):
                    s += w[j + R] * tmp[min(max(y + j, 0), H - 1) * W + x]
                out[(y * W + x) * ch + c] = s
    return out
PY

# check.py REPORT PIXEL W H R SEL COUNTS TITLE [NAME=V ...]: one JSON report.
# The rows expected (every rung, or those of SEL), in order; each verified
# ("W·H pixels match the reference") and built with -DRAD=R, the pixel macro
# and -DNAME=V for each --param it declares, or skipped with a reason that
# names local memory, the constant buffer or images and that the device's
# facts bear out. Appends "verified expected" to COUNTS.
cat >"$tmp/check.py" <<'PY'
import json, os, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from blurlib import half, hulp, weights
(path, listing, pixel, W, H, R, sel, counts, title, localmem, constmem, images, optin) = sys.argv[1:14]
params = dict(p.split("=", 1) for p in sys.argv[14:])
W, H, R = int(W), int(H), int(R)
localmem = int(localmem or 0)
optin = int(optin or 0)  # CUDA's shared memory per block on request (CUDA C++ rungs)
constmem = int(constmem or 0)
declared, order = {}, []
for line in open(listing):
    m = re.match(r"^  ([0-9]{2}(?:cl)?_[a-z0-9_]+)\s", line)
    if m:
        order.append(m.group(1))
        declared[m.group(1)] = set()
    m = re.search(r"--param ([A-Z0-9]+)=", line)
    if m and order:
        declared[order[-1]].add(m.group(1))
rungs = order if sel == "all" else [r for r in order if any(r.startswith(s) for s in sel.split(","))]
bad = []
try:
    rep = json.load(open(path))
except Exception as e:
    print(f"FAIL: {title}: the report is not JSON: {e}")
    sys.exit(1)
res = rep.get("results", [])
p = rep.get("params", {})
if rep.get("workload") != "blur" or (p.get("width"), p.get("height"), p.get("radius"), p.get("pixel")) != (W, H, R, pixel):
    bad.append(f"workload {rep.get('workload')!r}, params {p}: expected blur {W}x{H} radius {R} {pixel}")
if [x.get("rung") for x in res] != rungs:
    bad.append(f"rows {[x.get('rung') for x in res]}, expected {rungs}")


def half_weights_moved(w, wh):
    """What rounding the weights w to wh moves a two-pass blur of pixels centred on 128."""
    moved = sum(abs(a * b - c * e) for a, c in zip(wh, w) for b, e in zip(wh, w))
    return 128 * moved + 128 * abs(1 - sum(w) ** 2)


def half2_bound(sigma, R):
    """11_half2.cu's error bound (its comment), computed here on its own: half weights by
    struct's binary16 rounding, every rounding at the largest value it can see."""
    w = weights(sigma, R)
    wh = [half(w[R + abs(i)]) for i in range(-R, R + 1)]
    def acc(m, ein, exact):
        err = mag = 0.0
        for k in range(R, -1, -1):
            n = 2 if k else 1
            err += wh[R + k] * (n * ein + (0 if exact or not k else hulp(2 * m + 2 * ein)))
            mag += wh[R + k] * n * m
            err += hulp(mag + err)
        return err
    cols = acc(128.0, 0.0, True)
    rows = acc(128.0 * sum(wh) + cols, cols, False)
    return rows + half_weights_moved(w, wh)


def mma_bound(sigma, R):
    """13_mma.cu's error bound (its comment), computed here on its own: half weights by
    struct's binary16 rounding, each tensor-core instruction within 18 * 2^-23 of the largest
    magnitude it holds (row inputs 1024 + b onto -1152 sum w', rounded once to float), the row
    results rounded to half."""
    w = weights(sigma, R)
    wh = [half(v) for v in w]
    nk = -(-(16 + -(-R // 8) * 8 + R) // 16)
    sh = sum(wh)
    inst = lambda c0, m: nk * 18 * 2.0 ** -23 * (abs(c0) + sh * m + 1)
    rows = inst(1152 * sh, 1279) + 1152 * sh * 2.0 ** -24
    h = 128 * sh + rows
    cols = inst(128, h + hulp(h))
    return sh * (rows + hulp(h)) + cols + half_weights_moved(w, wh)


def split_bound(sigma, R, m):
    """14_mma_split.cu's error bound (its comment), computed here on its own: values and
    2^10 w split into binary16 pairs by struct's rounding, each tensor-core instruction within
    18 * 2^-23 of the magnitudes it holds, NK + 1 FP32 adds a pass, both passes."""
    w = weights(sigma, R)
    ws = [1024.0 * v for v in w]
    hi = [half(v) for v in ws]
    lo = [half(a - b) for a, b in zip(ws, hi)]
    miss_w = sum(abs(a - b - c) for a, b, c in zip(ws, hi, lo))
    nk = -(-(16 + -(-R // 8) * 8 + R) // 16)
    sw, sh, sl = sum(map(abs, w)), sum(map(abs, hi)), sum(map(abs, lo))
    def one_pass(m, ein):
        vl = hulp(m)
        big = sh * (m + vl) * (1 + 2.0 ** -10)
        small = (sl * (m + vl) + sh * vl) * (1 + 2.0 ** -10)
        own = miss_w * m + (sh + sl) * hulp(vl) + sl * vl
        own += 18 * 2.0 ** -23 * (big + 2 * nk * small) + (nk + 1) * 2.0 ** -24 * (big + small)
        return sw * ein + own / 1024.0 + 2.0 ** -149
    rows = one_pass(m, 0.0)
    return one_pass(sw * m + rows, rows)


def justified(rung, note):
    """Whether a skip's reason names a limit the device's facts (or the arithmetic) bear out."""
    m = re.search(r"half-precision arithmetic is proved within ([0-9.]+) of the exact blur", note)
    if m:
        b = (mma_bound if rung.startswith("13") else half2_bound)(float(p.get("sigma")), R)
        return b > 0.5 and abs(b - float(m.group(1))) < 0.01
    m = re.search(r"keeps 16 \+ 2R rows of a strip in registers: radius at most (\d+)", note)
    if m:
        return R > int(m.group(1)) == 64
    if "computes 8-bit pixels (--pixel uchar4)" in note:
        return pixel == "float"
    if "computes float pixels (--pixel float)" in note:
        return pixel == "uchar4"
    m = re.search(r"values up to ([0-9.e+-]+) its split arithmetic is proved within ([0-9.e+-]+) of", note)
    if m:
        b = split_bound(float(p.get("sigma")), R, float(m.group(1)))
        return b > 1e-5 and abs(b - float(m.group(2))) <= 0.01 * b
    if "no packed-half arithmetic" in note:
        return rep.get("provenance", {}).get("backend") != "cuda"
    m = re.search(r"needs (\d+) bytes of local memory, the device has (\d+)", note)
    if m:
        have = int(m.group(2))
        return (have == localmem or (optin and have == optin)) and int(m.group(1)) > have
    m = re.search(r"(\d+) bytes of 2-D weights exceed the device's constant buffer \((\d+)\)", note)
    if m:
        return int(m.group(2)) == constmem and int(m.group(1)) > constmem
    if "the device has no image support" in note:
        return images != "yes"
    if "exceeds the device's largest 2-D image" in note:
        return True
    if "is CUDA C++: it runs with --backend cuda" in note:
        return rep.get("provenance", {}).get("backend") != "cuda"
    return False


nver = nskip = 0
for x in res:
    r, st, note = x.get("rung"), x.get("status"), x.get("note") or ""
    if r not in rungs:
        continue
    if st == "skipped":
        if not justified(r, note):
            bad.append(f"{r}: skipped without a reason of local memory, constant memory or images that the device bears out ({note!r})")
        # A device without images skips the image rung whatever --param says, another
        # backend a CUDA C++ rung, a device without NVIDIA's PTX the OpenCL one of PTX, and
        # a rung of the other pixel type whatever its parameters.
        elif (declared[r] & set(params) and "no image support" not in note and "CUDA C++" not in note
              and "8-bit pixels" not in note and "float pixels" not in note and "radius at most" not in note
              and "no packed-half arithmetic" not in note):
            bad.append(f"{r}: skipped though --param set one of its parameters ({note!r})")
        else:
            nskip += 1
        continue
    if st != "verified":
        bad.append(f"{r}: status {st!r} ({note!r}), expected 'verified'")
        continue
    nver += 1
    if not note.startswith(f"{W * H} pixels match the reference"):
        bad.append(f"{r}: note {note!r}, expected '{W * H} pixels match the reference ...'")
    if not ((x.get("mitems_per_s") or 0) > 0 and (x.get("median_s") or 0) > 0 and (x.get("repeats") or 0) >= 1):
        bad.append(f"{r}: Mpix/s {x.get('mitems_per_s')}, median_s {x.get('median_s')}, repeats {x.get('repeats')}")
    opts = (x.get("build_options") or "").split()
    want = [f"-DRAD={R}", "-DKL_PIX_FLOAT" if pixel == "float" else "-DKL_PIX_UCHAR4"]
    for o in want:
        if o not in opts:
            bad.append(f"{r}: build options {opts} lack {o}")
    for name, val in params.items():
        has = [o for o in opts if o.startswith(f"-D{name}=")]
        if name in declared[r] and has != [f"-D{name}={val}"]:
            bad.append(f"{r}: build options {opts}, expected -D{name}={val}")
        if name not in declared[r] and has:
            bad.append(f"{r}: build options {opts} set {name}, which it does not declare")
# Expected: every row asked for, less the skips the device's limits justify.
expect = len(rungs) - nskip
open(counts, "a").write(f"{nver} {expect}\n")
if bad:
    print(f"FAIL: {title}:\n  " + "\n  ".join(bad))
    sys.exit(1)
print(f"ok: {title}: {nver} of {expect} rungs verified"
      + (f", {nskip} skipped for the device's limits: "
         + ", ".join(x["rung"] for x in res if x.get("status") == "skipped") if nskip else ""))
PY

# blur_run TITLE ARGS...: kladder blur ARGS with the JSON report in $tmp/rep.json;
# exit status in $rc, output in $tmp/stdout.
blur_run() {
    local title=$1
    shift
    rm -f "$tmp/rep.json"
    "$kladder" blur "$@" "${q[@]}" --json "$tmp/rep.json" >"$tmp/stdout" 2>&1
    rc=$?
    # Parameters the user set that the device cannot hold are refused (exit 2),
    # which is right where the device's own facts bear the reason out.
    local need have
    need=$(sed -n 's/.*needs \([0-9]*\) bytes of local memory, the device has \([0-9]*\).*/\1 \2/p' \
        "$tmp/stdout" | head -n 1)
    read -r need have <<<"${need:-0 0}"
    if [ "$rc" -eq 2 ] && [ "$have" = "$localmem" ] && [ "$need" -gt "$have" ]; then
        printf 'ok: %s: refused, %s bytes of local memory beyond the device'"'"'s %s\n' \
            "$title" "$need" "$have"
        return 1
    fi
    if [ "$rc" -ne 0 ]; then
        printf 'FAIL: %s: exit %s, expected 0\n%s\n' "$title" "$rc" "$(cat "$tmp/stdout")"
        fails=$((fails + 1))
        return 1
    fi
    return 0
}

# report_ok TITLE PIXEL W H R SEL [NAME=V ...]: check.py on $tmp/rep.json.
report_ok() {
    local title=$1 pixel=$2 W=$3 H=$4 R=$5 sel=$6
    shift 6
    python3 "$tmp/check.py" "$tmp/rep.json" "$tmp/rungs.txt" "$pixel" "$W" "$H" "$R" "$sel" \
        "$tmp/counts" "$title" "$localmem" "$constmem" "$images" "$optin" "$@" || {
        fails=$((fails + 1))
        return 1
    }
}

totals() {
    [ -s "$tmp/counts" ] || return
    read -r got want < <(awk '{g += $1; w += $2} END {print g, w}' "$tmp/counts")
    if [ "$got" -ne "$want" ]; then
        fail "$got rung runs verified in all, expected $want"
    else
        ok "$got rung runs verified in all ($want expected)"
    fi
}

# ---------------------------------------------------------------------------
if [ "$mode" = rungs ]; then
    pixel=${1:-}
    set=${2:-}
    case $pixel in float | uchar4) ;; *) echo "usage: check_blur.sh KLADDER rungs float|uchar4 default|tiles|px1|px8"; exit 2 ;; esac
    # gen W H R [--param NAME=V ...]: a generated W×H image, every rung.
    gen() {
        local W=$1 H=$2 R=$3
        shift 3
        local pv=() args=("$@")
        while [ $# -gt 0 ]; do
            [ "$1" = --param ] && pv+=("$2")
            shift
        done
        local title="blur $pixel ${W}x$H --radius $R${args[*]:+ ${args[*]}}"
        blur_run "$title" --width "$W" --height "$H" --radius "$R" --pixel "$pixel" "${args[@]}" &&
            report_ok "$title" "$pixel" "$W" "$H" "$R" all "${pv[@]}"
    }
    case $set in
    default) pset=() ;;
    tiles) pset=(--param BX=4 --param BY=4 --param SY=5 --param PF=3 --param WY=2 --param RY=3
                 --param TW=8 --param RX=4 --param CH=3 --param CY=1 --param SH=6 --param NT=32) ;;
    px1) pset=(--param BX=8 --param BY=2 --param PX=1
               --param TW=12 --param RX=4 --param CH=4 --param CY=2 --param SH=8 --param NT=64) ;;
    px8) pset=(--param PX=8) ;;
    *) echo "usage: check_blur.sh KLADDER rungs float|uchar4 default|tiles|px1|px8"; exit 2 ;;
    esac
    # 1×1, a single row, a single column, odd sizes below and above a
    # work-group; radius 0 (the identity), 1, and one larger than the image.
    for s in 1:1:20 1:9:20 9:1:20 17:13:20 100:37:101; do
        W=${s%%:*} rest=${s#*:} H=${rest%%:*} big=${s##*:}
        # With small work-groups one large radius for every shape (more
        # than 100×37's rows, not its columns) keeps the number of kernels
        # to build (about 3 s each on PoCL) down.
        [ "$set" != default ] && big=40
        for R in 0 1 "$big"; do
            gen "$W" "$H" "$R" "${pset[@]}"
        done
    done
    if [ "$set" = default ]; then
        # Sigma alone: the radius is ⌈3σ⌉ (20 for 6.5, 1 for 0.33: kernels
        # already built above); a tiny sigma at a fixed radius.
        blur_run "blur $pixel 17x13 --sigma 6.5" --width 17 --height 13 --sigma 6.5 --pixel "$pixel" &&
            report_ok "blur $pixel 17x13 --sigma 6.5 (radius 20)" "$pixel" 17 13 20 all
        blur_run "blur $pixel 9x7 --sigma 0.33" --width 9 --height 7 --sigma 0.33 --pixel "$pixel" &&
            report_ok "blur $pixel 9x7 --sigma 0.33 (radius 1)" "$pixel" 9 7 1 all
        blur_run "blur $pixel 17x13 --sigma 0.05 --radius 20" --width 17 --height 13 --sigma 0.05 --radius 20 --pixel "$pixel" &&
            report_ok "blur $pixel 17x13 --sigma 0.05 --radius 20" "$pixel" 17 13 20 all
        # Radii whose tiles overflow local memory (and, in float, whose 2-D
        # weights overflow the constant buffer) on PoCL's 2 MiB: those rungs
        # are skipped with the reason, the others verified.
        if [ "$pixel" = uchar4 ]; then R=200; else R=362; fi
        gen 3 2 "$R"
        # A rung subset: only those rows (the image rung where the device has images;
        # named on a device without them it is refused, as cli_blur tests check).
        sub=01,06
        [ "$images" = yes ] && sub=01,06,08
        blur_run "blur $pixel 9x7 --rung $sub" --width 9 --height 7 --radius 1 --pixel "$pixel" --rung "$sub" &&
            report_ok "blur $pixel 9x7 --radius 1 --rung $sub" "$pixel" 9 7 1 "$sub"
    fi
    totals
    exit $((fails > 0))
fi

# ---------------------------------------------------------------------------
# blur_image TITLE INPUT PIXEL EXPECT_CTYPE SIGMA R [ARGS...]: blurs INPUT to
# $tmp/out.png; checks the report (every rung verified), the output PNG's size
# and colour type, that it differs from the input (R > 0) or equals it
# (R = 0), and that it matches the
# reference computed here within one level.
blur_image() {
    local title=$1 input=$2 pixel=$3 ctype=$4 sigma=$5 R=$6
    shift 6
    rm -f "$tmp/out.png"
    blur_run "$title" --input "$input" --pixel "$pixel" --sigma "$sigma" --radius "$R" \
        --output "$tmp/out.png" "$@" || return
    local size
    size=$(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["params"]; print(p["width"], p["height"])' "$tmp/rep.json")
    # shellcheck disable=SC2086
    report_ok "$title: report" "$pixel" $size "$R" all || return
    python3 - "$tmp/blurlib.py" "$input" "$tmp/out.png" "$pixel" "$ctype" "$sigma" "$R" "$title" <<'PY' || fails=$((fails + 1))
import os, sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from blurlib import *
_, _, inp, outp, pixel, ctype, sigma, R, title = sys.argv
ctype, sigma, R = int(ctype), float(sigma), int(R)
# The input as kladder loads it (8-bit channels: grey, RGB or RGBA). For a
# palette or 16-bit PNG, NAME.8bit.png holds the same picture as 8-bit grey
# or RGB (the palette looked up; 16-bit samples b·257 taken as b).
if inp.endswith(".png"):
    eight = inp + ".8bit.png"
    W, H, ic, nch, px = read_png(eight if os.path.exists(eight) else inp)
    if nch == 2:  # grey+alpha: loaded as RGBA
        px = [v for i in range(W * H) for v in (px[2 * i],) * 3 + (px[2 * i + 1],)]
        nch = 4
else:
    d = open(inp, "rb").read()
    toks, pos = [], 2
    while len(toks) < 3:
        while d[pos:pos + 1].isspace() or d[pos:pos + 1] == b"#":
            if d[pos:pos + 1] == b"#":
                pos = d.index(b"\n", pos)
            pos += 1
        start = pos
        while d[pos:pos + 1].isdigit():
            pos += 1
        toks.append(int(d[start:pos]))
    W, H, maxval = toks
    nch = 1 if d[:2] == b"P5" else 3
    px = [(v * 255 + maxval // 2) // maxval for v in d[pos + 1:pos + 1 + W * H * nch]]
bad = []
try:
    ow, oh, oc, onch, out = read_png(outp)
except Exception as e:
    print(f"FAIL: {title}: the output is no readable 8-bit PNG: {e}")
    sys.exit(1)
if (ow, oh) != (W, H):
    bad.append(f"output is {ow}x{oh}, the input {W}x{H}")
if oc != ctype:
    bad.append(f"output colour type {oc}, expected {ctype}")
if bad:
    print(f"FAIL: {title}: " + "; ".join(bad))
    sys.exit(1)
# The pixels the kernels blur, and the channels written back.
if pixel == "float":
    # Float pixels blur one channel at a time; every channel of the picture is written.
    planes = [blur([f32(px[i * nch + c] / 255.0) for i in range(W * H)], W, H, 1, sigma, R)
              for c in range(nch)]
    ch, scale, orig = nch, 255.0, px
else:
    rgba = []
    for i in range(W * H):
        p = px[i * nch:(i + 1) * nch]
        rgba += p if nch == 4 else p + [255] if nch == 3 else p * 3 + [255]
    src, ch, scale = rgba, 4, 1.0
    orig = px  # the channels written: grey, RGB or RGBA as loaded
ref = ([planes[c][i] for i in range(W * H) for c in range(nch)] if pixel == "float"
       else blur(src, W, H, ch, sigma, R))
# Output channel k of pixel i is reference channel k (grey: channel 0).
worst, at = 0.0, None
for i in range(W * H):
    for k in range(onch):
        err = abs(out[i * onch + k] - ref[i * ch + k] * scale)
        if err > worst:
            worst, at = err, (i % W, i // W, k)
if worst > 1.0:
    bad.append(f"differs from the reference blur by {worst:.3f} levels at (x, y, channel) {at}")
if len(orig) != len(out):
    bad.append(f"{len(out)} output values, {len(orig)} input values in the channels written")
elif R > 0 and sigma > 0 and out == orig:
    bad.append("the blurred output equals the input")
elif R == 0 and out != orig:
    n = sum(1 for a, b in zip(out, orig) if a != b)
    bad.append(f"radius 0 is not the identity: {n} of {len(orig)} values differ from the input")
if bad:
    print(f"FAIL: {title}: " + "; ".join(bad))
    sys.exit(1)
what = "equal to the input" if R == 0 else "differs from the input"
print(f"ok: {title}: {W}x{H} colour type {oc} written, {what}, within {worst:.2f} levels of the reference")
PY
}

if [ "$mode" = png ] || [ "$mode" = pnm ]; then
    if [ "$mode" = png ] && [ "${1:-}" = native ]; then
        # kladder's own RGBA picture of its generated image (radius 0: the
        # generated pixels themselves), with structure (not constant).
        if "$kladder" blur --width 64 --height 48 --pixel uchar4 --radius 0 --rung 03 "${q[@]}" \
            --output "$tmp/gen.png" >"$tmp/stdout" 2>&1; then
            python3 - "$tmp/blurlib.py" "$tmp/gen.png" <<'PY' || fails=$((fails + 1))
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from blurlib import read_png
W, H, ct, nch, px = read_png(sys.argv[2])
distinct = [len(set(px[c::nch])) for c in range(nch)]
if (W, H, ct) != (64, 48, 6) or min(distinct[:3]) < 16:
    print(f"FAIL: generated RGBA: {W}x{H} colour type {ct}, distinct values per channel {distinct}")
    sys.exit(1)
print(f"ok: generated RGBA: 64x48 colour type 6, {distinct} distinct values per channel")
PY
        else
            fail "kladder blur --width 64 --height 48 --pixel uchar4 --radius 0 --output gen.png: $(cat "$tmp/stdout")"
        fi
        python3 - "$tmp/blurlib.py" "$tmp" <<'PY'
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
from blurlib import *
d = sys.argv[2]
W, H = 23, 17
write_png(f"{d}/grey.png", W, H, 0, 8, pattern(W, H, 1))
write_png(f"{d}/rgb.png", W, H, 2, 8, pattern(W, H, 3, 1))
write_png(f"{d}/rgba.png", W, H, 6, 8, pattern(W, H, 4, 2))
write_png(f"{d}/greya.png", W, H, 4, 8, pattern(W, H, 2, 3))
# A palette of 7 colours; kladder converts it to RGB.
pal = [(0, 0, 0), (255, 0, 0), (0, 200, 0), (10, 20, 250), (255, 255, 255), (128, 64, 32), (7, 77, 177)]
idx = [(x // 2 + y // 3 + x * y) % len(pal) for y in range(H) for x in range(W)]
write_png(f"{d}/palette.png", W, H, 3, 8, idx, palette=pal)
write_png(f"{d}/palette.png.8bit.png", W, H, 2, 8, [v for i in idx for v in pal[i]])
# 16-bit grey and RGB, samples b·257, which kladder takes as b.
g = pattern(W, H, 1, 4)
write_png(f"{d}/grey16.png", W, H, 0, 16, [v * 257 for v in g])
write_png(f"{d}/grey16.png.8bit.png", W, H, 0, 8, g)
c = pattern(W, H, 3, 5)
write_png(f"{d}/rgb16.png", W, H, 2, 16, [v * 257 for v in c])
write_png(f"{d}/rgb16.png.8bit.png", W, H, 2, 8, c)
PY
        # name:colour type of the output (the input's channels, for both pixel types):
        # PNGs read as they are, or converted (alpha to RGBA, a palette to
        # RGB, 16 bits to 8).
        case ${1:-} in
        native) inputs="gen.png:6 grey.png:0 rgb.png:2 rgba.png:6" ;;
        converted) inputs="greya.png:6 palette.png:2 grey16.png:0 rgb16.png:2" ;;
        *) echo "usage: check_blur.sh KLADDER png native|converted"; exit 2 ;;
        esac
    else
        python3 - "$tmp" <<'PY'
import sys
d = sys.argv[1]
def pattern(W, H, nch, seed, maxval):
    return bytes(((x // 3 + y // 2 + seed) % 2 * 200 + x * 5 + (x * 131 + y * 71 + c * 29) % 37) % (maxval + 1)
                 for y in range(H) for x in range(W) for c in range(nch))
W, H = 19, 11
open(f"{d}/grey.pgm", "wb").write(b"P5\n# a comment\n%d %d\n255\n" % (W, H) + pattern(W, H, 1, 0, 255))
open(f"{d}/colour.ppm", "wb").write(b"P6 %d %d 255\n" % (W, H) + pattern(W, H, 3, 1, 255))
open(f"{d}/grey15.pgm", "wb").write(b"P5\n%d %d\n15\n" % (W, H) + pattern(W, H, 1, 2, 15))
open(f"{d}/colour15.ppm", "wb").write(b"P6\n%d %d\n15\n" % (W, H) + pattern(W, H, 3, 3, 15))
PY
        inputs="grey.pgm:0 colour.ppm:2 grey15.pgm:0 colour15.ppm:2"
    fi
    for spec in $inputs; do
        f=${spec%%:*} ct=${spec##*:}
        for pixel in float uchar4; do
            oct=$ct
            blur_image "$f $pixel --sigma 1.5" "$tmp/$f" "$pixel" "$oct" 1.5 5
            blur_image "$f $pixel --radius 0" "$tmp/$f" "$pixel" "$oct" 1.5 0
        done
    done
    if [ "$mode" = png ] && [ "$1" = native ]; then
        # A larger radius than the picture, at another sigma.
        blur_image "rgba.png uchar4 --sigma 4 --radius 30" "$tmp/rgba.png" uchar4 6 4 30
        # --output-rung: the image comes from the rung named (in full);
        # without it, from the fastest verified rung.
        rs="01_naive 03_separable"
        [ "$images" = yes ] && rs="$rs 08_image"
        for r in $rs; do
            blur_image "rgb.png uchar4 --output-rung $r" "$tmp/rgb.png" uchar4 2 1.5 5 --output-rung "$r" &&
                python3 - "$tmp/rep.json" "$tmp/out.png" "$r" <<'PY' || fails=$((fails + 1))
import json, sys
rep, out, r = sys.argv[1:4]
ref = json.load(open(rep))["reference"]
if not ref.endswith(f"{out} written from {r}"):
    print(f"FAIL: --output-rung {r}: the report says {ref!r}")
    sys.exit(1)
print(f"ok: --output-rung {r}: the report says the image was written from {r}")
PY
        done
        blur_image "rgb.png uchar4 (fastest)" "$tmp/rgb.png" uchar4 2 1.5 5 &&
            python3 - "$tmp/rep.json" "$tmp/out.png" <<'PY' || fails=$((fails + 1))
import json, sys
rep, out = sys.argv[1:3]
r = json.load(open(rep))
ver = [x for x in r["results"] if x["status"] == "verified"]
best = min(ver, key=lambda x: x["median_s"])["rung"]
if not r["reference"].endswith(f"{out} written from {best}"):
    print(f"FAIL: output from the fastest: the report says {r['reference']!r}, the fastest verified rung is {best}")
    sys.exit(1)
print(f"ok: output from the fastest: written from {best}, the fastest verified rung")
PY
    fi
    totals
    exit $((fails > 0))
fi

# ---------------------------------------------------------------------------
# expect CODE REGEX ARGS...: kladder blur ARGS exits CODE with REGEX in its output.
expect() {
    local code=$1 pattern=$2
    shift 2
    local out rc
    out=$("$kladder" blur "$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$code" ]; then
        printf 'FAIL: kladder blur %s: exit %s, expected %s\n%s\n' "$*" "$rc" "$code" "$out"
        exit 1
    fi
    if ! grep -Eq -- "$pattern" <<<"$out"; then
        printf 'FAIL: kladder blur %s: output does not match /%s/\n%s\n' "$*" "$pattern" "$out"
        exit 1
    fi
    printf 'ok: kladder blur %s: exit %s, %s\n' "$*" "$rc" "$(grep -E -- "$pattern" <<<"$out" | head -n 1)"
    exit 0
}

if [ "$mode" = bad ]; then
    case=${1:-}
    # A valid PNG to break (kladder's picture of its generated image).
    size=0
    if [ "$case" = truncated_png ] || [ "$case" = corrupt_png ]; then
        if ! "$kladder" blur --width 64 --height 48 --pixel uchar4 --radius 0 --rung 03 "${q[@]}" \
            --output "$tmp/good.png" >"$tmp/stdout" 2>&1; then
            echo "FAIL: could not write a PNG to break: $(cat "$tmp/stdout")"
            exit 1
        fi
        size=$(wc -c <"$tmp/good.png")
    fi
    case $case in
    missing)
        expect 2 "cannot open image .*nosuch\\.png: No such file or directory" --input "$tmp/nosuch.png" "${q[@]}" ;;
    directory)
        mkdir "$tmp/dir.png"
        expect 2 "cannot read image .*dir\\.png: it is a directory" --input "$tmp/dir.png" "${q[@]}" ;;
    truncated_png)
        head -c $((size / 2)) "$tmp/good.png" >"$tmp/half.png"
        expect 2 "cannot read PNG .*half\\.png: .*\\(the file is truncated\\)" --input "$tmp/half.png" "${q[@]}" ;;
    corrupt_png)
        # One byte in the middle of the compressed data flipped: libpng stops
        # at whatever it meets first (here "bad adaptive filter value"; a
        # CRC error where the data still inflates).
        python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 0xFF; open(sys.argv[2], "wb").write(b)' \
            "$tmp/good.png" "$tmp/corrupt.png"
        expect 2 "cannot read PNG .*corrupt\\.png: [A-Za-z]" --input "$tmp/corrupt.png" "${q[@]}" ;;
    random_png)
        python3 -c 'import random, sys; r = random.Random(5); open(sys.argv[1], "wb").write(b"\x01" + bytes(r.randrange(256) for _ in range(4095)))' "$tmp/random.png"
        expect 2 "cannot read image .*random\\.png: not a PNG, PGM \\(P5\\) or PPM \\(P6\\) file" --input "$tmp/random.png" "${q[@]}" ;;
    empty)
        : >"$tmp/empty.png"
        expect 2 "cannot read image .*empty\\.png: the file is empty" --input "$tmp/empty.png" "${q[@]}" ;;
    pgm16)
        python3 -c 'import sys; open(sys.argv[1], "wb").write(b"P5\n3 2\n65535\n" + bytes(range(12)))' "$tmp/deep.pgm"
        expect 2 "cannot read image .*deep\\.pgm: it is a 16-bit PGM \\(maxval 65535\\)" --input "$tmp/deep.pgm" "${q[@]}" ;;
    truncated_ppm)
        python3 -c 'import sys; open(sys.argv[1], "wb").write(b"P6\n4 4\n255\n" + bytes(20))' "$tmp/short.ppm"
        expect 2 "truncated PPM \\(4x4 needs 48 bytes of samples, the file has 20\\)" --input "$tmp/short.ppm" "${q[@]}" ;;
    output_unwritable)
        expect 2 "cannot write PNG .*/nonexistent/x\\.png: No such file or directory" --width 5 --height 3 --rung 03 \
            "${q[@]}" --output "$tmp/nonexistent/x.png" ;;
    *)
        echo "usage: check_blur.sh KLADDER bad missing|directory|truncated_png|corrupt_png|random_png|empty|pgm16|truncated_ppm|output_unwritable"
        exit 2 ;;
    esac
fi

if [ "$mode" = too_big ]; then
    # The fewest uchar4 pixels whose buffers (16 bytes a pixel for the
    # intermediate float4 image) exceed the largest allocation, as a
    # 65536-wide image, if within 65536 rows and 2^30 pixels.
    H=$(awk -v b="$maxalloc" 'BEGIN { n = int(b / 16) + 1; h = int((n + 65535) / 65536);
        if (b > 0 && h <= 65536 && h * 65536 <= 1073741824) print h }')
    if [ -z "$H" ]; then
        echo "the default device allocates ${maxalloc:-?} bytes at once: no image within 65536 on a side and 2^30 pixels exceeds it; skipped"
        exit 77
    fi
    expect 2 "a 65536×$H image needs .* more than the device's largest allocation" \
        --width 65536 --height "$H" --pixel uchar4 --radius 1 "${q[@]}"
fi

if [ "$mode" = named_too_big_tile ]; then
    # 04_tiled2d's float tile with BX = BY = 16 is (16 + 2R)² · 4 bytes.
    R=$(awk -v m="$localmem" 'BEGIN { for (r = 0; r <= 512; r++) if ((16 + 2 * r) ^ 2 * 4 > m) { print r; exit } }')
    if [ -z "$R" ]; then
        echo "the default device has ${localmem:-?} bytes of local memory: every 04_tiled2d tile up to radius 512 fits; skipped"
        exit 77
    fi
    expect 2 "rung 04_tiled2d: a tile with a halo of radius $R needs [0-9]+ bytes of local memory, the device has $localmem" \
        --width 3 --height 2 --radius "$R" --rung 04 "${q[@]}"
fi

echo "usage: check_blur.sh KLADDER rungs float|uchar4 default|tiles|px1|px8 | png native|converted | pnm | bad CASE | too_big | named_too_big_tile"
exit 2
