/*
 * The reduction ladder's driver: one rung's passes, built, run once,
 * verified and timed; the host rung; the user's kernels; the peers; the
 * entry.
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
#include "workloads/reduce/data.h"
#include "workloads/reduce/reduce.h"
#include "workloads/vecout.h"

#define MAX_PASSES 32 /* n < 2^31 halves at least once a pass (WG >= 2), or WG = 1: one pass */

/* The problem, its reference and its device buffers: what the engine's callbacks share. */
struct reduce {
    struct kl_context *kl;
    enum kl_type type;
    enum kl_reduce_op op;
    int n;
    double factor; /* the tolerance over the reference's scale, √N·‖x‖₂ (0: exact) */
    void *x;
    struct kl_buf *dx, *dcount; /* the input; the one-pass rungs' counter, kept at 0 */
    struct kl_vecout out;       /* the one result, after a guard band */
};

static const struct kl_reduce_rung *rung(int i)
{
    return kl_reduce_rung_at(i);
}

/* ---- the host rung: eight accumulators, so that eight chains run at once ---- */

#define HOST_REDUCE(NAME, TYPE, ACC, COMBINE)                                                      \
    static void NAME(const void *xv, size_t n, void *out)                                          \
    {                                                                                              \
        const TYPE *x = xv;                                                                        \
        ACC a[8];                                                                                  \
        size_t i = 0;                                                                              \
        for (int k = 0; k < 8; k++)                                                                \
            a[k] = (ACC)x[0]; /* x[0] met again below: the same minimum or maximum */              \
        for (; i + 8 <= n; i += 8)                                                                 \
            for (int k = 0; k < 8; k++)                                                            \
                a[k] = COMBINE(a[k], (ACC)x[i + k]);                                               \
        for (; i < n; i++)                                                                         \
            a[0] = COMBINE(a[0], (ACC)x[i]);                                                       \
        for (int k = 1; k < 8; k++)                                                                \
            a[0] = COMBINE(a[0], a[k]);                                                            \
        *(TYPE *)out = (TYPE)a[0];                                                                 \
    }
#define MIN(a, b) ((b) < (a) ? (b) : (a))
#define MAX(a, b) ((b) > (a) ? (b) : (a))
HOST_REDUCE(float_min, float, float, MIN)
HOST_REDUCE(float_max, float, float, MAX)
HOST_REDUCE(double_min, double, double, MIN)
HOST_REDUCE(double_max, double, double, MAX)
HOST_REDUCE(int_min, int32_t, int32_t, MIN)
HOST_REDUCE(int_max, int32_t, int32_t, MAX)
#undef MIN
#undef MAX

/* Sums: the same loop from 0. */
#define HOST_SUM(NAME, TYPE, ACC)                                                                  \
    static void NAME(const void *xv, size_t n, void *out)                                          \
    {                                                                                              \
        const TYPE *x = xv;                                                                        \
        ACC a[8] = {0};                                                                            \
        size_t i = 0;                                                                              \
        for (; i + 8 <= n; i += 8)                                                                 \
            for (int k = 0; k < 8; k++)                                                            \
                a[k] += (ACC)x[i + k];                                                             \
        for (; i < n; i++)                                                                         \
            a[0] += (ACC)x[i];                                                                     \
        for (int k = 1; k < 8; k++)                                                                \
            a[0] += a[k];                                                                          \
        *(TYPE *)out = (TYPE)a[0];                                                                 \
    }
HOST_SUM(float_sum, float, float)
HOST_SUM(double_sum, double, double)
HOST_SUM(int_sum, int32_t, uint32_t) /* wraps modulo 2^32 */

struct host_run {
    const struct reduce *p;
    void (*fn)(const void *, size_t, void *);
    void *out;
};

static enum kl_status host_once(void *arg, double *seconds, struct kl_err *e)
{
    struct host_run *h = arg;
    double t0 = kl_now();
    (void)e;
    h->fn(h->p->x, (size_t)h->p->n, h->out);
    *seconds = kl_now() - t0;
    return KL_OK;
}

