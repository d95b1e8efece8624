/*
 * Weighted row dot workload (seed 000): the rung table, the data, the
 * reference in double and the ladder driver.
 */
#include "workloads/rowdot/rowdot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ladder.h"
#include "core/launch.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/util.h"
#include "core/verify.h"
#include "workloads/vecout.h"

/* clang-format off */
#define P_WG(d)  {"WG", d, 1, 1024, 1, 0, "work-group size"}
#define P_WG2(d) {"WG", d, 1, 1024, 1, 1, "work-group size"}
/* clang-format on */

static const struct kl_rowdot_rung rungs[] = {
    {.name = "01_naive",
     .summary = "seed 000's kernel: one work-item per row, each walking its whole row",
     .file = "opencl/rowdot/01_naive.cl",
     .geometry = KL_RD_ITEM_PER_ROW,
     .params = {P_WG(64)}},
    {.name = "02_local_v",
     .summary = "the seed's optimisation #1: v staged in local memory, in chunks of VC for any D",
     .file = "opencl/rowdot/02_local_v.cl",
     .geometry = KL_RD_ITEM_PER_ROW,
     .local_vc = 1,
     .params = {P_WG(64), {"VC", 1024, 1, 1 << 16, 1, 0, "v chunk held in local memory"}}},
    {.name = "03_group_row",
     .summary = "the seed's optimisation #2, fixed: a work-group per row, coalesced reads, "
                "partial sums initialised and combined after a barrier",
     .file = "opencl/rowdot/03_group_row.cl",
     .geometry = KL_RD_GROUP_PER_ROW,
     .local_wg = 1,
     .params = {P_WG(64)}},
    {.name = "04_group_vec4",
     .summary = "float4 loads and a tree reduction in local memory",
     .file = "opencl/rowdot/04_group_vec4.cl",
     .geometry = KL_RD_GROUP_PER_ROW,
     .local_wg = 1,
     .params = {P_WG2(256)}},
    {.name = "05_subgroup",
     .summary = "sub-group reductions (cl_khr_subgroups) instead of most local-memory steps",
     .file = "opencl/rowdot/05_subgroup.cl",
     .geometry = KL_RD_GROUP_PER_ROW,
     .local_wg = 1,
     .needs_subgroups = 1,
     .params = {P_WG2(256)}},
    {.name = "06_rows_per_group",
     .summary = "for short rows: RPG rows per work-group, a team of WG/RPG work-items each",
     .file = "opencl/rowdot/06_rows_per_group.cl",
     .geometry = KL_RD_ROWS_PER_GROUP,
     .local_wg = 1,
     .params = {P_WG2(256), {"RPG", 8, 1, 1024, 1, 1, "rows per work-group"}}},
};
#define RUNG_COUNT ((int)(sizeof rungs / sizeof *rungs))

KL_RUNG_TABLE_FILES(rowdot, struct kl_rowdot_rung, rungs, NULL);

#define PARAM(name) ((size_t)kl_param_value(r->params, v, name))

static void shape_of(const struct kl_rowdot_rung *r, const int *v, int Y, struct kl_launch *l)
{
    size_t wg = PARAM("WG");
    l->dims = 1;
    l->local[0] = wg;
    l->local[1] = l->local[2] = l->global[1] = l->global[2] = 1;
    switch (r->geometry) {
    case KL_RD_ITEM_PER_ROW: l->global[0] = kl_round_up((size_t)Y, wg); break;
    case KL_RD_GROUP_PER_ROW: l->global[0] = (size_t)Y * wg; break;
    case KL_RD_ROWS_PER_GROUP: l->global[0] = ((size_t)Y + PARAM("RPG") - 1) / PARAM("RPG") * wg;
    }
}

/* Limits beyond the work-group: local memory, RPG <= WG. */
static enum kl_status check_rung(struct kl_context *kl, const struct kl_rowdot_rung *r,
                                 const int *v, enum kl_type t, const struct kl_launch *l,
                                 struct kl_err *e)
{
    size_t es = kl_type_size(t);
    size_t local = (r->local_vc ? PARAM("VC") : 0) + (r->local_wg ? PARAM("WG") : 0);
    enum kl_status st = kl_launch_check(l, r->name, e);
    if (st != KL_OK)
        return st;
    if (r->geometry == KL_RD_ROWS_PER_GROUP && PARAM("RPG") > PARAM("WG"))
        return kl_fail(e, KL_ERR_ARG, "rung %s: RPG=%zu rows cannot share WG=%zu work-items",
                       r->name, PARAM("RPG"), PARAM("WG"));
    if (local * es > kl->info.local_mem)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: needs %zu bytes of local memory, the device has %llu", r->name,
                       local * es, (unsigned long long)kl->info.local_mem);
    return KL_OK;
}
#undef PARAM

