/*
 * The GEMM problem and what the device holds of it: the request's checks,
 * the session's host and device buffers, and one rung's run, verified on a
 * poisoned C and then timed (kl_gemm, the one-rung API, is here too).
 */
#include "workloads/gemm/parts.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "core/verify.h"

/* ---- the session: the problem's host and device buffers ------------------ */

void kl_gemm_session_free(struct gemm_session *s)
{
    if (s->kl) {
        s->kl->ops->release(s->dA);
        s->kl->ops->release(s->dB);
        s->kl->ops->release(s->dBt);
        s->kl->ops->release(s->dC);
        s->kl->ops->release(s->dBp);
        s->kl->ops->release(s->dAp);
        s->kl->ops->release(s->dAr);
        for (int i = 0; i < 3; i++)
            for (int l = 0; l < KL_OZAKI_MAX; l++)
                s->kl->ops->release(s->oz_view[i][l]);
        for (int i = 0; i < 6; i++)
            s->kl->ops->release(s->oz[i]);
    }
    free(s->Bt);
    free(s->poison);
    free(s->out);
}

void kl_gemm_session_init(struct gemm_session *s, struct kl_context *kl, enum kl_type t, int M,
                          int N, int K, const void *A, const void *B)
{
    memset(s, 0, sizeof *s);
    s->kl = kl;
    s->type = t;
    s->M = M, s->N = N, s->K = K;
    s->A = A, s->B = B;
}

enum kl_status kl_gemm_session_buffer(struct gemm_session *s, size_t elems, struct kl_buf **out)
{
    struct kl_context *kl = s->kl;
    /* C's buffer holds the type the sums are kept in; every other one the inputs' */
    size_t es = kl_type_size(out == &s->dC ? kl_type_output(s->type) : s->type);
    if (*out)
        return KL_OK;
    return kl->ops->alloc(kl->dev, elems * es, out, &kl->err);
}

enum kl_status kl_gemm_session_bt(struct gemm_session *s)
{
    size_t es = kl_type_size(s->type), N = (size_t)s->N, K = (size_t)s->K;
    if (s->Bt)
        return KL_OK;
    if (!(s->Bt = malloc(K * N * es)))
        return kl_fail(&s->kl->err, KL_ERR_NO_MEMORY, "out of host memory for Bᵀ");
    for (size_t k = 0; k < K; k++)
        for (size_t n = 0; n < N; n++)
            memcpy((char *)s->Bt + (n * K + k) * es, (const char *)s->B + (k * N + n) * es, es);
    return KL_OK;
}

/* Makes what a device rung with this B layout needs, once. */
enum kl_status kl_gemm_session_device(struct gemm_session *s, int b_col)
{
    struct kl_context *kl = s->kl;
    size_t M = (size_t)s->M, N = (size_t)s->N, K = (size_t)s->K;
    size_t cs = kl_type_size(kl_type_output(s->type));
    enum kl_status st;
    if (!s->poison) {
        s->poison = malloc((M * N + KL_GEMM_GUARD) * cs);
        s->out = malloc((M * N + KL_GEMM_GUARD) * cs);
        if (!s->poison || !s->out)
            return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory for %d×%d×%d", s->M,
                           s->N, s->K);
        kl_poison(kl_type_output(s->type), s->poison, M * N + KL_GEMM_GUARD);
    }
    if (b_col && (st = kl_gemm_session_bt(s)) != KL_OK)
        return st;
    if ((st = kl_gemm_session_buffer(s, M * K, &s->dA)) != KL_OK ||
        (st = kl_gemm_session_buffer(s, K * N, b_col ? &s->dBt : &s->dB)) != KL_OK ||
        (st = kl_gemm_session_buffer(s, M * N + KL_GEMM_GUARD, &s->dC)) != KL_OK)
        return st;
    return KL_OK;
}

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

/* Median of three end-to-end runs: upload A and B, launch, download C. */
static enum kl_status end_to_end(struct gemm_session *s, struct kl_launch_pair *l, int b_col,
                                 void *C, double *out)
{
    struct kl_context *kl = s->kl;
    double t[3];
    for (int i = 0; i < 3; i++) {
        enum kl_status st;
        double t0 = kl_now(), dummy;
        if ((st = upload_inputs(s, b_col)) != KL_OK ||
            (st = kl_launch_pair_timed(l, &dummy, &kl->err)) != KL_OK ||
            (st = kl->ops->read(kl->dev, s->dC, C,
                                (size_t)s->M * s->N * kl_type_size(kl_type_output(s->type)),
                                &kl->err)) != KL_OK)
            return st;
        t[i] = kl_now() - t0;
    }
    struct kl_stats stats;
    kl_stats_compute(t, 3, &stats);
    *out = stats.median;
    return KL_OK;
}

