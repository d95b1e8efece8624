/*
 * One rung's run: any rung's launches prepared (a kernel's in launch.c,
 * rung 22's in ozaki.c), run once on a poisoned C and verified against
 * writes past it, then timed by the protocol and end to end; a host rung
 * timed as it is. kl_gemm, the one-rung API, is here too.
 */
#include "workloads/gemm/parts.h"

#include <stdio.h>
#include <string.h>

#include "core/util.h"

/* Uploads A and the layout of B the rung reads. */
static enum kl_status upload_inputs(struct gemm_session *s, int b_col)
{
    struct kl_context *kl = s->kl;
    size_t es = kl_type_size(s->type);
    enum kl_status st = kl->ops->write(kl->dev, s->dA, s->A, (size_t)s->M * s->K * es, &kl->err);
    if (st != KL_OK)
        return st;
    return kl->ops->write(kl->dev, b_col ? s->dBt : s->dB, b_col ? s->Bt : s->B,
                          (size_t)s->K * s->N * es, &kl->err);
}

/* ---- one rung's run ------------------------------------------------------- */

struct host_launch {
    const struct kl_gemm_rung *rung;
    struct gemm_session *s;
    void *C;
};

static enum kl_status host_once(void *arg, double *seconds, struct kl_err *e)
{
    struct host_launch *h = arg;
    (void)e;
    double t0 = kl_now();
    h->rung->host(h->s->type, h->s->M, h->s->N, h->s->K, h->s->A, h->s->B, h->C);
    *seconds = kl_now() - t0;
    return KL_OK;
}

/*
 * Median of three end-to-end runs: upload A and B, launch, download C; one
 * where it took over 0.1 s (the naive rungs at 2048³), whose transfers'
 * jitter is then under a percent of it.
 */
static enum kl_status end_to_end(struct gemm_session *s, struct kl_launch_pair *l, int b_col,
                                 void *C, double *out)
{
    struct kl_context *kl = s->kl;
    double t[3];
    int n = 0;
    while (n < 3 && !(n == 1 && t[0] > 0.1)) {
        enum kl_status st;
        double t0 = kl_now(), dummy;
        if ((st = upload_inputs(s, b_col)) != KL_OK ||
            (st = kl_launch_pair_timed(l, &dummy, &kl->err)) != KL_OK ||
            (st = kl->ops->read(kl->dev, s->dC, C, kl_gemm_c_bytes(s), &kl->err)) != KL_OK)
            return st;
        t[n++] = kl_now() - t0;
    }
    struct kl_stats stats;
    kl_stats_compute(t, n, &stats);
    *out = stats.median;
    return KL_OK;
}

enum kl_status kl_gemm_prepare(struct gemm_session *s, const struct kl_gemm_rung *r,
                               const int *values, struct kl_timing *t, struct rung_launch *rl)
{
    return r->ozaki ? kl_gemm_ozaki_prepare(s, r, values, t, rl)
                    : kl_gemm_prepare_kernel(s, r, values, t, rl);
}

/*
 * Uploads the inputs, launches once on a poisoned C (*first_s: its event
 * time), reads C back into C and checks that nothing was written past it.
 */
enum kl_status kl_gemm_verified_run(struct gemm_session *s, struct kl_launch_pair *l, int b_col,
                                    void *C, double *first_s)
{
    struct kl_context *kl = s->kl;
    size_t es = kl_type_size(kl_type_output(s->type)), cbytes = kl_gemm_c_bytes(s);
    enum kl_status st;
    if ((st = upload_inputs(s, b_col)) != KL_OK ||
        (st = kl->ops->write(kl->dev, s->dC, s->poison, cbytes + KL_GEMM_GUARD * es, &kl->err)) !=
            KL_OK ||
        (st = kl_launch_pair_timed(l, first_s, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, s->dC, s->out, cbytes + KL_GEMM_GUARD * es, &kl->err)) !=
            KL_OK)
        return st;
    /* Past the end of C the poison must still be there. */
    if (memcmp((char *)s->out + cbytes, (char *)s->poison + cbytes, KL_GEMM_GUARD * es) != 0)
        return kl_fail(&kl->err, KL_ERR_VERIFY,
                       "the kernel wrote past the end of C (into the %d guard elements "
                       "after its M×N)",
                       KL_GEMM_GUARD);
    memcpy(C, s->out, cbytes);
    return KL_OK;
}

/*
 * The last end-to-end run's C (out) against the verified launch's (C), bit for bit: a
 * kernel whose result depends on what an earlier launch left (stream-K's flags, a partial
 * read before it was written) or on the order blocks ran in differs here.
 */
