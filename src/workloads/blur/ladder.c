/*
 * Gaussian blur workload: the picture, the weights, the separable
 * reference in double and the ladder driver; the rung table is in
 * blur/rungs.c.
 */
#include "workloads/blur/blur.h"

#include "workloads/blur/bound.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/image.h"
#include "core/ladder.h"
#include "core/launch.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/util.h"
#include "peers/peers.h"
#include "tune/cache.h"

#define GUARD 256 /* pixels past the output that a correct kernel never writes */
#define FLOAT_TOLERANCE 1e-5 /* a float output's largest difference from the reference */

struct blur_session {
    struct kl_context *kl;
    enum kl_pixel pix;
    int W, H, R, ch;        /* ch: channels per pixel as computed (1 float, 4 uchar4) */
    double peak;            /* the largest |value| in src (what rung 14's bound needs) */
    size_t n;               /* pixels */
    float *w, *w2;          /* 1-D and 2-D weights */
    void *src, *fill, *out; /* n, n + GUARD, n + GUARD pixels of 4 bytes */
    void *best;             /* n pixels: the output chosen for --output */
    double *ref;            /* n·ch expected values */
    struct kl_buf *dsrc, *ddst, *dtmp, *dw, *dw2, *dimg;
};

static size_t f_size(const struct blur_session *s)
{
    return s->pix == KL_PIX_FLOAT ? 4 : 16;
}

/*
 * Pixels per work-item along x: 1, or PX; or (px == 2) PX floats, so PX/4
 * uchar4 pixels, halved while 2R+1 rows of them would exceed 64 floats (the
 * rule 07_fused.cl applies to the same -D values).
 */
static size_t px_of(const struct kl_blur_rung *r, const int *v, enum kl_pixel pix, int R)
{
    /* Rung 11 calls its pixels per thread RX, as rung 12 does (PX elsewhere). */
    const char *name = kl_param_index(r->params, "PX") >= 0 ? "PX" : "RX";
    size_t px = r->px ? (size_t)kl_param_value(r->params, v, name) : 1;
    if (r->px == 2) {
        size_t nch = pix == KL_PIX_UCHAR4 ? 4 : 1, taps = 2 * (size_t)R + 1, n = 8;
        while (n > 1 && (px < n * nch || taps * n * nch > 64))
            n /= 2;
        px = n;
    }
    return px;
}

/*
 * A work-group of bx × by work-items, each computing sy rows: BX, BY (1 where a rung has
 * none) and SY (1 where a rung has none). 10_tile has parameters of its own, since their
 * meaning and ranges differ and --param sets a name for every rung that declares it: WY
 * warps of 32 threads, each thread RY rows.
 */
struct geometry {
    size_t bx, by, sy;
};

static struct geometry geometry_of(const struct kl_blur_rung *r, const int *v)
{
    if (r->tensor) { /* rungs 13 and 14: WX strips of 16 columns, 4/CW warps each, down SH rows */
        int cw = kl_param_index(r->params, "CW") >= 0 ? kl_param_value(r->params, v, "CW") : 4;
        return (struct geometry){(size_t)(32 * kl_param_value(r->params, v, "WX") * 4 / cw), 1,
                                 (size_t)kl_param_value(r->params, v, "SH")};
    }
    if (r->local == KL_BLUR_LOCAL_STRIPS) /* rung 12: NT threads per strip of SH rows */
        return (struct geometry){(size_t)kl_param_value(r->params, v, "NT"), 1,
                                 (size_t)kl_param_value(r->params, v, "SH")};
    if (kl_param_index(r->params, "WY") >= 0)
        return (struct geometry){32, (size_t)kl_param_value(r->params, v, "WY"),
                                 (size_t)kl_param_value(r->params, v, "RY")};
    return (struct geometry){
        (size_t)kl_param_value(r->params, v, "BX"),
        kl_param_index(r->params, "BY") >= 0 ? (size_t)kl_param_value(r->params, v, "BY") : 1,
        r->sy ? (size_t)kl_param_value(r->params, v, "SY") : 1};
}

/* The least n' >= n with n' % 32 == 4: rows that far apart put eight float4 in distinct banks. */
static size_t pad32_4(size_t n)
{
    return (n + 27) / 32 * 32 + 4;
}

/* Local memory a rung declares, in bytes. */
static size_t local_bytes(const struct kl_blur_rung *r, const int *v, const struct blur_session *s,
                          size_t bx, size_t by, size_t px)
{
    size_t R2 = 2 * (size_t)s->R, f = f_size(s), RA2 = 2 * (((size_t)s->R + 3) / 4 * 4);
    switch (r->local) {
    case KL_BLUR_LOCAL_NONE: return 0;
    case KL_BLUR_LOCAL_TILE: return (bx + R2) * (by + R2) * f;
    case KL_BLUR_LOCAL_ROWCOL:
        return (by * (bx + R2) > (by + R2) * bx ? by * (bx + R2) : (by + R2) * bx) * f;
    case KL_BLUR_LOCAL_ROWS2: return 2 * (bx * px + RA2) * f;
    case KL_BLUR_LOCAL_STAGED: /* ST staged rows of pixels as stored (4 bytes) */
        return (size_t)kl_param_value(r->params, v, "ST") * (bx * px + RA2) * 4;
    case KL_BLUR_LOCAL_TILE_ROWS: {
        /* a tile's by·RY + 2R staged rows as in STAGED; uchar4 row results, 16 bytes a pixel */
        size_t rows = by * (size_t)kl_param_value(r->params, v, "RY") + R2;
        return rows * (bx * px + RA2) * 4 + (s->pix == KL_PIX_UCHAR4 ? rows * bx * px * 16 : 0);
    }
    case KL_BLUR_LOCAL_TILE_COLS: {
        /* rung 11: the staged tile as in TILE_ROWS, and TH rows of SPAN + 2R column-pass results */
        size_t th = by * (size_t)kl_param_value(r->params, v, "RY");
        return (th + R2) * (bx * px + RA2) * 4 + th * (bx * px + R2) * 8;
    }
    case KL_BLUR_LOCAL_STRIPS: { /* rung 12: as its comment reckons, in floats */
        size_t tw = (size_t)kl_param_value(r->params, v, "TW"),
               ch = (size_t)kl_param_value(r->params, v, "CH");
        size_t rowp = pad32_4(tw + RA2), twp = pad32_4(tw), nr = ch * ((R2 + ch - 1) / ch + 1);
        return 4 * (2 * ch * rowp + (nr + R2) * twp + (s->pix == KL_PIX_UCHAR4 ? ch * rowp : 0));
    }
    }
    return 0;
}