/* Reference r[y] in double and the tolerance scale |f|·Σ|v·m1·m2|. */
static enum kl_status reference(enum kl_type t, int Y, int D, const void *vv, const void *m1,
                                const void *m2, double f, double *ref, double *scale,
                                struct kl_err *e)
{
    (void)e;
    for (size_t y = 0; y < (size_t)Y; y++) {
        double sum = 0, mag = 0;
        for (size_t k = 0; k < (size_t)D; k++) {
            double p = kl_get(t, vv, k) * kl_get(t, m1, y * D + k) * kl_get(t, m2, y * D + k);
            sum += p;
            mag += fabs(p);
        }
        ref[y] = f * sum;
        scale[y] = fabs(f) * mag;
    }
    return KL_OK;
}

/* The problem, its reference and its device buffers: what the engine's callbacks share. */
struct rowdot {
    struct kl_context *kl;
    enum kl_type type;
    int Y, D;
    double f, factor;
    void *v, *m1, *m2;
    struct kl_buf *dv, *dm1, *dm2;
    struct kl_vecout out;
};

static int rowdot_available(void *self, int i, char *why, size_t n)
{
    struct rowdot *p = self;
    if (rungs[i].needs_subgroups && !p->kl->info.subgroups) {
        snprintf(why, n, "the device has no cl_khr_subgroups");
        return 0;
    }
    return 1;
}

static enum kl_status rowdot_check(void *self, int i, const int *values, struct kl_err *e)
{
    struct rowdot *p = self;
    struct kl_launch l = {.kl = p->kl};
    shape_of(&rungs[i], values, p->Y, &l);
    return check_rung(p->kl, &rungs[i], values, p->type, &l, e);
}

/* The interface's arguments, for every rung and the user's: v, M1, M2, r, Y, D, f. */
static void rowdot_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    struct rowdot *p = self;
    (void)u;
    l->nargs = 7;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = p->dv}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = p->dm1}};
    l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = p->dm2}};
    l->args[3] = (struct kl_arg){KL_ARG_BUF, {.buf = p->out.dev}};
    l->args[4] = (struct kl_arg){KL_ARG_INT, {.i = p->Y}};
    l->args[5] = (struct kl_arg){KL_ARG_INT, {.i = p->D}};
    l->args[6] = kl_arg_scalar(p->type, p->f);
}

static enum kl_status rowdot_launch(void *self, struct kl_launch *l,
                                    const struct kl_protocol *proto, struct kl_result *res)
{
    struct rowdot *p = self;
    return kl_vecout_run(&p->out, l, NULL, proto, p->factor, res);
}

static enum kl_status rowdot_run(void *self, int i, const int *values,
                                 const struct kl_protocol *proto, struct kl_result *res)
{
    struct rowdot *p = self;
    struct kl_context *kl = p->kl;
    const struct kl_rowdot_rung *r = &rungs[i];
    struct kl_launch l = {.kl = kl};
    enum kl_status st;
    shape_of(r, values, p->Y, &l);
    kl_params_options(r->params, values, p->type, res->options, sizeof res->options);
    if ((st = check_rung(kl, r, values, p->type, &l, &kl->err)) != KL_OK ||
        (st = kl_kernel_get(kl, r->file, "rowdot", res->options, &l.kernel, &res->build_s)) !=
            KL_OK ||
        (st = kl_launch_check(&l, r->name, &kl->err)) != KL_OK)
        return st;
    rowdot_args(p, NULL, &l);
    return rowdot_launch(p, &l, proto, res);
}

static long long rowdot_size(void *self, int i)
{
    struct rowdot *p = self;
    return i == 0 ? p->Y : p->D;
}

static const struct kl_user_iface user_iface = {
    .signature = "rowdot(global const T *v, global const T *M1, global const T *M2, "
                 "global T *r, int Y, int D, T f)",
    .nsizes = 2,
    .size_names = {"Y", "D"},
    .size = rowdot_size,
    .args = rowdot_args,
    .run = rowdot_launch,
};