static enum kl_status run_host(struct reduce *p, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    static void (*const fns[3][3])(const void *, size_t,
                                   void *) = {{float_sum, float_min, float_max},
                                              {double_sum, double_min, double_max},
                                              {int_sum, int_min, int_max}};
    int t = p->type == KL_FLOAT ? 0 : p->type == KL_DOUBLE ? 1 : 2;
    struct host_run h = {p, fns[t][p->op], p->out.host};
    struct kl_stats stats;
    double dummy;
    enum kl_status st = host_once(&h, &dummy, &p->kl->err);
    kl_vecout_judge(&p->out, p->out.host, p->factor, res);
    if (st != KL_OK || res->status != KL_RESULT_VERIFIED)
        return st;
    if ((st = kl_measure(NULL, proto, host_once, &h, &stats, &p->kl->err)) != KL_OK)
        return st;
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

/* ---- the device rungs ----------------------------------------------------- */

/* " -DKL_OP_SUM", and " -DKL_SUBGROUPS" where the device has them: every kernel's options. */
static void op_options(void *self, char *out, size_t n)
{
    struct reduce *p = self;
    static const char *const ops[] = {"SUM", "MIN", "MAX"};
    size_t used = strlen(out);
    snprintf(out + used, n - used, " -DKL_OP_%s%s", ops[p->op],
             p->kl->info.subgroups ? " -DKL_SUBGROUPS" : "");
}

/* The one-pass rungs' partial results, one per work-group, cleared (an atomic exchange reads
   the old value). */
static enum kl_status part_alloc(struct reduce *p, size_t groups, struct kl_buf **part)
{
    struct kl_context *kl = p->kl;
    size_t bytes = groups * kl_type_size(p->type);
    void *zero = calloc(groups, kl_type_size(p->type));
    enum kl_status st = zero ? kl->ops->alloc(kl->dev, bytes, part, &kl->err)
                             : kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if (st == KL_OK)
        st = kl->ops->write(kl->dev, *part, zero, bytes, &kl->err);
    free(zero);
    return st;
}

/* The interface's arguments, every rung's and the user's: x, y, part, count, n. */
static void set_args(const struct reduce *p, struct kl_launch *l, struct kl_buf *src,
                     struct kl_buf *dst, struct kl_buf *part, long m)
{
    l->nargs = 5;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = src}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = dst}};
    l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = part}};
    l->args[3] = (struct kl_arg){KL_ARG_BUF, {.buf = p->dcount}};
    l->args[4] = (struct kl_arg){KL_ARG_INT, {.i = (int)m}};
}

/* One pass's launch: src's m values into one per work-group of dst. */
static void pass_launch(const struct reduce *p, struct kl_launch *l, size_t wg, long groups,
                        struct kl_buf *src, struct kl_buf *dst, struct kl_buf *part, long m)
{
    kl_launch_1d(l, (size_t)groups, wg);
    set_args(p, l, src, dst, part, m);
}

static enum kl_status reduce_check(void *self, int i, const int *values, struct kl_err *e)
{
    struct reduce *p = self;
    const struct kl_reduce_rung *r = rung(i);
    struct kl_launch l = {.kl = p->kl};
    size_t wg;
    if (!r->file)
        return KL_OK;
    wg = (size_t)kl_param_value(r->params, values, "WG");
    pass_launch(p, &l, wg, 1, NULL, NULL, NULL, 1);
    enum kl_status st = kl_launch_check(&l, r->name, e);
    if (st == KL_OK && !r->one_pass && wg * r->per < 2)
        return kl_fail(e, KL_ERR_ARG,
                       "rung %s: WG=1 leaves as many partial results as values, so its passes "
                       "would never end: WG must be at least 2",
                       r->name);
    if (st == KL_OK && wg * kl_type_size(p->type) > p->kl->info.local_mem)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: needs %zu bytes of local memory, the device has %llu", r->name,
                       wg * kl_type_size(p->type), (unsigned long long)p->kl->info.local_mem);
    return st;
}

/* A device rung's launches and the buffers they pass their partial results through. */
struct passes {
    struct kl_launch launch[MAX_PASSES], *order[MAX_PASSES];
    int count;
    long first;                   /* the first pass's work-groups */
    struct kl_buf *tmp[2], *part; /* partial results: two buffers taking turns; one-pass's */
};

