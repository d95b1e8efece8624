/*
 * The GEMM ladder: the engine's callbacks over the rung table
 * (gemm/rungs.c), the user's kernels, and the driver that makes the data
 * and the reference, runs the rungs and then the peers. What the parts
 * share is in gemm/parts.h.
 */
#include "workloads/gemm/parts.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/ladder.h"
#include "core/progress.h"
#include "core/util.h"
#include "core/verify.h"
#include "peers/peers.h"

/* Host rungs run only when one loop takes no more than a few seconds. */
/* Multiply-adds above which the host rungs are left out unless asked for: 368³, so 256³ runs
 * them and the main job's 512³ on a CPU does not (the slow loop orders took 8 s each there). */
#define HOST_AUTO_LIMIT 5e7

/* A ladder's state: what the engine's callbacks share. */
struct gemm_ladder {
    const struct kl_gemm_request *req;
    struct gemm_session s;
    struct gemm_ref g;
    void *C; /* the current rung's result */
    struct gemm_baseline baseline;
};

static int gemm_listed(void *self, int i)
{
    const struct gemm_ladder *L = self;
    return kl_gemm_request_chooses(L->req, kl_gemm_rung_at(i));
}

static void gemm_describe(void *self, int i, struct kl_result *res)
{
    const struct gemm_ladder *L = self;
    res->precision = kl_gemm_rung_precision(kl_gemm_rung_at(i), L->req->type);
    res->tensor = kl_gemm_rung_at(i)->tensor;
    /* An FMA rung given a narrow type widens it for the FMA units. */
    res->fma = !res->tensor && kl_gemm_rung_at(i)->precision == KL_PREC_NONE &&
               kl_type_narrow(L->req->type);
}

/* Rungs the device lacks; host rungs that would take seconds, unless asked for. */
static int gemm_available(void *self, int i, char *why, size_t n)
{
    const struct gemm_ladder *L = self;
    const struct kl_gemm_request *req = L->req;
    double macs = (double)req->M * req->N * req->K;
    if (!kl_gemm_rung_available(L->s.kl, kl_gemm_rung_at(i), req->type, why, n))
        return 0;
    if (kl_gemm_rung_at(i)->geometry == KL_GEO_HOST && req->host_rungs == 0 && req->nrungs == 0 &&
        macs > HOST_AUTO_LIMIT) {
        snprintf(why, n,
                 "%.3g multiply-adds would take seconds per loop order on one core; "
                 "--host-rungs runs them",
                 macs);
        return 0;
    }
    return 1;
}

static enum kl_status gemm_values(void *self, int i, const struct kl_ladder_args *a, int *values,
                                  int *users, char *config, size_t n, struct kl_err *e)
{
    const struct gemm_ladder *L = self;
    unsigned mask;
    (void)a;
    const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
    const struct kl_gemm_request *q = L->req;
    enum kl_status st = kl_gemm_ladder_values(q, &L->s.kl->info, r, values, &mask, config, n, e);
    *users = mask != 0;
    return st;
}

/* Rung i's product kernel with these values, and the copy before it where B or A needs one. */
static int gemm_kernels(void *self, int i, const int *values, struct kl_kernel_want *want, int max)
{
    const struct gemm_ladder *L = self;
    const struct kl_gemm_rung *r = kl_gemm_rung_at(i);
    int lda, ldb, n = 0;
    if (r->geometry == KL_GEO_HOST || max < 2)
        return 0;
    if (r->ozaki) /* its own module and rung 20's int8 product */
        return kl_gemm_ozaki_kernels(r, values, want, max);
    want[n] = (struct kl_kernel_want){r->file, "gemm", ""};
    kl_params_options(r->params, values, L->s.type, want[n].options, sizeof want[n].options);
    n++;
    if (kl_gemm_pitches(&L->s, r, values, &lda, &ldb)) {
        want[n] = (struct kl_kernel_want){r->file, r->hopper ? "pad" : "pack_b", ""};
        kl_gemm_copy_options(L->s.type, want[n].options, sizeof want[n].options);
        n++;
    }
    return n;
}

