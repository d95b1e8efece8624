/*
 * The histogram ladder's driver: the bytes and their counts; one rung's
 * launches (the bins cleared, then counted), built, run once, verified and
 * timed, then verified again; the host rung; the user's kernels; the peers;
 * the entry.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ladder.h"
#include "core/launch.h"
#include "core/measure.h"
#include "core/util.h"
#include "peers/peers.h"
#include "tune/cache.h"
#include "workloads/histogram/histogram.h"
#include "workloads/vecout.h"

#define SKEWED_VALUE 42   /* the byte that skewed data is 90% of */
#define CONSTANT_VALUE 90 /* every byte of constant data */
#define CLEAR_WG 64       /* hist_clear's work-group size */

/* The problem, its reference and its device buffers: what the engine's callbacks share. */
struct histogram {
    struct kl_context *kl;
    int n, bins;
    unsigned char *x;
    struct kl_buf *dx;
    struct kl_vecout out; /* the bins' counts (uint32, as int), after a guard band */
};

static const struct kl_histogram_rung *rung(int i)
{
    return kl_histogram_rung_at(i);
}

/* ---- the bytes and their counts -------------------------------------------- */

static void fill(unsigned char *x, size_t n, enum kl_histogram_data data, unsigned long long seed)
{
    struct kl_rng rng;
    kl_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = kl_rng_next(&rng);
        if (data == KL_HIST_CONSTANT)
            x[i] = CONSTANT_VALUE;
        else if (data == KL_HIST_SKEWED && (r >> 32) % 10 != 0)
            x[i] = SKEWED_VALUE;
        else
            x[i] = (unsigned char)(r >> 56);
    }
}

/* The host rung and the reference alike: byte v counts in bin v·bins/256. */
static void count(const unsigned char *x, size_t n, int bins, uint32_t *out)
{
    uint32_t c[256] = {0};
    for (size_t i = 0; i < n; i++)
        c[x[i]]++;
    memset(out, 0, (size_t)bins * sizeof *out);
    for (int v = 0; v < 256; v++)
        out[v * bins / 256] += c[v];
}

/* A verified row's note: counts match exactly or not at all. */
static void exact_note(const struct histogram *p, struct kl_result *res)
{
    if (res->status == KL_RESULT_VERIFIED)
        snprintf(res->note, sizeof res->note, "%d bins match the reference exactly", p->bins);
}

/* Checks got against the counts into res. */
static void judge(const struct histogram *p, const void *got, struct kl_result *res)
{
    kl_vecout_judge(&p->out, got, 0.0, res);
    exact_note(p, res);
}

/* ---- the host rung ------------------------------------------------------------ */

static enum kl_status host_once(void *arg, double *seconds, struct kl_err *e)
{
    struct histogram *p = arg;
    double t0 = kl_now();
    (void)e;
    count(p->x, (size_t)p->n, p->bins, p->out.host);
    *seconds = kl_now() - t0;
    return KL_OK;
}

static enum kl_status run_host(struct histogram *p, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct kl_stats stats;
    double dummy;
    enum kl_status st = host_once(p, &dummy, &p->kl->err);
    judge(p, p->out.host, res);
    if (st != KL_OK || res->status != KL_RESULT_VERIFIED)
        return st;
    if ((st = kl_measure(NULL, proto, host_once, p, &stats, &p->kl->err)) != KL_OK)
        return st;
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

/* ---- the device rungs ------------------------------------------------------- */

/* " -DBINS=N": every kernel's, the user's too. */
static void bins_option(void *self, char *out, size_t n)
{
    struct histogram *p = self;
    size_t used = strlen(out);
    snprintf(out + used, n - used, " -DBINS=%d", p->bins);
}

/* The interface's arguments, every rung's and the user's: x, bins, n. */
static void set_args(const struct histogram *p, struct kl_launch *l)
{
    l->nargs = 3;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = p->dx}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = p->out.dev}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = p->n}};
}

/* hist_clear from file (built with options): the bins set to 0 before the count. */
static enum kl_status clear_launch(struct histogram *p, struct kl_launch *l, const char *file,
                                   const char *options, double *build_s)
{
    double seconds = 0;
    enum kl_status st = kl_kernel_get(p->kl, file, "hist_clear", options, &l->kernel, &seconds);
    *build_s += seconds;
    kl_launch_1d(l, (size_t)((p->bins + CLEAR_WG - 1) / CLEAR_WG), CLEAR_WG);
    l->nargs = 1;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = p->out.dev}};
    return st;
}

/* The launches verified, timed and verified again (kl_vecout_run_twice); the note exact. */
static enum kl_status run_verified(struct histogram *p, struct kl_launch_pair *pair,
                                   const struct kl_protocol *proto, struct kl_result *res)
{
    enum kl_status st = kl_vecout_run_twice(&p->out, pair, proto, 0.0, res);
    exact_note(p, res);
    return st;
}