/* ---- a rung against the device ----------------------------------------------------- */

/*
 * Whether the error bound of a rung that computes in halves holds its tolerance for these
 * weights (and values): half a level before the final rounding for fp16, the float
 * tolerance for 3xfp16; 0 and why if not. Rungs of other precisions need no bound.
 */
static int bound_holds(const struct kl_blur_rung *r, const struct blur_session *s, char *why,
                       size_t n)
{
    double bound;
    if (r->precision == KL_PREC_FP16 &&
        (bound = r->tensor ? kl_blur_mma_bound(s->w, s->R) : kl_blur_half2_bound(s->w, s->R)) >
            0.5)
        snprintf(why, n,
                 "rung %s: at radius %d with these weights its half-precision arithmetic is "
                 "proved within %.2f of the exact blur, more than the 0.5 that keeps every output "
                 "within one level after rounding",
                 r->name, s->R, bound);
    else if (r->precision == KL_PREC_3XFP16 &&
             (bound = kl_blur_split_bound(s->w, s->R, s->peak)) > FLOAT_TOLERANCE)
        snprintf(why, n,
                 "rung %s: at radius %d with these weights and values up to %g its split "
                 "arithmetic is proved within %.2g of the exact blur, more than the float "
                 "tolerance %g",
                 r->name, s->R, s->peak, bound, FLOAT_TOLERANCE);
    else
        return 1;
    return 0;
}

/*
 * What the device, the pixel type or the weights rule out whatever a rung's values (so a
 * skipped row even where --param set one of them); 0 and why if so.
 */
static int rung_runs_here(const struct kl_blur_rung *r, const struct blur_session *s, char *why,
                          size_t n)
{
    char half[256];
    if (kl_kernel_elsewhere(s->kl, r->file))
        snprintf(why, n, "rung %s is CUDA C++: it runs with --backend cuda", r->name);
    else if (r->kind == KL_BLUR_IMAGE && !s->kl->info.images)
        snprintf(why, n, "rung %s: the device has no image support", r->name);
    else if (r->rgba8_only && s->pix != KL_PIX_UCHAR4)
        snprintf(why, n, "rung %s computes 8-bit pixels (--pixel uchar4)", r->name);
    else if (r->float_only && s->pix != KL_PIX_FLOAT)
        snprintf(why, n, "rung %s computes float pixels (--pixel float)", r->name);
    else if ((r->precision == KL_PREC_FP16 || r->tensor) &&
             !kl_packed_half(&s->kl->info, half, sizeof half))
        snprintf(why, n, "rung %s: %s", r->name, half); /* mma.sync too: 8.0 or more */
    else if (r->tensor && s->R > KL_BLUR_MMA_MAX_RADIUS)
        snprintf(why, n,
                 "rung %s keeps 16 + 2R rows of a strip in registers: radius at most %d (this "
                 "blur's is %d)",
                 r->name, KL_BLUR_MMA_MAX_RADIUS, s->R);
    else
        return bound_holds(r, s, why, n);
    return 0;
}

static enum kl_status check_rung(const struct kl_blur_rung *r, const int *v,
                                 const struct blur_session *s, const struct kl_launch *l,
                                 struct kl_err *e)
{
    const struct kl_device_info *d = &s->kl->info;
    struct geometry g = geometry_of(r, v);
    size_t lb = local_bytes(r, v, s, g.bx, g.by, px_of(r, v, s->pix, s->R));
    size_t w2 = (2 * (size_t)s->R + 1) * (2 * (size_t)s->R + 1) * 4;
    char why[512];
    if (!rung_runs_here(r, s, why, sizeof why))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", why);
    enum kl_status st = kl_params_check_multiples(r->name, r->params, v, r->multiples, e);
    if (st != KL_OK || (st = kl_launch_check(l, r->name, e)) != KL_OK)
        return st;
    uint64_t room = kl_kernel_local_mem(s->kl, r->file);
    if (lb > room)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: a tile with a halo of radius %d needs %zu bytes of local "
                       "memory, the device has %llu",
                       r->name, s->R, lb, (unsigned long long)room);
    if (r->weights_constant && w2 > d->constant_mem)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: %zu bytes of 2-D weights exceed the device's constant buffer "
                       "(%llu)",
                       r->name, w2, (unsigned long long)d->constant_mem);
    if (r->kind == KL_BLUR_IMAGE &&
        ((size_t)s->W > d->image2d_max[0] || (size_t)s->H > d->image2d_max[1]))
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: the image exceeds the device's largest 2-D image", r->name);
    return KL_OK;
}