static enum kl_status gemm_check(void *self, int i, const int *values, struct kl_err *e)
{
    const struct gemm_ladder *L = self;
    struct kl_launch l = {.kl = L->s.kl};
    if (kl_gemm_rung_at(i)->geometry == KL_GEO_HOST)
        return KL_OK;
    kl_gemm_shape(kl_gemm_rung_at(i), values, L->req->M, L->req->N, &l);
    return kl_gemm_rung_check(L->s.kl, kl_gemm_rung_at(i), values, L->req->type, &l, e);
}

/*
 * A run's times into res, then its verdict: against the reference, and
 * every device result against the first verified one, which becomes the
 * baseline (C is then kept and a new one made).
 */
static enum kl_status record(struct gemm_ladder *L, const char *name, const struct kl_timing *t,
                             struct kl_result *res)
{
    res->build_s = t->build_s;
    res->median_s = t->median_s;
    res->min_s = t->min_s;
    res->max_s = t->max_s;
    res->total_s = t->total_s;
    res->repeats = t->repeats;
    snprintf(res->options, sizeof res->options, "%s", t->options);
    res->status = KL_RESULT_VERIFIED;
    kl_gemm_judge(&L->s, &L->g, L->C, res->on_host ? NULL : &L->baseline, res);
    if (!res->on_host && !L->baseline.C && res->status == KL_RESULT_VERIFIED) {
        L->baseline = (struct gemm_baseline){L->C, name, res->precision, res->sum_span};
        L->C = malloc(kl_gemm_c_bytes(&L->s));
        if (!L->C)
            return kl_fail(&L->s.kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    }
    return KL_OK;
}

static enum kl_status gemm_run(void *self, int i, const int *values,
                               const struct kl_protocol *proto, struct kl_result *res)
{
    struct gemm_ladder *L = self;
    struct kl_timing t;
    enum kl_status st = kl_gemm_run_rung(&L->s, kl_gemm_rung_at(i), values, proto, L->C, &t);
    res->sum_span = kl_gemm_sum_span(kl_gemm_rung_at(i), values, L->s.type, L->s.K);
    return st != KL_OK ? st : record(L, kl_gemm_rung_at(i)->name, &t, res);
}

/* ---- the user's kernels: gemm(A, B, C, M, N, K), all row-major ------------ */

static long long gemm_size(void *self, int i)
{
    const struct gemm_ladder *L = self;
    return i == 0 ? L->s.M : i == 1 ? L->s.N : L->s.K;
}

static void user_args(void *self, const struct kl_user_rung *u, struct kl_launch *l)
{
    struct gemm_ladder *L = self;
    (void)u;
    l->nargs = 6;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = L->s.dA}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = L->s.dB}};
    l->args[2] = (struct kl_arg){KL_ARG_BUF, {.buf = L->s.dC}};
    l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = L->s.M}};
    l->args[4] = (struct kl_arg){KL_ARG_INT, {.i = L->s.N}};
    l->args[5] = (struct kl_arg){KL_ARG_INT, {.i = L->s.K}};
}

static enum kl_status user_run(void *self, struct kl_launch *l, const struct kl_protocol *proto,
                               struct kl_result *res)
{
    struct gemm_ladder *L = self;
    struct kl_launch_pair pair = {.a = l};
    struct kl_timing t = {.build_s = res->build_s};
    res->precision = kl_precision_of_type(L->s.type); /* the type's own arithmetic */
    snprintf(t.options, sizeof t.options, "%s", res->options);
    enum kl_status st = kl_gemm_time_launch(&L->s, &pair, 0, proto, L->C, &t);
    return st != KL_OK ? st : record(L, res->rung, &t, res);
}

static const struct kl_user_iface user_iface = {
    .signature = "gemm(global const T *A, global const T *B, global T *C, int M, int N, int K)",
    .nsizes = 3,
    .size_names = {"M", "N", "K"},
    .size = gemm_size,
    .args = user_args,
    .run = user_run,
};

