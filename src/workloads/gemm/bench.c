/*
 * One GEMM problem, many candidates: the tuner's bench. Each candidate is
 * checked, built, verified against the reference and the first verified
 * candidate, and only then timed, within the tuner's limits.
 */
#include "workloads/gemm/parts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/verify.h"

enum kl_status kl_gemm_check(struct kl_context *kl, const struct kl_gemm_rung *r,
                             const char *const *items, int nitems, enum kl_type t, int M, int N,
                             size_t *wg, struct kl_err *e)
{
    int values[KL_MAX_PARAMS];
    struct kl_launch l = {.kl = kl};
    enum kl_status st;
    if (wg)
        *wg = 0;
    if ((st = kl_gemm_resolve_items(r, items, nitems, values, e)) != KL_OK ||
        r->geometry == KL_GEO_HOST)
        return st;
    kl_gemm_shape(r, values, M, N, &l);
    if (wg)
        *wg = l.local[0] * (l.dims > 1 ? l.local[1] : 1);
    return kl_gemm_rung_check(kl, r, values, t, &l, e);
}

struct kl_gemm_bench {
    struct kl_context *kl;
    struct gemm_session s;
    struct gemm_ref g;
    void *A, *B, *C;
    struct gemm_baseline baseline; /* the first verified candidate */
    char baseline_name[600];
};

void kl_gemm_bench_close(struct kl_gemm_bench *b)
{
    if (!b)
        return;
    kl_gemm_ref_free(&b->g);
    kl_gemm_session_free(&b->s);
    free(b->A);
    free(b->B);
    free(b->C);
    free((void *)b->baseline.C);
    free(b);
}

enum kl_status kl_gemm_bench_open(struct kl_context *kl, enum kl_type t, int M, int N, int K,
                                  unsigned long long seed, struct kl_gemm_bench **out)
{
    struct kl_err *e = &kl->err;
    struct kl_rng rng;
    enum kl_status st;
    size_t es = kl_type_size(t);
    *out = NULL;
    if ((st = kl_gemm_request_check(kl, t, M, N, K, e)) != KL_OK)
        return st;
    struct kl_gemm_bench *b = calloc(1, sizeof *b);
    if (!b)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    b->kl = kl;
    b->A = malloc((size_t)M * K * es);
    b->B = malloc((size_t)K * N * es);
    kl_gemm_session_init(&b->s, kl, t, M, N, K, b->A, b->B);
    b->C = malloc(kl_gemm_c_bytes(&b->s));
    if (!b->A || !b->B || !b->C) {
        kl_gemm_bench_close(b);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for M=%d N=%d K=%d", M, N, K);
    }
    kl_rng_seed(&rng, seed);
    kl_fill_uniform(t, b->A, (size_t)M * K, &rng);
    kl_fill_uniform(t, b->B, (size_t)K * N, &rng);
    if ((st = kl_gemm_ref_compute(&b->s, seed, &b->g, e)) != KL_OK) {
        kl_gemm_bench_close(b);
        return st;
    }
    *out = b;
    return KL_OK;
}

const char *kl_gemm_bench_reference(const struct kl_gemm_bench *b)
{
    return b->g.how;
}

/* The protocol's launches of a candidate, abandoned when out of time or far too slow. */
struct bench_launch {
    struct kl_launch_pair *l;
    struct kl_run_limits *lim;
    int calls, warmup;
};

/* 1 where the limits' deadline has passed. */
static int past_deadline(const struct kl_run_limits *lim)
{
    return lim && lim->deadline > 0 && kl_now() > lim->deadline;
}

static enum kl_status bench_launch_timed(void *arg, double *seconds, struct kl_err *e)
{
    struct bench_launch *x = arg;
    if (past_deadline(x->lim)) {
        x->lim->abandoned = 2;
        return kl_fail(e, KL_ERR_UNSUPPORTED, "abandoned: the time budget ran out");
    }
    enum kl_status st = kl_launch_pair_timed(x->l, seconds, e);
    if (st == KL_OK && ++x->calls == x->warmup + 1 && x->lim && x->lim->abandon_s > 0 &&
        *seconds > x->lim->abandon_s) {
        x->lim->abandoned = 1;
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "abandoned after its first timed launch: %.4g ms, more than %.4g ms",
                       *seconds * 1e3, x->lim->abandon_s * 1e3);
    }
    return st;
}