/* Rung r's passes over the input, each pass's groups writing one value each, until one is
   left (the last pass, or a one-pass rung's only one, writes the output). */
static enum kl_status plan_passes(struct reduce *p, const struct kl_reduce_rung *r,
                                  const int *values, struct kl_kernel *kernel, struct passes *q)
{
    struct kl_context *kl = p->kl;
    size_t wg = (size_t)kl_param_value(r->params, values, "WG"), es = kl_type_size(p->type);
    long m = p->n;
    enum kl_status st;
    q->first = kl_reduce_groups(r, values, m, kl->info.compute_units);
    if (!r->one_pass && q->first > 1 &&
        ((st = kl->ops->alloc(kl->dev, (size_t)q->first * es, &q->tmp[0], &kl->err)) != KL_OK ||
         (st = kl->ops->alloc(kl->dev, (size_t)q->first * es, &q->tmp[1], &kl->err)) != KL_OK))
        return st;
    if ((st = part_alloc(p, (size_t)q->first, &q->part)) != KL_OK)
        return st;
    for (struct kl_buf *src = p->dx; q->count == 0 || m > 1; q->count++) {
        if (q->count == MAX_PASSES) /* not reached: every pass at least halves m */
            return kl_fail(&kl->err, KL_ERR_ARG, "rung %s: more than %d passes", r->name,
                           MAX_PASSES);
        long groups = kl_reduce_groups(r, values, m, kl->info.compute_units);
        struct kl_buf *dst = groups == 1 || r->one_pass ? p->out.dev : q->tmp[q->count % 2];
        struct kl_launch *l = &q->launch[q->count];
        *l = (struct kl_launch){.kl = kl, .kernel = kernel};
        pass_launch(p, l, wg, groups, src, dst, q->part, m);
        if ((st = kl_launch_check(l, r->name, &kl->err)) != KL_OK)
            return st;
        q->order[q->count] = l;
        src = dst;
        m = r->one_pass ? 1 : groups;
    }
    return KL_OK;
}

/* A device rung: built, its passes planned, run and verified, then timed as one. */
static enum kl_status run_device(struct reduce *p, const struct kl_reduce_rung *r,
                                 const int *values, const struct kl_protocol *proto,
                                 struct kl_result *res)
{
    struct kl_context *kl = p->kl;
    struct passes *q = calloc(1, sizeof *q);
    struct kl_kernel *kernel;
    enum kl_status st;
    if (!q)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    kl_params_options(r->params, values, p->type, res->options, sizeof res->options);
    op_options(p, res->options, sizeof res->options);
    if ((st = kl_kernel_get(kl, r->file, "reduce", res->options, &kernel, &res->build_s)) ==
            KL_OK &&
        (st = plan_passes(p, r, values, kernel, q)) == KL_OK) {
        struct kl_launch_pair pair = {
            .a = q->order[0], .more = q->order + 1, .nmore = q->count - 1};
        st = kl_vecout_run_twice(&p->out, &pair, proto, p->factor, res);
    }
    if (st == KL_OK && res->status == KL_RESULT_VERIFIED && q->count > 1)
        snprintf(res->note + strlen(res->note), sizeof res->note - strlen(res->note),
                 "; %d launches (%ld groups, then fewer), their kernel times added", q->count,
                 q->first);
    kl->ops->release(q->tmp[0]);
    kl->ops->release(q->tmp[1]);
    kl->ops->release(q->part);
    free(q);
    return st;
}

static enum kl_status reduce_run(void *self, int i, const int *values,
                                 const struct kl_protocol *proto, struct kl_result *res)
{
    struct reduce *p = self;
    return rung(i)->file ? run_device(p, rung(i), values, proto, res) : run_host(p, proto, res);
}

static int reduce_available(void *self, int i, char *why, size_t n)
{
    struct reduce *p = self;
    if (rung(i)->needs_subgroups && !p->kl->info.subgroups) {
        snprintf(why, n, "the device has no sub-groups (cl_khr_subgroups)");
        return 0;
    }
    return 1;
}