/* The request's sizes, type, protocol and peers; the user's kernels take the wide types. */
static enum kl_status request_ok(struct kl_context *kl, const struct kl_gemm_request *req,
                                 struct kl_err *e)
{
    enum kl_status st;
    if ((st = kl_gemm_request_check(kl, req->type, req->M, req->N, req->K, e)) != KL_OK ||
        (st = kl_protocol_check(&req->protocol, e)) != KL_OK ||
        (st = kl_peers_check("gemm", req->peers, req->npeers, e)) != KL_OK)
        return st;
    if (req->nusers && kl_type_narrow(req->type))
        return kl_fail(e, KL_ERR_ARG,
                       "your kernels (--kernel) take float, double or int: gemm(A, B, C, ...) "
                       "of one type; %s inputs run on the built-in rungs",
                       kl_type_name(req->type));
    return KL_OK;
}

enum kl_status kl_gemm_ladder(struct kl_context *kl, const struct kl_gemm_request *req,
                              struct kl_report *rep)
{
    struct gemm_ladder L = {.req = req};
    struct kl_workload w = {.table = kl_gemm_rungs(),
                            .kl = kl,
                            .type = req->type,
                            .self = &L,
                            .available = gemm_available,
                            .listed = gemm_listed,
                            .describe = gemm_describe,
                            .values = gemm_values,
                            .check = gemm_check,
                            .kernels = gemm_kernels,
                            .run = gemm_run,
                            .user = &user_iface};
    struct kl_ladder_args a = KL_LADDER_ARGS(req);
    int chosen[KL_MAX_RUNGS], nchosen;
    enum kl_status st;
    struct kl_err *e = &kl->err;
    size_t es = kl_type_size(req->type), cs = kl_type_size(kl_type_output(req->type));
    size_t M = (size_t)req->M, N = (size_t)req->N, K = (size_t)req->K;

    if ((st = request_ok(kl, req, e)) != KL_OK)
        return st;
    kl_gemm_session_init(&L.s, kl, req->type, req->M, req->N, req->K, NULL, NULL);
    if ((st = kl_ladder_begin(&w, &a, chosen, &nchosen, e)) != KL_OK)
        return st;

    /* Same random inputs for every rung. */
    struct kl_rng rng;
    void *A = malloc(M * K * es), *B = malloc(K * N * es);
    const char **peers = malloc((2 * (size_t)req->npeers + 1) * sizeof *peers);
    L.C = malloc(kl_gemm_c_bytes(&L.s));
    L.s.A = A, L.s.B = B;
    if (!A || !B || !L.C || !peers) {
        st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for M=%zu N=%zu K=%zu", M, N, K);
        goto free_data;
    }
    kl_rng_seed(&rng, req->seed);
    kl_fill_uniform(req->type, A, M * K, &rng);
    kl_fill_uniform(req->type, B, K * N, &rng);
    if ((st = kl_gemm_ref_compute(&L.s, req->seed, &L.g, e)) != KL_OK ||
        (req->nusers && (st = kl_gemm_session_device(&L.s, 0)) != KL_OK)) /* the user's arguments */
        goto free_data;

    kl_ladder_report(rep, kl, "gemm", req->type, req->seed, &req->protocol);
    snprintf(rep->sizes, sizeof rep->sizes, "M=%d N=%d K=%d", req->M, req->N, req->K);
    snprintf(rep->size_json, sizeof rep->size_json, "\"M\": %d, \"N\": %d, \"K\": %d", req->M,
             req->N, req->K);
    rep->flops = 2.0 * M * N * K;
    rep->bytes = (double)(M * K + K * N) * es + (double)(M * N) * cs;
    snprintf(rep->reference, sizeof rep->reference, "%s", L.g.how);
    kl_report_inputs(rep, "A and B", req->type);

    int npeers = kl_gemm_peer_rows(req, peers);
    if ((st = kl_ladder_rungs(&w, &a, chosen, nchosen, 0, nchosen + npeers, rep, e)) != KL_OK)
        goto free_data;
    for (int j = 0; j < npeers; j++) {
        kl_progress_step(nchosen + j, nchosen + npeers, "gemm peer %s", peers[j]);
        if ((st = kl_gemm_run_peer(&L.s, &L.g, peers[j], &req->protocol, L.C, rep)) != KL_OK)
            goto free_data;
    }
free_data:
    kl_report_finish(rep);
    kl_gemm_ref_free(&L.g);
    kl_gemm_session_free(&L.s);
    free(A);
    free(B);
    free(L.C);
    free((void *)L.baseline.C);
    free(peers);
    return st;
}
