/*
 * GEMV workload: the rung tables of both layouts, the data, the reference
 * in double, the peers (CLBlast, cuBLAS) and the ladder driver.
 */
#include "workloads/gemv/gemv.h"

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

static const struct kl_gemv_rung rungs[] = {
    {.name = "01_row_naive",
     .summary = "row-major A, one work-item per row: each walks its own row, so neighbours read "
                "addresses N elements apart",
     .file = "opencl/gemv/01_row_naive.cl",
     .layout = KL_ROW_MAJOR,
     .geometry = KL_GV_ITEM_PER_ROW,
     .params = {P_WG(64)}},
    {.name = "02_row_group",
     .summary = "a work-group per row: coalesced float4 reads of the row, tree reduction",
     .file = "opencl/gemv/02_row_group.cl",
     .layout = KL_ROW_MAJOR,
     .geometry = KL_GV_GROUP_PER_ROW,
     .local_wg = 1,
     .params = {P_WG2(256)}},
    {.name = "03_row_multirow",
     .summary = "RPG rows per work-group, a team each: fewer idle lanes when rows are short",
     .file = "opencl/gemv/03_row_multirow.cl",
     .layout = KL_ROW_MAJOR,
     .geometry = KL_GV_ROWS_PER_GROUP,
     .local_wg = 1,
     .params = {P_WG2(256), {"RPG", 8, 1, 1024, 1, 1, "rows per work-group"}}},
    {.name = "11_col_naive",
     .summary = "column-major A, one work-item per row: neighbours read neighbouring "
                "addresses, so every load is coalesced",
     .file = "opencl/gemv/11_col_naive.cl",
     .layout = KL_COL_MAJOR,
     .geometry = KL_GV_ITEM_PER_ROW,
     .params = {P_WG(128)}},
    {.name = "12_col_local_x",
     .summary = "x staged in local memory in chunks of XC, the column loop unrolled by 4",
     .file = "opencl/gemv/12_col_local_x.cl",
     .layout = KL_COL_MAJOR,
     .geometry = KL_GV_ITEM_PER_ROW,
     .local_xc = 1,
     .params = {P_WG(128), {"XC", 1024, 1, 1 << 16, 1, 0, "x chunk held in local memory"}}},
    {.name = "13_col_split",
     .summary = "S column splits summed into partial results, then reduced: parallel work "
                "even when there are few rows",
     .file = "opencl/gemv/13_col_split.cl",
     .layout = KL_COL_MAJOR,
     .geometry = KL_GV_SPLIT,
     .params = {{"WG0", 64, 1, 1024, 1, 0, "work-group size (rows)"},
                {"SPLITS", 32, 1, 4096, 1, 0, "column splits S"}}},
};
#define RUNG_COUNT ((int)(sizeof rungs / sizeof *rungs))

KL_RUNG_TABLE_FILES(gemv, struct kl_gemv_rung, rungs, NULL);

#define PARAM(name) ((size_t)kl_param_value(r->params, v, name))

/* The main launch (and, for split rungs, the reduction in *l2). */
static void shape_of(const struct kl_gemv_rung *r, const int *v, int M, struct kl_launch *l,
                     struct kl_launch *l2)
{
    size_t wg = r->geometry == KL_GV_SPLIT ? PARAM("WG0") : PARAM("WG");
    l->dims = 1;
    l->local[0] = wg;
    l->local[1] = l->local[2] = l->global[1] = l->global[2] = 1;
    switch (r->geometry) {
    case KL_GV_ITEM_PER_ROW: l->global[0] = kl_round_up((size_t)M, wg); break;
    case KL_GV_GROUP_PER_ROW: l->global[0] = (size_t)M * wg; break;
    case KL_GV_ROWS_PER_GROUP:
        l->global[0] = ((size_t)M + PARAM("RPG") - 1) / PARAM("RPG") * wg;
        break;
    case KL_GV_SPLIT:
        l->dims = 2;
        l->global[0] = kl_round_up((size_t)M, wg);
        l->global[1] = PARAM("SPLITS");
        *l2 = *l;
        l2->dims = 1;
        l2->global[1] = 1;
        break;
    }
}

static enum kl_status check_rung(struct kl_context *kl, const struct kl_gemv_rung *r, const int *v,
                                 enum kl_type t, const struct kl_launch *l, struct kl_err *e)
{
    size_t es = kl_type_size(t);
    size_t local = (r->local_wg ? PARAM("WG") : 0) + (r->local_xc ? PARAM("XC") : 0);
    enum kl_status st = kl_launch_check(l, r->name, e);
    if (st != KL_OK)
        return st;
    if (r->geometry == KL_GV_ROWS_PER_GROUP && PARAM("RPG") > PARAM("WG"))
        return kl_fail(e, KL_ERR_ARG, "rung %s: RPG=%zu rows cannot share WG=%zu work-items",
                       r->name, PARAM("RPG"), PARAM("WG"));
    if (local * es > kl->info.local_mem)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "rung %s: needs %zu bytes of local memory, the device has %llu", r->name,
                       local * es, (unsigned long long)kl->info.local_mem);
    return KL_OK;
}
#undef PARAM