/* The launch of one entry: 2-D over pixels (over groups of PX along x, strips of SY along y). */
static void shape_of(const struct kl_blur_rung *r, const int *v, enum kl_pixel pix, int R, int W,
                     int H, struct kl_launch *l)
{
    struct geometry g = geometry_of(r, v);
    size_t px = px_of(r, v, pix, R);
    l->dims = 2;
    l->local[0] = g.bx;
    l->local[1] = g.by;
    l->local[2] = l->global[2] = 1;
    l->global[0] = kl_round_up(((size_t)W + px - 1) / px, g.bx);
    l->global[1] = kl_round_up(((size_t)H + g.sy - 1) / g.sy, g.by);
    /* rung 12: a block per strip of TW columns and channel */
    if (r->local == KL_BLUR_LOCAL_STRIPS) {
        size_t tw = (size_t)kl_param_value(r->params, v, "TW");
        l->global[0] = ((size_t)W + tw - 1) / tw * (pix == KL_PIX_UCHAR4 ? 4 : 1) * g.bx;
    }
    if (r->tensor) { /* rung 13: a block per WX strips of 16 columns */
        size_t span = 16 * (size_t)kl_param_value(r->params, v, "WX");
        l->global[0] = ((size_t)W + span - 1) / span * g.bx;
    }
}

/* ---- data ---------------------------------------------------------------------- */

static void weights(double sigma, int R, float *w, float *w2)
{
    double sum = 0, *d = malloc((2 * (size_t)R + 1) * sizeof *d);
    for (int i = -R; i <= R; i++)
        sum += d[i + R] = exp(-(double)i * i / (2 * sigma * sigma));
    for (int i = 0; i <= 2 * R; i++)
        w[i] = (float)(d[i] / sum);
    for (int j = 0; j <= 2 * R; j++)
        for (int i = 0; i <= 2 * R; i++)
            w2[j * (2 * R + 1) + i] = w[j] * w[i];
    free(d);
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The value of channel c of pixel i as the kernels see it (PIX_IN). */
static double pixel_in(const struct blur_session *s, const void *px, size_t i, int c)
{
    return s->pix == KL_PIX_FLOAT ? ((const float *)px)[i] : ((const uint8_t *)px)[4 * i + c];
}

/* Separable reference in double with clamp-to-edge, from the same float weights. */
static enum kl_status reference(struct blur_session *s, struct kl_err *e)
{
    int W = s->W, H = s->H, R = s->R;
    double *tmp = s->n <= KL_IMAGE_MAX_PIXELS ? malloc(s->n * sizeof *tmp) : NULL;
    if (!tmp)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for the reference");
    for (int c = 0; c < s->ch; c++) {
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                double sum = 0;
                for (int i = -R; i <= R; i++)
                    sum += s->w[i + R] *
                           pixel_in(s, s->src, (size_t)y * W + clampi(x + i, 0, W - 1), c);
                tmp[(size_t)y * W + x] = sum;
            }
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                double sum = 0;
                for (int j = -R; j <= R; j++)
                    sum += s->w[j + R] * tmp[(size_t)clampi(y + j, 0, H - 1) * W + x];
                s->ref[((size_t)y * W + x) * s->ch + c] = sum;
            }
    }
    free(tmp);
    return KL_OK;
}

/*
 * Checks s->out against the reference; a note says how it went, and a verified row's
 * error is the worst difference over the full scale (1 for float, 255 levels for uchar4).
 */
static int judge(const struct blur_session *s, struct kl_result *res)
{
    char *note = res->note;
    size_t n = sizeof res->note;
    double tol = s->pix == KL_PIX_FLOAT ? FLOAT_TOLERANCE : 1.0, worst = 0;
    size_t bad = 0, at = 0;
    int atc = 0;
    if (memcmp((char *)s->out + s->n * 4, (char *)s->fill + s->n * 4, GUARD * 4) != 0) {
        snprintf(note, n, "the kernel wrote past the end of the image (into the guard band)");
        return 0;
    }
    for (size_t i = 0; i < s->n; i++)
        for (int c = 0; c < s->ch; c++) {
            double err = fabs(pixel_in(s, s->out, i, c) - s->ref[i * s->ch + c]);
            if (!(err <= tol)) {
                if (!bad++ || !(err <= worst))
                    at = i, atc = c;
                worst = isnan(err) || !(err <= worst) ? err : worst;
            } else if (err > worst && !bad) {
                worst = err;
            }
        }
    if (bad) {
        snprintf(note, n,
                 "%zu of %zu values differ from the reference by more than %g; worst %.6g at "
                 "pixel (%zu, %zu) channel %d: got %.9g, want %.9g",
                 bad, s->n * (size_t)s->ch, tol, worst, at % (size_t)s->W, at / (size_t)s->W, atc,
                 pixel_in(s, s->out, at, atc), s->ref[at * s->ch + atc]);
        return 0;
    }
    snprintf(note, n, "%zu pixels match the reference (worst error %.2g, tolerance %g)", s->n,
             worst, tol);
    res->error = worst / (s->pix == KL_PIX_FLOAT ? 1.0 : 255.0);
    return 1;
}

static void session_free(struct blur_session *s)
{
    if (s->kl) {
        const struct kl_backend_ops *o = s->kl->ops;
        o->release(s->dsrc);
        o->release(s->ddst);
        o->release(s->dtmp);
        o->release(s->dw);
        o->release(s->dw2);
        o->release(s->dimg);
    }
    free(s->w);
    free(s->w2);
    free(s->src);
    free(s->fill);
    free(s->out);
    free(s->best);
    free(s->ref);
}