static enum kl_status run_device(struct histogram *p, const struct kl_histogram_rung *r,
                                 const int *values, const struct kl_protocol *proto,
                                 struct kl_result *res)
{
    struct kl_context *kl = p->kl;
    struct kl_launch clear = {.kl = kl}, count_launch = {.kl = kl};
    long groups = kl_histogram_groups(r, values, p->n, kl->info.compute_units);
    kl_params_options(r->params, values, KL_UCHAR, res->options, sizeof res->options);
    bins_option(p, res->options, sizeof res->options);
    enum kl_status st = clear_launch(p, &clear, r->file, res->options, &res->build_s);
    double seconds = 0;
    if (st == KL_OK)
        st = kl_kernel_get(kl, r->file, "histogram", res->options, &count_launch.kernel, &seconds);
    res->build_s += seconds;
    if (st != KL_OK)
        return st;
    kl_launch_1d(&count_launch, (size_t)groups, (size_t)kl_param_value(r->params, values, "WG"));
    set_args(p, &count_launch);
    if ((st = kl_launch_check(&clear, r->name, &kl->err)) != KL_OK ||
        (st = kl_launch_check(&count_launch, r->name, &kl->err)) != KL_OK)
        return st;
    struct kl_launch_pair pair = {.a = &clear, .b = &count_launch};
    st = run_verified(p, &pair, proto, res);
    if (st == KL_OK && res->status == KL_RESULT_VERIFIED)
        snprintf(res->note + strlen(res->note), sizeof res->note - strlen(res->note),
                 "; 2 launches (the bins cleared, then the count by %ld work-group%s), their "
                 "kernel times added",
                 groups, groups == 1 ? "" : "s");
    return st;
}

static enum kl_status histogram_run(void *self, int i, const int *values,
                                    const struct kl_protocol *proto, struct kl_result *res)
{
    struct histogram *p = self;
    return rung(i)->file ? run_device(p, rung(i), values, proto, res) : run_host(p, proto, res);
}

static enum kl_status histogram_check(void *self, int i, const int *values, struct kl_err *e)
{
    struct histogram *p = self;
    const struct kl_histogram_rung *r = rung(i);
    struct kl_launch l = {.kl = p->kl};
    if (!r->file)
        return KL_OK;
    long wg = kl_param_value(r->params, values, "WG");
    kl_launch_1d(&l, 1, (size_t)wg);
    enum kl_status st = kl_launch_check(&l, r->name, e);
    /* the resident rungs' copies: one histogram of bins + 1 counters per 32 work-items */
    unsigned long long local = 4ull * (unsigned long long)(wg < 32 ? 1 : wg / 32) * 257;
    if (st == KL_OK && r->geometry == KL_HIST_RESIDENT && local > p->kl->info.local_mem)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: needs up to %llu bytes of local memory, the device has %llu",
                       r->name, local, (unsigned long long)p->kl->info.local_mem);
    return st;
}

/* ---- the user's kernels: one launch, the bins cleared before it -------------- */

static long long histogram_size(void *self, int i)
{
    (void)i;
    return ((struct histogram *)self)->n;
}

static void user_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    (void)u;
    set_args(self, l);
}

/* The user's launch after rung 01's hist_clear. */
static enum kl_status user_run(void *self, struct kl_launch *l, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct histogram *p = self;
    struct kl_launch clear = {.kl = p->kl};
    char options[256] = "";
    kl_params_options(NULL, NULL, KL_UCHAR, options, sizeof options);
    bins_option(p, options, sizeof options);
    enum kl_status st = clear_launch(p, &clear, rung(1)->file, options, &res->build_s);
    if (st != KL_OK)
        return st;
    struct kl_launch_pair pair = {.a = &clear, .b = l};
    return run_verified(p, &pair, proto, res);
}

static const struct kl_user_iface user_iface = {
    .signature = "histogram(global const uchar *x, global uint *bins, int n)",
    .nsizes = 1,
    .size_names = {"N"},
    .size = histogram_size,
    .options = bins_option,
    .args = user_args,
    .run = user_run,
};

/* ---- the peers: the same bytes, the same verdict ----------------------------- */

static enum kl_status run_peer(void *self, const char *peer, const struct kl_protocol *proto,
                               struct kl_report *rep)
{
    struct histogram *p = self;
    struct kl_context *kl = p->kl;
    char what[256];
    struct kl_stats stats;
    struct kl_err e;
    struct kl_histogram_problem problem = {p->n, p->bins, p->x};
    struct kl_result *res = kl_peer_result(rep, peer, &kl->err);
    if (!res)
        return KL_ERR_NO_MEMORY;
    enum kl_status st =
        kl_peer_histogram(kl, peer, &problem, proto, p->out.host, &stats, what, sizeof what, &e);
    kl_vecout_peer(&p->out, st, &e, what, &stats, 0.0, res);
    exact_note(p, res);
    return KL_OK;
}

/* ---- the entry -------------------------------------------------------------- */

