/*
 * One blur rung: the geometry and local memory its values give, what rules
 * it out on this device (the device, the pixel type, the weights' error
 * bound), its build options and launches (one pass or two), and its run:
 * once on a poisoned output, judged against the reference, then timed.
 */
#include "workloads/blur/parts.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/context.h"
#include "core/measure.h"
#include "workloads/blur/bound.h"

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
    size_t R2 = 2 * (size_t)s->R, f = kl_blur_f_size(s), RA2 = 2 * (((size_t)s->R + 3) / 4 * 4);
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

/* ---- a rung against the device ----------------------------------------------- */

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
        (bound = r->tensor ? kl_blur_mma_bound(s->w, s->R) : kl_blur_half2_bound(s->w, s->R)) > 0.5)
        snprintf(why, n,
                 "rung %s: at radius %d with these weights its half-precision arithmetic is "
                 "proved within %.2f of the exact blur, more than the 0.5 that keeps every output "
                 "within one level after rounding",
                 r->name, s->R, bound);
    else if (r->precision == KL_PREC_3XFP16 &&
             (bound = kl_blur_split_bound(s->w, s->R, s->peak)) > KL_BLUR_FLOAT_TOLERANCE)
        snprintf(why, n,
                 "rung %s: at radius %d with these weights and values up to %g its split "
                 "arithmetic is proved within %.2g of the exact blur, more than the float "
                 "tolerance %g",
                 r->name, s->R, s->peak, bound, KL_BLUR_FLOAT_TOLERANCE);
    else
        return 1;
    return 0;
}

/*
 * What the device, the pixel type or the weights rule out whatever a rung's values (so a
 * skipped row even where --param set one of them); 0 and why if so.
 */
int kl_blur_runs_here(const struct kl_blur_rung *r, const struct blur_session *s, char *why,
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

enum kl_status kl_blur_check_rung(const struct kl_blur_rung *r, const int *v,
                                  const struct blur_session *s, const struct kl_launch *l,
                                  struct kl_err *e)
{
    const struct kl_device_info *d = &s->kl->info;
    struct geometry g = geometry_of(r, v);
    size_t lb = local_bytes(r, v, s, g.bx, g.by, px_of(r, v, s->pix, s->R));
    size_t w2 = (2 * (size_t)s->R + 1) * (2 * (size_t)s->R + 1) * 4;
    char why[512];
    if (!kl_blur_runs_here(r, s, why, sizeof why))
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
void kl_blur_shape(const struct kl_blur_rung *r, const int *v, enum kl_pixel pix, int R, int W,
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

/* ---- its run ----------------------------------------------------------------- */

/* Runs p once on a poisoned output, judges it against the reference, then times p. */
enum kl_status kl_blur_verify_and_time(struct blur_session *s, struct kl_launch_pair *p,
                                       const struct kl_protocol *proto, struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    struct kl_err *e = &kl->err;
    struct kl_stats stats;
    enum kl_status st;
    double dummy;
    if ((st = kl->ops->write(kl->dev, s->ddst, s->fill, (s->n + KL_BLUR_GUARD) * 4, e)) != KL_OK ||
        (st = kl_launch_pair_timed(p, &dummy, e)) != KL_OK ||
        (st = kl->ops->read(kl->dev, s->ddst, s->out, (s->n + KL_BLUR_GUARD) * 4, e)) != KL_OK)
        return st;
    if (!kl_blur_judge(s, res)) {
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

enum kl_status kl_blur_run_rung(struct blur_session *s, const struct kl_blur_rung *r,
                                const int *values, const struct kl_protocol *proto,
                                struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    struct kl_err *e = &kl->err;
    struct kl_launch l = {.kl = kl}, l2 = {.kl = kl};
    struct kl_launch_pair p = {.a = &l};
    enum kl_status st;

    kl_blur_shape(r, values, s->pix, s->R, s->W, s->H, &l);
    if ((st = kl_blur_check_rung(r, values, s, &l, e)) != KL_OK)
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
    return kl_blur_verify_and_time(s, &p, proto, res);
}