/* ---- one rung -------------------------------------------------------------------- */

/* Runs p once on a poisoned output, judges it against the reference, then times p. */
static enum kl_status verify_and_time(struct blur_session *s, struct kl_launch_pair *p,
                                      const struct kl_protocol *proto, struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    struct kl_err *e = &kl->err;
    struct kl_stats stats;
    enum kl_status st;
    double dummy;
    if ((st = kl->ops->write(kl->dev, s->ddst, s->fill, (s->n + GUARD) * 4, e)) != KL_OK ||
        (st = kl_launch_pair_timed(p, &dummy, e)) != KL_OK ||
        (st = kl->ops->read(kl->dev, s->ddst, s->out, (s->n + GUARD) * 4, e)) != KL_OK)
        return st;
    if (!judge(s, res)) {
        res->status = KL_RESULT_FAILED;
        return KL_OK;
    }
    if ((st = kl_measure(kl, proto, kl_launch_pair_timed, p, &stats, e)) != KL_OK)
        return st;
    res->status = KL_RESULT_VERIFIED;
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

/* Rung r's build options: its parameters', the radius and the pixel type. */
static void rung_options(const struct kl_blur_rung *r, const int *values,
                         const struct blur_session *s, char *out, size_t n)
{
    kl_params_options(r->params, values, KL_FLOAT, out, n);
    size_t used = strlen(out);
    snprintf(out + used, n - used, " -DRAD=%d%s", s->R,
             s->pix == KL_PIX_UCHAR4 ? " -DKL_PIX_UCHAR4" : " -DKL_PIX_FLOAT");
}

/* The kernel of rung r's first (or only) pass. */
static const char *first_pass(const struct kl_blur_rung *r)
{
    switch (r->kind) {
    case KL_BLUR_2D: return "blur2d";
    case KL_BLUR_FUSED: return "blur_fused";
    default: return "blur_h";
    }
}

/*
 * The first pass's arguments: the source (the image for image rungs), the
 * destination (the intermediate for separable rungs), W, H, the weights
 * (2-D ones for a 2-D rung), and a CUDA C++ rung's dynamic shared memory.
 */
static void first_args(const struct blur_session *s, const struct kl_blur_rung *r,
                       const int *values, struct kl_launch *l)
{
    int one_pass = r->kind == KL_BLUR_2D || r->kind == KL_BLUR_FUSED;
    l->nargs = 5;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = r->kind == KL_BLUR_IMAGE ? s->dimg : s->dsrc}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = one_pass ? s->ddst : s->dtmp}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = s->W}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = s->H}};
    l->args[4] = (struct kl_arg){KL_ARG_BUF, {.buf = r->kind == KL_BLUR_2D ? s->dw2 : s->dw}};
    if (kl_kernel_is_cuda(r->file) && r->local != KL_BLUR_LOCAL_NONE) { /* dynamic shared memory */
        struct geometry g = geometry_of(r, values);
        l->args[l->nargs++] = (struct kl_arg){
            KL_ARG_LOCAL,
            {.local_bytes = local_bytes(r, values, s, g.bx, g.by, px_of(r, values, s->pix, s->R))}};
    }
}

/*
 * A separable or image rung's second pass (blur_v, from the intermediate
 * into the destination) as p->b, its build time added to res's.
 */
static enum kl_status second_pass(struct blur_session *s, const struct kl_blur_rung *r,
                                  const struct kl_launch *l, struct kl_launch *l2,
                                  struct kl_launch_pair *p, struct kl_result *res)
{
    double build2 = 0;
    enum kl_status st;
    *l2 = *l;
    if ((st = kl_kernel_get(s->kl, r->file, "blur_v", res->options, &l2->kernel, &build2)) != KL_OK)
        return st;
    l2->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dtmp}};
    l2->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->ddst}};
    p->b = l2;
    res->build_s += build2;
    return KL_OK;
}

static enum kl_status run_rung(struct blur_session *s, const struct kl_blur_rung *r,
                               const int *values, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    struct kl_err *e = &kl->err;
    struct kl_launch l = {.kl = kl}, l2 = {.kl = kl};
    struct kl_launch_pair p = {.a = &l};
    enum kl_status st;

    shape_of(r, values, s->pix, s->R, s->W, s->H, &l);
    if ((st = check_rung(r, values, s, &l, e)) != KL_OK)
        return st;
    rung_options(r, values, s, res->options, sizeof res->options);
    if (r->kind == KL_BLUR_IMAGE && !s->dimg &&
        (st = kl->ops->alloc_image(kl->dev, s->W, s->H, s->pix == KL_PIX_UCHAR4, s->src, &s->dimg,
                                   e)) != KL_OK)
        return st;
    if ((st = kl_kernel_get(kl, r->file, first_pass(r), res->options, &l.kernel, &res->build_s)) !=
        KL_OK)
        return st;
    first_args(s, r, values, &l);
    if ((r->kind == KL_BLUR_SEPARABLE || r->kind == KL_BLUR_IMAGE) &&
        (st = second_pass(s, r, &l, &l2, &p, res)) != KL_OK)
        return st;
    if ((st = kl_launch_check(&l, r->name, e)) != KL_OK ||
        (p.b && (st = kl_launch_check(&l2, r->name, e)) != KL_OK))
        return st;
    return verify_and_time(s, &p, proto, res);
}

/* ---- the ladder ---------------------------------------------------------------------- */