/* The problem, its reference and its device buffers: what the engine's callbacks share. */
struct gemv_data {
    struct kl_context *kl;
    struct kl_gemv_problem p; /* row-major view; layout set per rung */
    void *A_row, *A_col, *x, *y0;
    struct kl_buf *dA_row, *dA_col, *dx, *dwork;
    size_t work_elems;
    struct kl_vecout out;
    double factor;
};

/* The one-pass kernels' arguments (and the user's): A, x, y, M, N, alpha, beta. */
static void one_pass_args(const struct gemv_data *g, struct kl_buf *A, struct kl_launch *l)
{
    l->nargs = 7;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = A}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = g->dx}};
    l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = g->out.dev}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = g->p.M}};
    l->args[4] = (struct kl_arg){KL_ARG_INT, {.i = g->p.N}};
    l->args[5] = kl_arg_scalar(g->p.type, g->p.alpha);
    l->args[6] = kl_arg_scalar(g->p.type, g->p.beta);
}

static void user_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    struct gemv_data *g = self;
    one_pass_args(g, strcmp(u->layout, "col") == 0 ? g->dA_col : g->dA_row, l);
}

static enum kl_status user_launch(void *self, struct kl_launch *l, const struct kl_protocol *proto,
                                  struct kl_result *res)
{
    struct gemv_data *g = self;
    return kl_vecout_run(&g->out, l, NULL, proto, g->factor, res);
}

static long long gemv_size(void *self, int i)
{
    struct gemv_data *g = self;
    return i == 0 ? g->p.M : g->p.N;
}

static const struct kl_user_iface user_iface = {
    .signature = "gemv(global const T *A, global const T *x, global T *y, int M, int N, "
                 "T alpha, T beta)",
    .nsizes = 2,
    .size_names = {"M", "N"},
    .size = gemv_size,
    .takes_layout = 1,
    .args = user_args,
    .run = user_launch,
};

static enum kl_status gemv_check(void *self, int i, const int *values, struct kl_err *e)
{
    struct gemv_data *g = self;
    struct kl_launch l = {.kl = g->kl}, l2 = {.kl = g->kl};
    shape_of(&rungs[i], values, g->p.M, &l, &l2);
    return check_rung(g->kl, &rungs[i], values, g->p.type, &l, e);
}

/* Builds, checks and runs one rung into res. */
static enum kl_status gemv_run(void *self, int i, const int *values,
                               const struct kl_protocol *proto, struct kl_result *res)
{
    struct gemv_data *g = self;
    struct kl_context *kl = g->kl;
    const struct kl_gemv_rung *r = &rungs[i];
    struct kl_vecout *out = &g->out;
    double factor = g->factor;
    struct kl_err *e = &kl->err;
    struct kl_launch l = {.kl = kl}, l2 = {.kl = kl};
    enum kl_type t = g->p.type;
    int M = g->p.M, N = g->p.N;
    double dummy_build;
    enum kl_status st;

    shape_of(r, values, M, &l, &l2);
    kl_params_options(r->params, values, t, res->options, sizeof res->options);
    if ((st = check_rung(kl, r, values, t, &l, e)) != KL_OK)
        return st;
    struct kl_buf *A = r->layout == KL_ROW_MAJOR ? g->dA_row : g->dA_col;
    if (r->geometry != KL_GV_SPLIT) {
        if ((st = kl_kernel_get(kl, r->file, "gemv", res->options, &l.kernel, &res->build_s)) !=
                KL_OK ||
            (st = kl_launch_check(&l, r->name, e)) != KL_OK)
            return st;
        one_pass_args(g, A, &l);
        return kl_vecout_run(out, &l, NULL, proto, factor, res);
    }
    /* Two kernels: partial sums into a workspace of S·M, then the reduction. */
    int S = kl_param_value(r->params, values, "SPLITS");
    size_t need = (size_t)S * (size_t)M;
    if (need > g->work_elems) {
        kl->ops->release(g->dwork);
        g->dwork = NULL;
        g->work_elems = 0;
        if ((st = kl->ops->alloc(kl->dev, need * kl_type_size(t), &g->dwork, e)) != KL_OK)
            return st;
        g->work_elems = need;
    }
    if ((st = kl_kernel_get(kl, r->file, "gemv_partial", res->options, &l.kernel, &res->build_s)) !=
            KL_OK ||
        (st = kl_kernel_get(kl, r->file, "gemv_reduce", res->options, &l2.kernel, &dummy_build)) !=
            KL_OK ||
        (st = kl_launch_check(&l, r->name, e)) != KL_OK ||
        (st = kl_launch_check(&l2, r->name, e)) != KL_OK)
        return st;
    l.nargs = 6;
    l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = A}};
    l.args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = g->dx}};
    l.args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = g->dwork}};
    l.args[3] = (struct kl_arg){KL_ARG_INT, {.i = M}};
    l.args[4] = (struct kl_arg){KL_ARG_INT, {.i = N}};
    l.args[5] = (struct kl_arg){KL_ARG_INT, {.i = S}};
    l2.nargs = 6;
    l2.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = g->dwork}};
    l2.args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = out->dev}};
    l2.args[2] = (struct kl_arg){KL_ARG_INT, {.i = M}};
    l2.args[3] = (struct kl_arg){KL_ARG_INT, {.i = S}};
    l2.args[4] = kl_arg_scalar(t, g->p.alpha);
    l2.args[5] = kl_arg_scalar(t, g->p.beta);
    return kl_vecout_run(out, &l, &l2, proto, factor, res);
}