/* Random v, M1 and M2, the reference and the device's copies. */
static enum kl_status rowdot_data(struct rowdot *p, unsigned long long seed, struct kl_err *e)
{
    struct kl_context *kl = p->kl;
    size_t Y = (size_t)p->Y, D = (size_t)p->D, es = kl_type_size(p->type);
    enum kl_status st;
    struct kl_rng rng;
    if ((st = kl_host_fits((2.0 * Y * D + D) * es, "the two matrices and the vector", e)) != KL_OK)
        return st;
    p->v = malloc(D * es);
    p->m1 = malloc(Y * D * es);
    p->m2 = malloc(Y * D * es);
    if (!p->v || !p->m1 || !p->m2)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for %zu×%zu", Y, D);
    kl_rng_seed(&rng, seed);
    kl_fill_uniform(p->type, p->v, D, &rng);
    kl_fill_uniform(p->type, p->m1, Y * D, &rng);
    kl_fill_uniform(p->type, p->m2, Y * D, &rng);
    if ((st = kl_vecout_alloc(&p->out, e)) != KL_OK ||
        (st = reference(p->type, p->Y, p->D, p->v, p->m1, p->m2, p->f, p->out.ref, p->out.scale,
                        e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, D * es, &p->dv, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, Y * D * es, &p->dm1, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, Y * D * es, &p->dm2, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, p->dv, p->v, D * es, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, p->dm1, p->m1, Y * D * es, e)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, p->dm2, p->m2, Y * D * es, e);
}

static void rowdot_free(struct rowdot *p)
{
    struct kl_context *kl = p->kl;
    kl->ops->release(p->dv);
    kl->ops->release(p->dm1);
    kl->ops->release(p->dm2);
    kl_vecout_free(&p->out);
    free(p->v);
    free(p->m1);
    free(p->m2);
}

/* A request the kernels can take, refused at once with the reason otherwise. */
static enum kl_status check_request(struct kl_context *kl, const struct kl_rowdot_request *req,
                                    struct kl_err *e)
{
    size_t Y = (size_t)req->rows, D = (size_t)req->d, es = kl_type_size(req->type);
    if (req->type != KL_FLOAT && req->type != KL_DOUBLE)
        return kl_fail(e, KL_ERR_ARG, "rowdot runs in float or double, not --type %s",
                       kl_type_name(req->type));
    if (req->type == KL_DOUBLE && !kl->info.fp64)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "device %s has no double precision", kl->info.name);
    if (req->rows < 1 || req->d < 1 || (double)Y * D > 2147483647.0 ||
        (double)Y * 1024 > 2147483647.0)
        return kl_fail(e, KL_ERR_ARG,
                       "--rows %d --d %d: both must be >= 1, Y·D below 2^31 and Y below 2^21",
                       req->rows, req->d);
    if (Y * D * es > kl->info.max_alloc)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "a %zu×%zu matrix needs %.1f MiB, more than the device's largest "
                       "allocation (%.1f MiB)",
                       Y, D, Y * D * es / 1048576.0, kl->info.max_alloc / 1048576.0);
    enum kl_status st =
        kl_device_fits(kl, ((double)Y * D * 2 + D + Y) * es, "the two matrices and the vectors", e);
    return st != KL_OK ? st : kl_protocol_check(&req->protocol, e);
}

enum kl_status kl_rowdot_ladder(struct kl_context *kl, const struct kl_rowdot_request *req,
                                struct kl_report *rep)
{
    struct kl_err *e = &kl->err;
    struct rowdot p = {.kl = kl,
                       .type = req->type,
                       .Y = req->rows,
                       .D = req->d,
                       .f = 0.75,
                       .factor = kl_dot_tolerance(req->type, req->d)};
    /* A rung named with --rung is the user's: its misfit is an error, not a skipped row. */
    struct kl_workload w = {.table = &table,
                            .kl = kl,
                            .type = req->type,
                            .self = &p,
                            .named_is_users = 1,
                            .available = rowdot_available,
                            .check = rowdot_check,
                            .run = rowdot_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    int chosen[KL_MAX_RUNGS], nchosen;
    enum kl_status st;
    if ((st = check_request(kl, req, e)) != KL_OK ||
        (st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        return st;
    kl_vecout_init(&p.out, kl, req->type, (size_t)req->rows);
    if ((st = rowdot_data(&p, req->seed, e)) != KL_OK)
        goto done;

    kl_ladder_report(rep, kl, "rowdot", req->type, req->seed, &req->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "Y=%d D=%d", req->rows, req->d);
    snprintf(rep->size_json, sizeof rep->size_json, "\"Y\": %d, \"D\": %d", req->rows, req->d);
    /* Per element: two multiplies and an add, after reading M1 and M2 once. */
    size_t Y = (size_t)req->rows, D = (size_t)req->d;
    rep->flops = 3.0 * (double)Y * D;
    rep->bytes = (double)(2 * Y * D + D + Y) * kl_type_size(req->type);
    snprintf(rep->reference, sizeof rep->reference,
             "r[y] = f·Σ v·M1·M2 summed in double on the host (f = %.2f); tolerance 4u·√D·Σ|terms|",
             p.f);
    kl_report_inputs(rep, "v, M1 and M2", req->type);
    st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0, nchosen, rep, e);
done:
    kl_report_finish(rep);
    rowdot_free(&p);
    return st;
}