/* The input as the kernels take it: float grey (channel 0 of the picture) or RGBA8. */
static enum kl_status load_input(const struct kl_blur_request *req, struct kl_image *im,
                                 struct kl_err *e)
{
    if (req->input)
        return kl_image_load(req->input, im, e);
    return kl_image_synthetic(req->width, req->height, req->pixel == KL_PIX_FLOAT ? 1 : 4,
                              req->seed, im, e);
}

/*
 * The picture as the kernels take it, into s->src: channel c as float in [0,1], or RGBA8;
 * for float, s->peak, the largest value.
 */
static void to_pixels(struct blur_session *s, const struct kl_image *im, int c)
{
    void *dst = s->src;
    s->peak = 0;
    for (size_t i = 0; i < s->n; i++) {
        const unsigned char *p = im->px + i * (size_t)im->channels;
        if (s->pix == KL_PIX_FLOAT) {
            float v = ((float *)dst)[i] = p[c] / 255.0f;
            s->peak = v > s->peak ? v : s->peak;
        } else {
            uint8_t *q = (uint8_t *)dst + 4 * i;
            q[0] = p[0];
            q[1] = im->channels >= 3 ? p[1] : p[0];
            q[2] = im->channels >= 3 ? p[2] : p[0];
            q[3] = im->channels == 4 ? p[3] : 255;
        }
    }
}

/*
 * The output picture, with the input's channels: from RGBA8 results, or from
 * one float plane per channel (planes[c], each verified on its own).
 */
static enum kl_status save_output(const struct blur_session *s, const struct kl_image *in,
                                  void *const *planes, const char *path, struct kl_err *e)
{
    struct kl_image im = {s->W, s->H, in->channels, NULL};
    enum kl_status st;
    if (!(im.px = malloc(s->n * (size_t)im.channels)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    for (size_t i = 0; i < s->n; i++)
        for (int c = 0; c < im.channels; c++) {
            double v = s->pix == KL_PIX_FLOAT ? ((const float *)planes[c])[i] * 255.0
                                              : ((const uint8_t *)planes[0])[4 * i + c];
            im.px[i * (size_t)im.channels + c] = (unsigned char)(v < 0     ? 0
                                                                 : v > 255 ? 255
                                                                           : v + 0.5);
        }
    st = kl_image_save_png(path, &im, e);
    free(im.px);
    return st;
}

/*
 * Float pixels blur one channel at a time: the ladder ran on channel 0; the
 * other channels of a colour picture go through the chosen rung once each,
 * every one verified against its own reference, before the picture is saved.
 */
static enum kl_status write_output(struct blur_session *s, const struct kl_image *im,
                                   const struct kl_blur_rung *r, const int *values,
                                   const char *path, struct kl_err *e)
{
    void *planes[4] = {s->best, NULL, NULL, NULL};
    int extra = s->pix == KL_PIX_FLOAT ? im->channels : 1;
    const struct kl_protocol once = {
        .warmup = 0, .min_repeats = 1, .min_time = 0.0, .max_repeats = 1};
    enum kl_status st = KL_OK;
    for (int c = 1; c < extra && st == KL_OK; c++) {
        struct kl_result res;
        memset(&res, 0, sizeof res);
        to_pixels(s, im, c);
        if ((st = reference(s, e)) != KL_OK)
            break;
        s->kl->ops->release(s->dimg); /* an image object holds the previous channel */
        s->dimg = NULL;
        if (!(planes[c] = malloc(s->n * 4)))
            st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
        else if ((st = s->kl->ops->write(s->kl->dev, s->dsrc, s->src, s->n * 4, e)) == KL_OK &&
                 (st = run_rung(s, r, values, &once, &res)) == KL_OK) {
            if (res.status != KL_RESULT_VERIFIED)
                st = kl_fail(e, KL_ERR_VERIFY, "channel %d of the picture: %s", c, res.note);
            memcpy(planes[c], s->out, s->n * 4);
        }
    }
    if (st == KL_OK)
        st = save_output(s, im, planes, path, e);
    for (int c = 1; c < extra; c++)
        free(planes[c]);
    return st;
}

/* ---- the ladder through the engine ---------------------------------------------- */

/* A ladder's state: the session, the request, and the fastest verified rung so far. */
struct blur_ladder {
    const struct kl_blur_request *req;
    struct blur_session s;
    int out_rung;  /* --output-rung's index, or -1 */
    int best;      /* the rung whose output --output writes, or -1 */
    double best_s; /* its median time */
};

/* Rungs that cannot run here whatever their values (rung_runs_here). */
static int blur_available(void *self, int i, char *why, size_t n)
{
    const struct blur_ladder *L = self;
    return rung_runs_here(kl_blur_rung_at(i), &L->s, why, n);
}

/* A row's arithmetic: the rung's (fp32 unless it says otherwise). */
static void blur_describe(void *self, int i, struct kl_result *res)
{
    (void)self;
    if (i < kl_blur_rung_count()) {
        res->precision =
            kl_blur_rung_at(i)->precision ? kl_blur_rung_at(i)->precision : KL_PREC_FP32;
        res->tensor = kl_blur_rung_at(i)->tensor;
    }
}

/*
 * Rung i's values: --param where it sets one of the rung's own; else its preset for this
 * device and radius (config says which); else its defaults. A rung named with --rung is the
 * user's either way (a misfit is an error).
 */
static enum kl_status blur_values(void *self, int i, const struct kl_ladder_args *a, int *values,
                                  int *users, char *config, size_t n, struct kl_err *e)
{
    const struct blur_ladder *L = self;
    const struct kl_blur_rung *r = kl_blur_rung_at(i);
    const struct kl_device_info *d = &L->s.kl->info;
    const char *items[KL_MAX_PARAMS];
    char buf[256];
    unsigned mask = 0;
    int cc = d->cc_major * 10 + d->cc_minor;
    enum kl_status st;
    *users = a->nrungs > 0;
    if (!kl_params_mention(a->params, a->nparams, r->params) &&
        !kl_kernel_elsewhere(L->s.kl, r->file))
        for (int k = 0; k < KL_BLUR_MAX_PRESETS && r->presets[k].cc; k++)
            if (r->presets[k].cc == cc && L->s.R <= r->presets[k].max_radius) {
                int nitems =
                    kl_tuned_items(r->presets[k].params, buf, sizeof buf, items, KL_MAX_PARAMS);
                snprintf(config, n, "preset %s",
                         *r->presets[k].params ? r->presets[k].params : "defaults");
                return kl_params_resolve(r->name, r->params, items, nitems, values, &mask, e);
            }
    st = kl_params_resolve(r->name, r->params, a->params, a->nparams, values, &mask, e);
    *users |= mask != 0;
    return st;
}

static enum kl_status blur_check(void *self, int i, const int *values, struct kl_err *e)
{
    const struct blur_ladder *L = self;
    struct kl_launch l = {.kl = L->s.kl};
    shape_of(kl_blur_rung_at(i), values, L->s.pix, L->s.R, L->s.W, L->s.H, &l);
    return check_rung(kl_blur_rung_at(i), values, &L->s, &l, e);
}

/* The rung --output-rung names, else the fastest verified: its output is kept for --output. */
static void keep_best(struct blur_ladder *L, int i, const struct kl_result *res)
{
    int named = i == L->out_rung;
    if (res->status != KL_RESULT_VERIFIED ||
        !(named || (!L->req->output_rung && (L->best < 0 || res->median_s < L->best_s))))
        return;
    L->best = i;
    L->best_s = res->median_s;
    if (L->req->output)
        memcpy(L->s.best, L->s.out, L->s.n * 4);
}

static enum kl_status blur_run(void *self, int i, const int *values,
                               const struct kl_protocol *proto, struct kl_result *res)
{
    struct blur_ladder *L = self;
    enum kl_status st = run_rung(&L->s, kl_blur_rung_at(i), values, proto, res);
    if (st == KL_OK)
        keep_best(L, i, res);
    return st;
}

/* ---- the user's kernels: blur(src, dst, W, H, w), one pass ------------------------ */

static long long blur_size(void *self, int i)
{
    const struct blur_ladder *L = self;
    return i == 0 ? L->s.W : i == 1 ? L->s.H : L->s.R;
}

static void blur_options(void *self, char *out, size_t n)
{
    const struct blur_ladder *L = self;
    snprintf(out, n, " -DRAD=%d%s", L->s.R,
             L->s.pix == KL_PIX_UCHAR4 ? " -DKL_PIX_UCHAR4" : " -DKL_PIX_FLOAT");
}

static void user_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    const struct blur_ladder *L = self;
    (void)u;
    l->nargs = 5;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = L->s.dsrc}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = L->s.ddst}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = L->s.W}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = L->s.H}};
    l->args[4] = (struct kl_arg){KL_ARG_BUF, {.buf = L->s.dw}};
}