static enum kl_status same_bits(const struct gemm_session *s, const void *out, const void *C)
{
    size_t es = kl_type_size(kl_type_output(s->type)), n = (size_t)s->M * s->N;
    if (memcmp(out, C, n * es) == 0)
        return KL_OK;
    size_t i = 0;
    while (i < n && memcmp((const char *)out + i * es, (const char *)C + i * es, es) == 0)
        i++;
    return kl_fail(&s->kl->err, KL_ERR_VERIFY,
                   "C after the timed launches is not the verified launch's bit for bit (first "
                   "at row %zu, column %zu): the result depends on more than A and B",
                   i / (size_t)s->N, i % (size_t)s->N);
}

/*
 * A prepared device launch: run once on a poisoned C, read into C and
 * checked for writes past it, then timed by the protocol and end to end
 * into t (its build time and options left as they are); the last end-to-end
 * run's C must be the verified one's, bit for bit.
 */
enum kl_status kl_gemm_time_launch(struct gemm_session *s, struct kl_launch_pair *l, int b_col,
                                   const struct kl_protocol *proto, void *C, struct kl_timing *t)
{
    struct kl_stats stats;
    enum kl_status st;
    double dummy;
    if ((st = kl_gemm_session_device(s, b_col)) != KL_OK ||
        (st = kl_gemm_verified_run(s, l, b_col, C, &dummy)) != KL_OK ||
        /* The timed launches overwrite C with the same values; the verified copy is C. */
        (st = kl_measure(s->kl, proto, kl_launch_pair_timed, l, &stats, &s->kl->err)) != KL_OK ||
        (st = end_to_end(s, l, b_col, s->out, &t->total_s)) != KL_OK ||
        (st = same_bits(s, s->out, C)) != KL_OK)
        return st;
    t->median_s = stats.median;
    t->min_s = stats.min;
    t->max_s = stats.max;
    t->repeats = stats.n;
    return KL_OK;
}

/*
 * Runs one rung: checks limits, builds (cached), runs once on a poisoned C
 * and reads the result into C, then times it by the protocol.
 */
enum kl_status kl_gemm_run_rung(struct gemm_session *s, const struct kl_gemm_rung *r,
                                const int *values, const struct kl_protocol *proto, void *C,
                                struct kl_timing *t)
{
    struct kl_context *kl = s->kl;
    struct kl_stats stats;
    enum kl_status st;
    memset(t, 0, sizeof *t);

    if (r->geometry == KL_GEO_HOST) {
        struct host_launch h = {r, s, C};
        double dummy;
        if ((st = host_once(&h, &dummy, &kl->err)) != KL_OK ||
            (st = kl_measure(NULL, proto, host_once, &h, &stats, &kl->err)) != KL_OK)
            return st;
        snprintf(t->options, sizeof t->options, "host, one thread");
        t->median_s = stats.median;
        t->min_s = stats.min;
        t->max_s = stats.max;
        t->repeats = stats.n;
        return KL_OK;
    }
    struct rung_launch rl;
    return (st = kl_gemm_prepare(s, r, values, t, &rl)) != KL_OK
               ? st
               : kl_gemm_time_launch(s, &rl.pair, r->b_col_major, proto, C, t);
}

/* ---- one rung on its own (kl_gemm) ----------------------------------------- */

/* 1 where kl_gemm's arguments are given: params may be NULL, its items not where it counts some. */
static int gemm_args_given(const char *rung, const void *A, const void *B, const void *C,
                           const struct kl_params *params)
{
    return rung && A && B && C && !(params && params->count > 0 && !params->items);
}

enum kl_status kl_gemm(struct kl_context *kl, const char *rung, enum kl_type type, int M, int N,
                       int K, const void *A, const void *B, void *C, const struct kl_params *params,
                       const struct kl_protocol *protocol, struct kl_timing *timing)
{
    struct kl_protocol proto;
    struct kl_timing local_timing;
    struct gemm_session s;
    int values[KL_MAX_PARAMS];
    enum kl_status st;
    const struct kl_gemm_rung *r;

    if (!kl)
        return KL_ERR_ARG;
    if (!gemm_args_given(rung, A, B, C, params))
        return kl_fail(&kl->err, KL_ERR_ARG, "kl_gemm: NULL argument");
    if ((st = kl_gemm_request_check(kl, type, M, N, K, &kl->err)) != KL_OK)
        return st;
    if (!(r = kl_gemm_rung_find(rung)))
        return kl_gemm_rung_not_found(rung, "GEMM rung", &kl->err);
    if (params)
        st = kl_gemm_resolve_items(r, params->items, params->count, values, &kl->err);
    else
        st = kl_gemm_resolve_items(r, NULL, 0, values, &kl->err);
    if (st != KL_OK)
        return st;
    if (protocol)
        proto = *protocol;
    else
        kl_protocol_default(&proto);
    kl_gemm_session_init(&s, kl, type, M, N, K, A, B);
    st = kl_gemm_run_rung(&s, r, values, &proto, C, timing ? timing : &local_timing);
    kl_gemm_session_free(&s);
    return st;
}