/*
 * Uploads the inputs, launches once on a poisoned C (*first_s: its event
 * time), reads C back into C and checks that nothing was written past it.
 */
enum kl_status kl_gemm_verified_run(struct gemm_session *s, struct kl_launch_pair *l, int b_col,
                                    void *C, double *first_s)
{
    struct kl_context *kl = s->kl;
    size_t es = kl_type_size(kl_type_output(s->type)), cbytes = (size_t)s->M * s->N * es;
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
 * A prepared device launch: run once on a poisoned C, read into C and
 * checked for writes past it, then timed by the protocol and end to end
 * into t (its build time and options left as they are).
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
        (st = end_to_end(s, l, b_col, s->out, &t->total_s)) != KL_OK)
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

/* ---- the request, and one rung on its own (kl_gemm) ----------------------- */

/*
 * A request every rung can take: a known type the device has, sizes >= 1,
 * within the kernels' 32-bit indexing and the device's allocation limits.
 * Checked before any host memory is touched, so an impossible request fails
 * at once with the reason.
 */
enum kl_status kl_gemm_request_check(const struct kl_context *kl, enum kl_type t, int M, int N,
                                     int K, struct kl_err *e)
{
    static const char *const names[] = {"A (M×K)", "B (K×N)", "C (M×N)"};
    if ((unsigned)t >= KL_TYPE_COUNT)
        return kl_fail(e, KL_ERR_ARG, "unknown element type %d", (int)t);
    /* |a·b| <= 2^14 for int8, so K products sum within int32 up to K = 131071 */
    if (t == KL_INT8 && K > INT32_MAX / (128 * 128))
        return kl_fail(e, KL_ERR_ARG,
                       "K=%d: int8 products (up to 2^14 each) could overflow their int32 sums "
                       "beyond K=%d",
                       K, INT32_MAX / (128 * 128));
    if (t == KL_DOUBLE && !kl->info.fp64)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "device %s has no double precision (cl_khr_fp64); use --type float",
                       kl->info.name);
    if (M < 1 || N < 1 || K < 1)
        return kl_fail(e, KL_ERR_ARG, "sizes must be >= 1 (got M=%d N=%d K=%d)", M, N, K);
    uint64_t elems[3] = {(uint64_t)M * K, (uint64_t)K * N, (uint64_t)M * N + KL_GEMM_GUARD};
    uint64_t total = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t es = kl_type_size(i == 2 ? kl_type_output(t) : t);
        if (elems[i] > INT32_MAX) {
            /* C's own elements; the guard band after it (checked for stray writes) apart. */
            uint64_t own = i == 2 ? elems[i] - KL_GEMM_GUARD : elems[i];
            return kl_fail(e, KL_ERR_ARG,
                           "M=%d N=%d K=%d: %s would have %llu elements%s, beyond the kernels' "
                           "32-bit indexing (2^31-1)",
                           M, N, K, names[i], (unsigned long long)own,
                           own <= INT32_MAX ? " and the guard band after it" : "");
        }
        if (elems[i] * es > kl->info.max_alloc)
            return kl_fail(e, KL_ERR_NO_MEMORY,
                           "%s needs %.1f MiB, more than the device's largest allocation "
                           "(%.1f MiB, CL_DEVICE_MAX_MEM_ALLOC_SIZE); use smaller sizes",
                           names[i], elems[i] * es / 1048576.0, kl->info.max_alloc / 1048576.0);
        total += elems[i] * es;
    }
    total += elems[1] * kl_type_size(t); /* B may be kept in both layouts */
    return kl_device_fits(kl, (double)total, "the matrices (A, B in both layouts, C)", e);
}

int kl_gemm_request_chooses(const struct kl_gemm_request *req, const struct kl_gemm_rung *r)
{
    if (req->nrungs == 0)
        return !(req->host_rungs < 0 && r->geometry == KL_GEO_HOST);
    for (int j = 0; j < req->nrungs; j++)
        if (kl_gemm_rung_find(req->rungs[j]) == r)
            return 1;
    return 0;
}

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
