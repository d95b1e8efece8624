/* The multi-GPU GEMM's reference by cuBLAS DGEMM on its first device (multi/mref.h). */
#include "multi/mref.h"

#ifdef KLADDER_HAVE_CUDA

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "peers/cublas.h"

struct dev_ref {
    const struct kl_menv *env;
    struct kl_context *kl;
    struct kl_buf *a, *b, *c;
    void *stream, *handle;
    double *host; /* staging for A or B in double */
};

/* A (or |A|) and B (or |B|) in double to the device, the product back into out. */
static enum kl_status product(struct dev_ref *r, int absolute, double *out, struct kl_err *e)
{
    const struct kl_menv *env = r->env;
    const struct kl_backend_ops *ops = r->kl->ops;
    size_t M = (size_t)env->M, N = (size_t)env->N, K = (size_t)env->K;
    enum kl_status st;
    for (size_t x = 0; x < M * K; x++)
        r->host[x] = absolute ? fabs((double)env->A[x]) : env->A[x];
    if ((st = ops->write(r->kl->dev, r->a, r->host, M * K * sizeof(double), e)) != KL_OK)
        return st;
    for (size_t x = 0; x < K * N; x++)
        r->host[x] = absolute ? fabs((double)env->B[x]) : env->B[x];
    if ((st = ops->write(r->kl->dev, r->b, r->host, K * N * sizeof(double), e)) != KL_OK ||
        (st = ops->make_current(r->kl->dev, e)) != KL_OK ||
        (st = kl_cublas_dgemm_on(r->handle, env->M, env->N, env->K, ops->device_ptr(r->a),
                                 ops->device_ptr(r->b), ops->device_ptr(r->c), e)) != KL_OK ||
        (st = ops->stream_sync(r->kl->dev, r->stream, e)) != KL_OK)
        return st;
    return ops->read(r->kl->dev, r->c, out, M * N * sizeof(double), e);
}

enum kl_status kl_mref_open(const struct kl_menv *env, int device, unsigned long long seed,
                            struct kl_gemm_reference **out, struct kl_err *e)
{
    size_t M = (size_t)env->M, N = (size_t)env->N, K = (size_t)env->K;
    struct dev_ref r = {.env = env, .kl = env->dev[0].kl};
    const struct kl_backend_ops *ops = r.kl->ops;
    double *ref = malloc(M * N * sizeof *ref), *scale = malloc(M * N * sizeof *scale);
    char how[128];
    enum kl_status st = KL_OK;
    r.host = malloc((M * K > K * N ? M * K : K * N) * sizeof *r.host);
    if (!ref || !scale || !r.host)
        st = kl_fail(e, KL_ERR_NO_MEMORY, "no host memory for a reference in double");
    if (st == KL_OK)
        st = ops->alloc(r.kl->dev, M * K * sizeof(double), &r.a, e);
    if (st == KL_OK)
        st = ops->alloc(r.kl->dev, K * N * sizeof(double), &r.b, e);
    if (st == KL_OK)
        st = ops->alloc(r.kl->dev, M * N * sizeof(double), &r.c, e);
    if (st == KL_OK)
        st = ops->stream_create(r.kl->dev, &r.stream, e);
    if (st == KL_OK)
        st = kl_cublas_handle_open(device, r.stream, &r.handle, e);
    if (st == KL_OK && (st = product(&r, 0, ref, e)) == KL_OK)
        st = product(&r, 1, scale, e);
    kl_cublas_handle_close(r.handle);
    if (r.stream)
        ops->stream_destroy(r.kl->dev, r.stream);
    struct kl_buf *bufs[3] = {r.a, r.b, r.c};
    for (int i = 0; i < 3; i++)
        if (bufs[i])
            ops->release(bufs[i]);
    free(r.host);
    if (st != KL_OK) {
        free(ref);
        free(scale);
        return st;
    }
    snprintf(how, sizeof how,
             "all elements, double, cuBLAS DGEMM on CUDA device %d (%d checked on the host)",
             device, KL_GEMM_SPOT_CHECKS);
    return kl_gemm_reference_adopt(KL_FLOAT, env->M, env->N, env->K, env->A, env->B, seed, ref,
                                   scale, how, out, e);
}

#endif /* KLADDER_HAVE_CUDA */