/* The bytes, their counts (the reference), and the device's copy. */
static enum kl_status histogram_data(struct histogram *p, const struct kl_histogram_request *req,
                                     struct kl_err *e)
{
    struct kl_context *kl = p->kl;
    size_t n = (size_t)p->n;
    uint32_t counts[256];
    enum kl_status st;
    if ((st = kl_host_fits((double)n, "the bytes", e)) != KL_OK)
        return st;
    if (!(p->x = malloc(n)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for %zu bytes", n);
    fill(p->x, n, req->data, req->seed);
    if ((st = kl_vecout_alloc(&p->out, e)) != KL_OK)
        return st;
    count(p->x, n, p->bins, counts);
    for (int b = 0; b < p->bins; b++) {
        p->out.ref[b] = counts[b];
        p->out.scale[b] = 0;
    }
    if ((st = kl->ops->alloc(kl->dev, n, &p->dx, e)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, p->dx, p->x, n, e);
}

static void histogram_free(struct histogram *p)
{
    p->kl->ops->release(p->dx);
    kl_vecout_free(&p->out);
    free(p->x);
}

/* A request the kernels can take, refused at once with the reason otherwise. */
static enum kl_status check_request(struct kl_context *kl, const struct kl_histogram_request *req,
                                    struct kl_err *e)
{
    if (req->n < 1)
        return kl_fail(e, KL_ERR_ARG, "--size %d: histogram takes 1 to 2^31 - 1 bytes", req->n);
    if (req->bins < 2 || req->bins > 256)
        return kl_fail(e, KL_ERR_ARG, "--bins %d: a histogram of bytes has 2 to 256 bins",
                       req->bins);
    if ((size_t)req->n > kl->info.max_alloc)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "%d bytes are more than the device's largest allocation (%.1f MiB)", req->n,
                       kl->info.max_alloc / 1048576.0);
    enum kl_status st = kl_device_fits(kl, (double)req->n, "the bytes", e);
    if (st != KL_OK || (st = kl_peers_check("histogram", req->peers, req->npeers, e)) != KL_OK)
        return st;
    return kl_protocol_check(&req->protocol, e);
}

static const char *const data_names[] = {"uniform", "skewed", "constant"};

/* The report's sizes and counts: n bytes read, one count each. */
static void histogram_report(struct kl_report *rep, struct kl_context *kl,
                             const struct kl_histogram_request *req)
{
    kl_ladder_report(rep, kl, "histogram", KL_UCHAR, req->seed, &req->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "N=%d bins=%d data=%s", req->n, req->bins,
             data_names[req->data]);
    snprintf(rep->size_json, sizeof rep->size_json, "\"N\": %d, \"bins\": %d, \"data\": \"%s\"",
             req->n, req->bins, data_names[req->data]);
    rep->flops = (double)req->n;
    rep->bytes = (double)req->n;
    rep->read_roof = 1; /* read once, a few counters written: the read ceiling is its roof */
    snprintf(rep->reference, sizeof rep->reference,
             "counts on the host, exactly (byte v in bin v*bins/256)");
    if (req->data == KL_HIST_SKEWED)
        snprintf(rep->inputs, sizeof rep->inputs,
                 "x 90 %% the byte %d, the rest uniform, seed %llu", SKEWED_VALUE, req->seed);
    else if (req->data == KL_HIST_CONSTANT)
        snprintf(rep->inputs, sizeof rep->inputs, "x every byte %d, seed %llu", CONSTANT_VALUE,
                 req->seed);
    else
        snprintf(rep->inputs, sizeof rep->inputs, "x uniform bytes, seed %llu", req->seed);
}

enum kl_status kl_histogram_ladder(struct kl_context *kl, const struct kl_histogram_request *req,
                                   struct kl_report *rep)
{
    struct kl_err *e = &kl->err;
    struct histogram p = {.kl = kl, .n = req->n, .bins = req->bins};
    /* A rung named with --rung is the user's: its misfit is an error, not a skipped row. */
    struct kl_workload w = {.table = kl_histogram_rungs(),
                            .kl = kl,
                            .type = KL_UCHAR,
                            .self = &p,
                            .named_is_users = 1,
                            .check = histogram_check,
                            .run = histogram_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    int chosen[KL_MAX_RUNGS], nchosen;
    enum kl_status st;
    if ((st = check_request(kl, req, e)) != KL_OK ||
        (st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        return st;
    kl_vecout_init(&p.out, kl, KL_INT, (size_t)req->bins);
    if ((st = histogram_data(&p, req, e)) != KL_OK)
        goto done;
    histogram_report(rep, kl, req);
    if ((st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0,
                              nchosen + req->npeers * kl_cache_passes(&req->protocol), rep, e)) !=
        KL_OK)
        goto done;
    st = kl_ladder_peers(&req->protocol, req->peers, req->npeers, run_peer, &p, rep);
done:
    kl_report_finish(rep);
    histogram_free(&p);
    return st;
}