static enum kl_status user_run(void *self, struct kl_launch *l, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct blur_ladder *L = self;
    struct kl_launch_pair p = {.a = l};
    return verify_and_time(&L->s, &p, proto, res);
}

static const struct kl_user_iface user_iface = {
    .signature = "blur(global const P *src, global P *dst, int W, int H, global const float *w)",
    .nsizes = 3,
    .size_names = {"W", "H", "R"},
    .size = blur_size,
    .options = blur_options,
    .args = user_args,
    .run = user_run,
};

/* A library's blur of the same picture with the same weights: a row, verified like a rung. */
static enum kl_status run_peer(struct blur_session *s, const char *peer,
                               const struct kl_protocol *proto, struct kl_report *rep)
{
    struct kl_blur_problem p = {s->pix == KL_PIX_UCHAR4, s->W, s->H, s->R, s->src, s->w};
    char name[64], what[256];
    struct kl_stats stats;
    struct kl_err e;
    snprintf(name, sizeof name, "peer:%s", peer);
    struct kl_result *res = kl_report_add(rep, name, NULL);
    if (!res)
        return kl_fail(&s->kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    res->peer = 1;
    /* The guard band stays as filled: a library writes its own buffer, never past it. */
    memcpy(s->out, s->fill, (s->n + GUARD) * 4);
    kl_measure_forget();
    enum kl_status st = kl_peer_blur(s->kl, peer, &p, proto, s->out, &stats, what, sizeof what, &e);
    if (kl_peer_row(res, st, &e, what) && judge(s, res)) {
        kl_result_set_stats(res, &stats);
        kl_result_keep_measured(res);
    } else if (st == KL_OK) {
        /* Wrong results are no speed; the note keeps the time for whoever weighs the error. */
        size_t used = strlen(res->note);
        res->status = KL_RESULT_FAILED;
        snprintf(res->note + used, sizeof res->note - used,
                 " (its launches took %.4g ms, median of %d; not a result)", stats.median * 1e3,
                 stats.n);
    }
    return KL_OK;
}

/* What can be refused before the picture is read: σ, the radius, --output-rung, --output. */
static enum kl_status check_request(const struct kl_blur_request *req,
                                    const struct kl_rung_set *set, const int *chosen, int nchosen,
                                    int *out_rung, struct kl_err *e)
{
    *out_rung = -1;
    enum kl_status st = kl_peers_check("blur", req->peers, req->npeers, e);
    if (st != KL_OK)
        return st;
    if (req->output_rung) {
        int among = 0;
        *out_rung = kl_rung_lookup(set, req->output_rung);
        for (int i = 0; i < nchosen; i++)
            among |= chosen[i] == *out_rung;
        if (*out_rung >= kl_blur_rung_count() && among)
            return kl_fail(e, KL_ERR_ARG,
                           "--output-rung %s: the picture is written from a built-in rung, not "
                           "from a kernel of the user's",
                           req->output_rung);
        if (*out_rung < 0 || !among)
            return kl_fail(e, KL_ERR_ARG, "--output-rung %s is not one of the rungs that run",
                           req->output_rung);
    }
    if (req->output) {
        /* Fail now, not after the ladder, if the picture cannot be written (and leave no trace). */
        struct kl_out_file probe;
        if (kl_out_open(&probe, req->output) != 0)
            return kl_fail(e, KL_ERR_IO, "cannot write PNG %s: %s", req->output, strerror(errno));
        kl_out_abort(&probe);
    }
    return KL_OK;
}

/* Whether the picture's buffers (fbytes each for the intermediate) fit the device. */
static enum kl_status session_fits(const struct blur_session *s, size_t fbytes, struct kl_err *e)
{
    struct kl_context *kl = s->kl;
    if (fbytes > kl->info.max_alloc || (s->n + GUARD) * 4 > kl->info.max_alloc)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "a %d×%d image needs %.1f MiB buffers, more than the device's largest "
                       "allocation (%.1f MiB)",
                       s->W, s->H, fbytes / 1048576.0, kl->info.max_alloc / 1048576.0);
    /* Source, destination, the intermediate pass; the weights are small. */
    return kl_device_fits(kl, (double)s->n * 8 + (double)fbytes + GUARD * 4.0,
                          "the picture's buffers", e);
}