/* Rung i's values: its preset for this device where --param sets none of its own. */
static enum kl_status reduce_values(void *self, int i, const struct kl_ladder_args *a, int *values,
                                    int *users, char *config, size_t n, struct kl_err *e)
{
    const struct reduce *p = self;
    const struct kl_reduce_rung *r = rung(i);
    const char *items[KL_MAX_PARAMS];
    char buf[256];
    unsigned mask = 0;
    enum kl_status st;
    *users = a->nrungs > 0;
    if (r->preset.cc && r->preset.cc == p->kl->info.cc_major * 10 + p->kl->info.cc_minor &&
        !kl_params_mention(a->params, a->nparams, r->params)) {
        int nitems = kl_tuned_items(r->preset.params, buf, sizeof buf, items, KL_MAX_PARAMS);
        snprintf(config, n, "preset %s", r->preset.params);
        return kl_params_resolve(r->name, r->params, items, nitems, values, &mask, e);
    }
    st = kl_params_resolve(r->name, r->params, a->params, a->nparams, values, &mask, e);
    *users |= mask != 0;
    return st;
}

/* ---- the user's kernels: one launch that leaves the result in y[0] --------- */

static long long reduce_size(void *self, int i)
{
    (void)i;
    return ((struct reduce *)self)->n;
}

/* The user's launch (its geometry is the kernel's own): the output and part come with its run. */
static void reduce_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    const struct reduce *p = self;
    (void)u;
    set_args(p, l, p->dx, p->out.dev, NULL, p->n);
}

static enum kl_status reduce_user_run(void *self, struct kl_launch *l,
                                      const struct kl_protocol *proto, struct kl_result *res)
{
    struct reduce *p = self;
    struct kl_context *kl = p->kl;
    size_t groups = 1;
    struct kl_buf *part = NULL;
    for (int d = 0; d < l->dims; d++)
        groups *= l->global[d] / l->local[d];
    enum kl_status st = part_alloc(p, groups, &part);
    if (st != KL_OK)
        return st;
    l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = part}};
    struct kl_launch_pair pair = {.a = l};
    st = kl_vecout_run_twice(&p->out, &pair, proto, p->factor, res);
    kl->ops->release(part);
    return st;
}

static const struct kl_user_iface user_iface = {
    .signature = "reduce(global const R *x, global R *y, global R *part, global uint *count, "
                 "int n)",
    .nsizes = 1,
    .size_names = {"N"},
    .size = reduce_size,
    .options = op_options,
    .args = reduce_args,
    .run = reduce_user_run,
};

/* ---- the peers: the same data, the same verdict ----------------------------- */

static enum kl_status run_peer(void *self, const char *peer, const struct kl_protocol *proto,
                               struct kl_report *rep)
{
    struct reduce *p = self;
    struct kl_context *kl = p->kl;
    char what[256];
    struct kl_stats stats;
    struct kl_err e;
    struct kl_reduce_problem problem = {p->type, (int)p->op, p->n, p->x};
    struct kl_result *res = kl_peer_result(rep, peer, &kl->err);
    if (!res)
        return KL_ERR_NO_MEMORY;
    enum kl_status st =
        kl_peer_reduce(kl, peer, &problem, proto, p->out.host, &stats, what, sizeof what, &e);
    kl_vecout_peer(&p->out, st, &e, what, &stats, p->factor, res);
    return KL_OK;
}

/* ---- the entry -------------------------------------------------------------- */