/* One peer in one layout: a row of its own, verified like every rung. */
static enum kl_status run_peer(struct kl_context *kl, const char *peer, enum kl_layout layout,
                               struct gemv_data *g, struct kl_vecout *out,
                               const struct kl_protocol *proto, double factor,
                               struct kl_report *rep)
{
    char name[64], what[256];
    struct kl_stats stats;
    struct kl_err e;
    snprintf(name, sizeof name, "peer:%s_%s", peer, layout == KL_ROW_MAJOR ? "row" : "col");
    struct kl_result *res = kl_report_add(rep, name, NULL);
    if (!res)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    res->peer = 1;
    struct kl_gemv_problem p = g->p;
    p.layout = layout;
    p.A = layout == KL_ROW_MAJOR ? g->A_row : g->A_col;
    kl_measure_forget();
    enum kl_status st = kl_peer_gemv(kl, peer, &p, proto, out->host, &stats, what, sizeof what, &e);
    kl_vecout_peer(out, st, &e, what, &stats, factor, res);
    return KL_OK;
}

/* A request the kernels can take, refused at once with the reason otherwise. */
static enum kl_status check_request(struct kl_context *kl, const struct kl_gemv_request *req,
                                    struct kl_err *e)
{
    size_t M = (size_t)req->M, N = (size_t)req->N, es = kl_type_size(req->type);
    if (req->type != KL_FLOAT && req->type != KL_DOUBLE)
        return kl_fail(e, KL_ERR_ARG, "gemv runs in float or double, not --type %s",
                       kl_type_name(req->type));
    if (req->type == KL_DOUBLE && !kl->info.fp64)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "device %s has no double precision", kl->info.name);
    if (req->M < 1 || req->N < 1 || (double)M * N > 2147483647.0 || (double)M * 1024 > 2147483647.0)
        return kl_fail(e, KL_ERR_ARG,
                       "--m %d --n %d: both must be >= 1, M·N below 2^31 and M below 2^21", req->M,
                       req->N);
    if (M * N * es > kl->info.max_alloc)
        return kl_fail(e, KL_ERR_NO_MEMORY,
                       "a %zu×%zu matrix needs %.1f MiB, more than the device's largest "
                       "allocation (%.1f MiB)",
                       M, N, M * N * es / 1048576.0, kl->info.max_alloc / 1048576.0);
    /* A in both layouts, x, y and its copies. */
    enum kl_status st = kl_device_fits(kl, ((double)M * N * 2 + (M + N) * 4.0) * es,
                                       "the matrix in both layouts and the vectors", e);
    if (st != KL_OK)
        return st;
    if ((st = kl_peers_check("gemv", req->peers, req->npeers, e)) != KL_OK)
        return st;
    return kl_protocol_check(&req->protocol, e);
}