/*
 * The host's side: the weights, the source pixels, the poison the
 * destination is filled with before each verified run, the buffers read
 * back, and the reference.
 */
static enum kl_status session_host(struct blur_session *s, const struct kl_blur_request *req,
                                   const struct kl_image *im, struct kl_err *e)
{
    size_t taps = 2 * (size_t)s->R + 1;
    s->w = malloc(taps * sizeof *s->w);
    s->w2 = malloc(taps * taps * sizeof *s->w2);
    s->src = malloc(s->n * 4);
    s->fill = malloc((s->n + GUARD) * 4);
    s->out = malloc((s->n + GUARD) * 4);
    s->best = req->output ? malloc(s->n * 4) : NULL;
    s->ref = malloc(s->n * (size_t)s->ch * sizeof *s->ref);
    if (!s->w || !s->w2 || !s->src || !s->fill || !s->out || !s->ref || (req->output && !s->best))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for a %d×%d image", s->W, s->H);
    weights(req->sigma, s->R, s->w, s->w2);
    to_pixels(s, im, 0);
    memset(s->fill, 0xAB, (s->n + GUARD) * 4); /* NaN-like for float, a fixed pattern for uchar4 */
    if (s->pix == KL_PIX_FLOAT)
        for (size_t i = 0; i < s->n + GUARD; i++)
            ((float *)s->fill)[i] = NAN;
    return reference(s, e);
}