/* The input, its reference, and the device's copy and counter. */
static enum kl_status reduce_data(struct reduce *p, const struct kl_reduce_request *req,
                                  struct kl_err *e)
{
    struct kl_context *kl = p->kl;
    size_t n = (size_t)p->n, es = kl_type_size(p->type);
    const uint32_t zero = 0;
    enum kl_status st;
    if ((st = kl_host_fits((double)n * es, "the input's elements", e)) != KL_OK)
        return st;
    if (!(p->x = malloc(n * es)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for %zu elements", n);
    kl_reduce_fill(p->type, req->data, p->x, n, req->seed);
    if ((st = kl_vecout_alloc(&p->out, e)) != KL_OK)
        return st;
    p->out.ref[0] = kl_reduce_reference(p->type, p->op, p->x, n, &p->out.scale[0]);
    if ((st = kl->ops->alloc(kl->dev, n * es, &p->dx, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, sizeof zero, &p->dcount, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, p->dcount, &zero, sizeof zero, e)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, p->dx, p->x, n * es, e);
}

static void reduce_free(struct reduce *p)
{
    struct kl_context *kl = p->kl;
    kl->ops->release(p->dx);
    kl->ops->release(p->dcount);
    kl_vecout_free(&p->out);
    free(p->x);
}

/* A request the kernels can take, refused at once with the reason otherwise. */
static enum kl_status check_request(struct kl_context *kl, const struct kl_reduce_request *req,
                                    struct kl_err *e)
{
    size_t n = (size_t)req->n, es = kl_type_size(req->type);
    if (req->type != KL_FLOAT && req->type != KL_DOUBLE && req->type != KL_INT)
        return kl_fail(e, KL_ERR_ARG, "reduce runs in float, double or int, not --type %s",
                       kl_type_name(req->type));
    if (req->type == KL_DOUBLE && !kl->info.fp64)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "device %s has no double precision", kl->info.name);
    if (req->n < 1)
        return kl_fail(e, KL_ERR_ARG, "--size %d: reduce takes 1 to 2^31 - 1 elements", req->n);
    if (n * es > kl->info.max_alloc)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "%zu elements need %.1f MiB, more than the device's largest allocation "
                       "(%.1f MiB)",
                       n, n * es / 1048576.0, kl->info.max_alloc / 1048576.0);
    /* the input, and a multi-pass rung's partial results (at most half the input, twice) */
    enum kl_status st = kl_device_fits(kl, 2.0 * n * es, "the input and its partial results", e);
    if (st != KL_OK || (st = kl_peers_check("reduce", req->peers, req->npeers, e)) != KL_OK)
        return st;
    return kl_protocol_check(&req->protocol, e);
}

enum kl_status kl_reduce_ladder(struct kl_context *kl, const struct kl_reduce_request *req,
                                struct kl_report *rep)
{
    struct kl_err *e = &kl->err;
    struct reduce p = {.kl = kl,
                       .type = req->type,
                       .op = req->op,
                       .n = req->n,
                       .factor = kl_reduce_tolerance(req->type, req->op)};
    /* A rung named with --rung is the user's: its misfit is an error, not a skipped row. */
    struct kl_workload w = {.table = kl_reduce_rungs(),
                            .kl = kl,
                            .type = req->type,
                            .self = &p,
                            .named_is_users = 1,
                            .available = reduce_available,
                            .values = reduce_values,
                            .check = reduce_check,
                            .run = reduce_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    int chosen[KL_MAX_RUNGS], nchosen;
    char text[128];
    enum kl_status st;
    if ((st = check_request(kl, req, e)) != KL_OK ||
        (st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        return st;
    kl_vecout_init(&p.out, kl, req->type, 1);
    if ((st = reduce_data(&p, req, e)) != KL_OK)
        goto done;

    kl_ladder_report(rep, kl, "reduce", req->type, req->seed, &req->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "N=%d op=%s data=%s", req->n,
             kl_reduce_op_name(req->op), req->data == KL_REDUCE_SKEWED ? "skewed" : "random");
    snprintf(rep->size_json, sizeof rep->size_json, "\"N\": %d, \"op\": \"%s\", \"data\": \"%s\"",
             req->n, kl_reduce_op_name(req->op),
             req->data == KL_REDUCE_SKEWED ? "skewed" : "random");
    /* one operation per element, after reading it once */
    rep->flops = (double)req->n;
    rep->bytes = (double)req->n * kl_type_size(req->type);
    rep->read_roof = 1; /* read once, nothing written: the read ceiling is its memory roof */
    kl_reduce_reference_text(req->type, req->op, rep->reference, sizeof rep->reference);
    kl_reduce_inputs_text(req->type, req->data, text, sizeof text);
    snprintf(rep->inputs, sizeof rep->inputs, "%s, seed %llu", text, req->seed);
    if ((st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0,
                              nchosen + req->npeers * kl_cache_passes(&req->protocol), rep, e)) !=
        KL_OK)
        goto done;
    st = kl_ladder_peers(&req->protocol, req->peers, req->npeers, run_peer, &p, rep);
done:
    kl_report_finish(rep);
    reduce_free(&p);
    return st;
}