/* Random A (in both layouts), x and y, the reference and the device's copies. */
static enum kl_status gemv_data_make(struct gemv_data *g, unsigned long long seed, struct kl_err *e)
{
    struct kl_context *kl = g->kl;
    enum kl_type t = g->p.type;
    size_t M = (size_t)g->p.M, N = (size_t)g->p.N, es = kl_type_size(t);
    enum kl_status st;
    if ((st = kl_host_fits((2.0 * M * N + M + N) * es, "A in both layouts, x and y", e)) != KL_OK)
        return st;
    g->A_row = malloc(M * N * es);
    g->A_col = malloc(M * N * es);
    g->x = malloc(N * es);
    g->y0 = malloc(M * es);
    if (!g->A_row || !g->A_col || !g->x || !g->y0)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for %zu×%zu", M, N);
    struct kl_rng rng;
    kl_rng_seed(&rng, seed);
    kl_fill_uniform(t, g->A_row, M * N, &rng);
    kl_fill_uniform(t, g->x, N, &rng);
    kl_fill_uniform(t, g->y0, M, &rng);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++)
            memcpy((char *)g->A_col + (i + j * M) * es, (char *)g->A_row + (i * N + j) * es, es);
    g->p.x = g->x;
    g->p.y0 = g->y0;
    g->out.init = g->y0;
    if ((st = kl_vecout_alloc(&g->out, e)) != KL_OK)
        return st;
    for (size_t i = 0; i < M; i++) {
        double sum = 0, mag = 0;
        for (size_t j = 0; j < N; j++) {
            double p = kl_get(t, g->A_row, i * N + j) * kl_get(t, g->x, j);
            sum += p;
            mag += fabs(p);
        }
        double y0 = kl_get(t, g->y0, i);
        g->out.ref[i] = g->p.alpha * sum + g->p.beta * y0;
        g->out.scale[i] = fabs(g->p.alpha) * mag + fabs(g->p.beta * y0);
    }
    if ((st = kl->ops->alloc(kl->dev, M * N * es, &g->dA_row, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, M * N * es, &g->dA_col, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, N * es, &g->dx, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, g->dA_row, g->A_row, M * N * es, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, g->dA_col, g->A_col, M * N * es, e)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, g->dx, g->x, N * es, e);
}

static void gemv_data_free(struct gemv_data *g)
{
    struct kl_context *kl = g->kl;
    kl->ops->release(g->dA_row);
    kl->ops->release(g->dA_col);
    kl->ops->release(g->dx);
    kl->ops->release(g->dwork);
    kl_vecout_free(&g->out);
    free(g->A_row);
    free(g->A_col);
    free(g->x);
    free(g->y0);
}

enum kl_status kl_gemv_ladder(struct kl_context *kl, const struct kl_gemv_request *req,
                              struct kl_report *rep)
{
    struct kl_err *e = &kl->err;
    struct gemv_data g = {
        .kl = kl,
        .p = {req->type, KL_ROW_MAJOR, req->M, req->N, NULL, NULL, NULL, 1.25, 0.5},
        .factor = kl_dot_tolerance(req->type, req->N)};
    /* A rung named with --rung is the user's: its misfit is an error, not a skipped row. */
    struct kl_workload w = {.table = &table,
                            .kl = kl,
                            .type = req->type,
                            .self = &g,
                            .named_is_users = 1,
                            .check = gemv_check,
                            .run = gemv_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    int chosen[KL_MAX_RUNGS], nchosen;
    enum kl_status st;
    if ((st = check_request(kl, req, e)) != KL_OK ||
        (st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        return st;
    kl_vecout_init(&g.out, kl, req->type, (size_t)req->M);
    if ((st = gemv_data_make(&g, req->seed, e)) != KL_OK)
        goto done;

    size_t M = (size_t)req->M, N = (size_t)req->N;
    kl_ladder_report(rep, kl, "gemv", req->type, req->seed, &req->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "M=%d N=%d alpha=%.2f beta=%.2f", req->M, req->N,
             g.p.alpha, g.p.beta);
    snprintf(rep->size_json, sizeof rep->size_json,
             "\"M\": %d, \"N\": %d, \"alpha\": %g, "
             "\"beta\": %g",
             req->M, req->N, g.p.alpha, g.p.beta);
    rep->flops = 2.0 * (double)M * N;
    /* A and x read, y read and written */
    rep->bytes = (double)(M * N + N + 2 * M) * kl_type_size(req->type);
    snprintf(rep->reference, sizeof rep->reference,
             "α·A·x + β·y summed in double on the host; tolerance 4u·√N·Σ|terms|");
    kl_report_inputs(rep, "A, x and y", req->type);

    if ((st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0,
                              nchosen + 2 * req->npeers * kl_cache_passes(&req->protocol), rep,
                              e)) != KL_OK)
        goto done;
    for (int j = 0; j < req->npeers; j++)
        for (int layout = KL_ROW_MAJOR; layout <= KL_COL_MAJOR; layout++)
            for (int k = 0; k < kl_cache_passes(&req->protocol); k++) { /* --warm-cold: two */
                struct kl_protocol pass;
                kl_cache_pass(&req->protocol, k, &pass);
                if ((st = run_peer(kl, req->peers[j], (enum kl_layout)layout, &g, &g.out, &pass,
                                   g.factor, rep)) != KL_OK)
                    goto done;
                kl_cache_label(&req->protocol, k, rep, &rep->results[rep->count - 1]);
            }
done:
    kl_report_finish(rep);
    gemv_data_free(&g);
    return st;
}