/* The device's side: source, destination (with its guard), intermediate and weights. */
static enum kl_status session_device(struct blur_session *s, size_t fbytes, struct kl_err *e)
{
    struct kl_context *kl = s->kl;
    size_t taps = 2 * (size_t)s->R + 1;
    enum kl_status st;
    if ((st = kl->ops->alloc(kl->dev, s->n * 4, &s->dsrc, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, (s->n + GUARD) * 4, &s->ddst, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, fbytes, &s->dtmp, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, taps * 4, &s->dw, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, taps * taps * 4, &s->dw2, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, s->dsrc, s->src, s->n * 4, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, s->dw, s->w, taps * 4, e)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, s->dw2, s->w2, taps * taps * 4, e);
}

/* The picture's buffers, weights and reference on the host and the device. */
static enum kl_status session_make(struct blur_session *s, const struct kl_blur_request *req,
                                   const struct kl_image *im, int R, struct kl_err *e)
{
    enum kl_status st;
    s->pix = req->pixel;
    s->W = im->width, s->H = im->height, s->R = R;
    s->ch = req->pixel == KL_PIX_FLOAT ? 1 : 4;
    s->n = (size_t)s->W * (size_t)s->H;
    size_t fbytes = s->n * f_size(s);
    if ((st = session_fits(s, fbytes, e)) != KL_OK || (st = session_host(s, req, im, e)) != KL_OK)
        return st;
    return session_device(s, fbytes, e);
}

static void report_header(struct kl_report *rep, const struct blur_session *s,
                          const struct kl_blur_request *req)
{
    snprintf(rep->sizes, sizeof rep->sizes, "%d×%d sigma=%g R=%d %s", s->W, s->H, req->sigma, s->R,
             req->input ? req->input : "(generated)");
    snprintf(rep->size_json, sizeof rep->size_json,
             "\"width\": %d, \"height\": %d, \"sigma\": %g, \"radius\": %d, \"pixel\": \"%s\"",
             s->W, s->H, req->sigma, s->R, s->pix == KL_PIX_FLOAT ? "float" : "uchar4");
    rep->type_label = s->pix == KL_PIX_FLOAT ? "float" : "uchar4";
    rep->bytes = 2.0 * (double)s->n * 4; /* each pixel read once and written once */
    /* The direct separable filter: two passes of 2R+1 multiply-adds per channel. */
    rep->flops = 2.0 * 2 * (2 * s->R + 1) * s->ch * (double)s->n;
    rep->items = (double)s->n;
    rep->items_unit = "Mpix/s";
    snprintf(rep->reference, sizeof rep->reference,
             "separable in double on the host, clamped edges; %s",
             s->pix == KL_PIX_FLOAT ? "within 1e-5" : "within 1 level");
    if (req->input)
        snprintf(rep->inputs, sizeof rep->inputs, "the picture %.160s", req->input);
    else
        snprintf(
            rep->inputs, sizeof rep->inputs,
            "a generated test picture (gradient, checkerboard, lines, shapes, noise), seed %llu",
            req->seed);
}

/* --output: the kept rung's picture, every channel verified; the reference line says so. */
static enum kl_status output(struct blur_ladder *L, const struct kl_image *im,
                             struct kl_report *rep, struct kl_err *e)
{
    const struct kl_blur_request *req = L->req;
    int values[KL_MAX_PARAMS];
    unsigned mask;
    enum kl_status st;
    if (L->best < 0)
        return kl_fail(e, KL_ERR_VERIFY, "no verified rung of the ladder to write %s from",
                       req->output);
    const struct kl_blur_rung *r = kl_blur_rung_at(L->best);
    kl_params_resolve(r->name, r->params, req->params, req->nparams, values, &mask, e);
    if ((st = write_output(&L->s, im, r, values, req->output, e)) != KL_OK)
        return st;
    size_t used = strlen(rep->reference);
    snprintf(rep->reference + used, sizeof rep->reference - used, "; %s written from %s%s",
             req->output, r->name,
             L->s.pix == KL_PIX_FLOAT && im->channels > 1 ? ", every channel verified" : "");
    return KL_OK;
}

/*
 * The blur's radius: --radius, else 3σ rounded up; KL_ERR_ARG for a σ
 * below 0.001 (the Gaussian's 2σ² underflows the weights: a radius-0 blur
 * says it plainly) or a radius over 512.
 */
static enum kl_status blur_radius(const struct kl_blur_request *req, int *R, struct kl_err *e)
{
    if (!(req->sigma >= 1e-3) || !isfinite(req->sigma))
        return kl_fail(e, KL_ERR_ARG, "--sigma must be a number >= 0.001 (got %g)", req->sigma);
    *R = req->radius >= 0 ? req->radius : (int)ceil(3 * req->sigma);
    if (*R > 512)
        return kl_fail(e, KL_ERR_ARG,
                       "radius %d is more than 512: use a smaller --sigma or --radius", *R);
    return KL_OK;
}

/* A generated picture too large for the device is refused before it is drawn. */
static enum kl_status check_generated(const struct kl_context *kl,
                                      const struct kl_blur_request *req, struct kl_err *e)
{
    double fbytes_wanted = (double)req->width * req->height * (req->pixel == KL_PIX_FLOAT ? 4 : 16);
    if (!req->input && (fbytes_wanted > (double)kl->info.max_alloc ||
                        (double)req->width * req->height > (double)KL_IMAGE_MAX_PIXELS))
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "a %d×%d image needs %.1f MiB buffers, more than the device's largest "
                       "allocation (%.1f MiB)",
                       req->width, req->height, fbytes_wanted / 1048576.0,
                       kl->info.max_alloc / 1048576.0);
    return KL_OK;
}

enum kl_status kl_blur_ladder(struct kl_context *kl, const struct kl_blur_request *req,
                              struct kl_report *rep)
{
    struct kl_err *e = &kl->err;
    struct blur_ladder L = {.req = req, .s = {.kl = kl, .pix = req->pixel}, .best = -1};
    /* A parameter shared by many rungs does not ask for one the device cannot run at all. */
    struct kl_workload w = {.table = kl_blur_rungs(),
                            .kl = kl,
                            .type = KL_FLOAT,
                            .self = &L,
                            .named_is_users = 1,
                            .available = blur_available,
                            .describe = blur_describe,
                            .values = blur_values,
                            .check = blur_check,
                            .run = blur_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    const struct kl_rung_set set = {kl_blur_rungs(), req->users, req->nusers};
    int chosen[KL_MAX_RUNGS], nchosen;
    struct kl_image im = {0, 0, 0, NULL};
    enum kl_status st;
    int R = 0;

    if ((st = blur_radius(req, &R, e)) != KL_OK ||
        (st = kl_protocol_check(&req->protocol, e)) != KL_OK ||
        (st = kl_rungs_choose(&set, req->rungs, req->nrungs, req->params, req->nparams, chosen,
                              &nchosen, e)) != KL_OK ||
        (st = check_request(req, &set, chosen, nchosen, &L.out_rung, e)) != KL_OK ||
        (st = check_generated(kl, req, e)) != KL_OK || (st = load_input(req, &im, e)) != KL_OK)
        return st;
    /* The picture's size and radius first: the rungs' checks depend on them. */
    if ((st = session_make(&L.s, req, &im, R, e)) != KL_OK ||
        (st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        goto done;

    kl_ladder_report(rep, kl, "blur", KL_FLOAT, req->seed, &req->protocol);
    report_header(rep, &L.s, req);
    if ((st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0, nchosen + req->npeers, rep, e)) != KL_OK)
        goto done;
    for (int j = 0; j < req->npeers && st == KL_OK; j++)
        st = run_peer(&L.s, req->peers[j], &req->protocol, rep);
    if (st == KL_OK && req->output)
        st = output(&L, &im, rep, e);
done:
    kl_report_finish(rep);
    session_free(&L.s);
    kl_image_free(&im);
    return st;
}