/*
 * A candidate made ready to run: a device rung, a valid protocol, its
 * values resolved, checked, its buffers made and its kernels built; res
 * gets the build's options and time.
 */
static enum kl_status bench_prepare(struct kl_gemm_bench *b, const struct kl_gemm_rung *r,
                                    const char *const *items, int nitems,
                                    const struct kl_protocol *proto, struct rung_launch *rl,
                                    struct kl_result *res)
{
    struct kl_err *e = &b->kl->err;
    struct kl_timing t;
    int values[KL_MAX_PARAMS];
    enum kl_status st;
    memset(&t, 0, sizeof t);
    if (!r->file)
        return kl_fail(e, KL_ERR_ARG, "rung %s runs on the host; the bench times device rungs",
                       r->name);
    if ((st = kl_protocol_check(proto, e)) != KL_OK ||
        (st = kl_gemm_resolve_items(r, items, nitems, values, e)) != KL_OK ||
        (st = kl_gemm_prepare(&b->s, r, values, &t, rl)) != KL_OK)
        return st;
    snprintf(res->options, sizeof res->options, "%s", t.options);
    res->build_s = t.build_s;
    res->sum_span = kl_gemm_sum_span(r, values, b->s.type, b->s.K);
    return KL_OK;
}

/*
 * The first verified candidate's result becomes the baseline every later
 * one is compared with in full (C is kept and a new one made).
 */
static enum kl_status keep_baseline(struct kl_gemm_bench *b, const struct kl_gemm_rung *r,
                                    const struct kl_result *res)
{
    void *next = malloc(kl_gemm_c_bytes(&b->s));
    if (!next)
        return kl_fail(&b->kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    snprintf(b->baseline_name, sizeof b->baseline_name, "the first verified candidate (%s %.500s)",
             r->name, res->options);
    b->baseline = (struct gemm_baseline){b->C, b->baseline_name, res->precision, res->sum_span};
    b->C = next;
    return KL_OK;
}

/*
 * A verified candidate timed by proto into res; SKIPPED where limits
 * abandoned it (out of time, or far too slow after its first launch).
 */
static enum kl_status bench_time(struct kl_gemm_bench *b, struct rung_launch *rl,
                                 const struct kl_protocol *proto, struct kl_run_limits *limits,
                                 struct kl_result *res)
{
    struct kl_err *e = &b->kl->err;
    struct kl_stats stats;
    struct bench_launch x = {&rl->pair, limits, 0, proto->warmup};
    enum kl_status st = kl_measure(b->s.kl, proto, bench_launch_timed, &x, &stats, e);
    if (st != KL_OK && limits && limits->abandoned) {
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->note, sizeof res->note, "%.500s", e->msg);
        return KL_OK;
    }
    if (st != KL_OK) {
        res->status = KL_RESULT_FAILED;
        return st;
    }
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

enum kl_status kl_gemm_bench_run(struct kl_gemm_bench *b, const struct kl_gemm_rung *r,
                                 const char *const *items, int nitems,
                                 const struct kl_protocol *proto, struct kl_run_limits *limits,
                                 struct kl_result *res)
{
    struct kl_err *e = &b->kl->err;
    struct rung_launch rl;
    double first = 0;
    enum kl_status st;

    res->status = KL_RESULT_FAILED;
    res->note[0] = '\0';
    if (limits)
        limits->abandoned = 0;
    if ((st = bench_prepare(b, r, items, nitems, proto, &rl, res)) != KL_OK)
        return st;
    if (past_deadline(limits)) {
        limits->abandoned = 2;
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->note, sizeof res->note, "abandoned: the time budget ran out after its build");
        return KL_OK;
    }
    /* Verified before it is timed: a wrong candidate never gets a speed. */
    st = kl_gemm_verified_run(&b->s, &rl.pair, r->b_col_major, b->C, &first);
    if (st == KL_ERR_VERIFY) {
        snprintf(res->note, sizeof res->note, "%.500s", e->msg);
        return KL_OK;
    }
    if (st != KL_OK)
        return st;
    res->status = KL_RESULT_VERIFIED;
    res->precision = kl_gemm_rung_precision(r, b->s.type);
    kl_gemm_judge(&b->s, &b->g, b->C, &b->baseline, res);
    if (res->status != KL_RESULT_VERIFIED)
        return KL_OK;
    if (!b->baseline.C && (st = keep_baseline(b, r, res)) != KL_OK)
        return st;
    return bench_time(b, &rl, proto, limits, res);
}
