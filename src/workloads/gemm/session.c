/*
 * The GEMM problem and what the device holds of it: the session's host and
 * device buffers, made when the first rung that needs them runs, and the
 * request's checks.
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
        s->kl->ops->release(s->ws);
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

size_t kl_gemm_c_bytes(const struct gemm_session *s)
{
    return (size_t)s->M * (size_t)s->N * kl_type_size(kl_type_output(s->type));
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

/* ---- the request ------------------------------------------------------------ */

/*
 * A request every rung can take: a known type the device has, sizes >= 1,
 * within the kernels' 32-bit indexing and the device's allocation limits.
 * Checked before any host memory is touched, so an impossible request fails
 * at once with the reason.
 */
/* A type a GEMM takes: every one but bytes (uchar). */
static enum kl_status type_check(enum kl_type t, struct kl_err *e)
{
    if ((unsigned)t >= KL_TYPE_COUNT)
        return kl_fail(e, KL_ERR_ARG, "unknown element type %d", (int)t);
    if (t == KL_UCHAR)
        return kl_fail(e, KL_ERR_ARG,
                       "gemm takes float, double, int, half, bf16, fp8, fp8e5m2 or int8, not "
                       "--type uchar");
    return KL_OK;
}

enum kl_status kl_gemm_request_check(const struct kl_context *kl, enum kl_type t, int M, int N,
                                     int K, struct kl_err *e)
{
    static const char *const names[] = {"A (M×K)", "B (K×N)", "C (M×N)"};
    if (type_check(t, e) != KL_OK)
        return KL_ERR_ARG;
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
    enum kl_status st =
        kl_device_fits(kl, (double)total, "the matrices (A, B in both layouts, C)", e);
    if (st != KL_OK)
        return st;
    /* the host's: the same, and C twice (its poison and what is read back) */
    double host = (double)total + (double)elems[2] * kl_type_size(kl_type_output(t));
    return kl_host_fits(host,
                        "the matrices on the host (A, B in both layouts, C's poison and "
                        "read-back)",
                        e);
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
