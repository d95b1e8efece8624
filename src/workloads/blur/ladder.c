/*
 * The blur ladder: the picture read or drawn, the rungs through the engine,
 * the user's kernels, the libraries' rows, and --output's picture written
 * from the chosen rung (every channel verified). The folder's other files
 * are named in blur/parts.h.
 */
#include "workloads/blur/parts.h"

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
        kl_blur_to_pixels(s, im, c);
        if ((st = kl_blur_reference(s, e)) != KL_OK)
            break;
        s->kl->ops->release(s->dimg); /* an image object holds the previous channel */
        s->dimg = NULL;
        if (!(planes[c] = malloc(s->n * 4)))
            st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
        else if ((st = s->kl->ops->write(s->kl->dev, s->dsrc, s->src, s->n * 4, e)) == KL_OK &&
                 (st = kl_blur_run_rung(s, r, values, &once, &res)) == KL_OK) {
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
    return kl_blur_runs_here(kl_blur_rung_at(i), &L->s, why, n);
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
    kl_blur_shape(kl_blur_rung_at(i), values, L->s.pix, L->s.R, L->s.W, L->s.H, &l);
    return kl_blur_check_rung(kl_blur_rung_at(i), values, &L->s, &l, e);
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
    enum kl_status st = kl_blur_run_rung(&L->s, kl_blur_rung_at(i), values, proto, res);
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
    return kl_blur_verify_and_time(&L->s, &p, proto, res);
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
    if ((st = kl_blur_session_make(&L.s, req, &im, R, e)) != KL_OK ||
        (st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        goto done;

    kl_ladder_report(rep, kl, "blur", KL_FLOAT, req->seed, &req->protocol);
    report_header(rep, &L.s, req);
    if ((st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0, nchosen + req->npeers, rep, e)) != KL_OK)
        goto done;
    for (int j = 0; j < req->npeers && st == KL_OK; j++)
        st = kl_blur_run_peer(&L.s, req->peers[j], &req->protocol, rep);
    if (st == KL_OK && req->output)
        st = output(&L, &im, rep, e);
done:
    kl_report_finish(rep);
    kl_blur_session_free(&L.s);
    kl_image_free(&im);
    return st;
}
