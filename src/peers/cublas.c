/*
 * cuBLAS through the CUDA runtime, both loaded at run time (kladder needs
 * neither to build). It runs on the ladder's GPU with its own copies of the
 * data; its time is a pair of CUDA events around the call.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "peers/cublas.h"
#include "peers/cudart.h"
#include "peers/peers_impl.h"

/* The cuBLAS entry points used, with their C types. */
typedef int (*cublas_create_fn)(void **);
typedef int (*cublas_destroy_fn)(void *);
typedef int (*cublas_sgemv_fn)(void *, int, int, int, const float *, const float *, int,
                               const float *, int, const float *, float *, int);
typedef int (*cublas_dgemv_fn)(void *, int, int, int, const double *, const double *, int,
                               const double *, int, const double *, double *, int);
typedef int (*cublas_sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int,
                               const float *, int, const float *, float *, int);
typedef int (*cublas_dgemm_fn)(void *, int, int, int, int, int, const double *, const double *, int,
                               const double *, int, const double *, double *, int);
typedef int (*cublas_sgeam_fn)(void *, int, int, int, int, const float *, const float *, int,
                               const float *, const float *, int, float *, int);
typedef int (*cublas_dgeam_fn)(void *, int, int, int, int, const double *, const double *, int,
                               const double *, const double *, int, double *, int);
typedef int (*cublas_math_fn)(void *, int);
typedef int (*cublas_stream_fn)(void *, void *);
typedef int (*cublas_gemm_ex_fn)(void *, int, int, int, int, int, const void *, const void *, int,
                                 int, const void *, int, int, const void *, void *, int, int, int,
                                 int);
/* Values from cublas_api.h and library_types.h (CUDA 11 and later). */
enum {
    CUBLAS_OP_N = 0,
    CUBLAS_OP_T = 1,
    CUBLAS_DEFAULT_MATH = 0,
    CUDA_R_32F = 0,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    CUBLAS_GEMM_DEFAULT = -1
};

static struct {
    int loaded;
    char why[256];
    const struct kl_cudart *rt;
    cublas_create_fn create;
    cublas_destroy_fn destroy;
    cublas_sgemv_fn sgemv;
    cublas_dgemv_fn dgemv;
    cublas_sgemm_fn sgemm;
    cublas_dgemm_fn dgemm;
    cublas_sgeam_fn sgeam;
    cublas_dgeam_fn dgeam;
    cublas_math_fn math_mode;
    cublas_gemm_ex_fn gemm_ex;
    cublas_stream_fn set_stream;
} cu;

/* POSIX allows converting dlsym's object pointer to a function pointer. */
#define LOAD(lib, field, name)                                                                     \
    do {                                                                                           \
        void *f_ = dlsym(lib, name);                                                               \
        if (!f_) {                                                                                 \
            snprintf(cu.why, sizeof cu.why, "%s is missing from the cuBLAS library", name);        \
            return -1;                                                                             \
        }                                                                                          \
        *(void **)&cu.field = f_;                                                                  \
    } while (0)

static int load(void)
{
    static const char *const names[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    void *b;
    if (cu.loaded)
        return cu.loaded > 0 ? 0 : -1;
    cu.loaded = -1;
    if (!(b = kl_dlopen_first(names, sizeof names / sizeof *names, 0, NULL))) {
        snprintf(cu.why, sizeof cu.why, "cuBLAS is not available (libcublas.so not found)");
        return -1;
    }
    LOAD(b, create, "cublasCreate_v2");
    LOAD(b, destroy, "cublasDestroy_v2");
    LOAD(b, sgemv, "cublasSgemv_v2");
    LOAD(b, dgemv, "cublasDgemv_v2");
    LOAD(b, sgemm, "cublasSgemm_v2");
    LOAD(b, dgemm, "cublasDgemm_v2");
    LOAD(b, sgeam, "cublasSgeam");
    LOAD(b, dgeam, "cublasDgeam");
    LOAD(b, math_mode, "cublasSetMathMode");
    LOAD(b, gemm_ex, "cublasGemmEx");
    LOAD(b, set_stream, "cublasSetStream_v2");
    cu.loaded = 1;
    return 0;
}

/* One peer's run: a cuBLAS handle beside the runtime's buffers and events. */
struct cublas_run {
    void *handle;
    struct kl_cudart_run r;
};

static void run_close(struct cublas_run *r)
{
    kl_cudart_run_close(&r->r);
    if (r->handle)
        cu.destroy(r->handle);
}

static enum kl_status run_open(struct cublas_run *r, const void *const host[3], struct kl_err *e)
{
    /* Default math: fp32 on the FMA units; TF32 only where a call's compute type asks. */
    if (cu.create(&r->handle) != 0 || cu.math_mode(r->handle, CUBLAS_DEFAULT_MATH) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cuBLAS set-up failed (handle)");
    return kl_cudart_run_open(&r->r, host, e);
}

/* The ladder's GPU made current (cudart.c), then cuBLAS loaded. */
static enum kl_status check_peer(const struct kl_context *kl, int *dev, struct kl_err *e)
{
    enum kl_status st = kl_cudart_device(kl, "cuBLAS", dev, e);
    if (st != KL_OK)
        return st;
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", cu.why);
    cu.rt = kl_cudart(cu.why, sizeof cu.why);
    return KL_OK;
}

struct cublas_gemv {
    const struct kl_gemv_problem *p;
    struct cublas_run r; /* A, x, y */
};

static enum kl_status gemv_once(void *arg, double *seconds, struct kl_err *e)
{
    struct cublas_gemv *g = arg;
    const struct kl_gemv_problem *p = g->p;
    void **b = g->r.r.buf;
    /* cuBLAS is column-major: a row-major M×N matrix is its transpose, N×M. */
    int row = p->layout == KL_ROW_MAJOR;
    int op = row ? CUBLAS_OP_T : CUBLAS_OP_N, m = row ? p->N : p->M, n = row ? p->M : p->N;
    int rc;
    cu.rt->event_record(g->r.r.start, NULL);
    if (p->type == KL_FLOAT) {
        float a = (float)p->alpha, beta = (float)p->beta;
        rc = cu.sgemv(g->r.handle, op, m, n, &a, b[0], m, b[1], 1, &beta, b[2], 1);
    } else {
        rc = cu.dgemv(g->r.handle, op, m, n, &p->alpha, b[0], m, b[1], 1, &p->beta, b[2], 1);
    }
    cu.rt->event_record(g->r.r.stop, NULL);
    return kl_cudart_run_time(&g->r.r, rc, "cuBLAS gemv", seconds, e);
}

enum kl_status kl_cublas_gemv(struct kl_context *kl, const struct kl_gemv_problem *p,
                              const struct kl_protocol *proto, void *y, struct kl_stats *stats,
                              char *what, size_t n, struct kl_err *e)
{
    size_t es = kl_type_size(p->type);
    struct cublas_gemv g = {
        .p = p, .r.r.bytes = {(size_t)p->M * p->N * es, (size_t)p->N * es, (size_t)p->M * es}};
    const void *host[3] = {p->A, p->x, p->y0};
    int dev = 0;
    enum kl_status st = check_peer(kl, &dev, e);
    if (st != KL_OK)
        return st;
    snprintf(what, n, "cuBLAS %s on CUDA device %d, CUDA event time",
             p->type == KL_FLOAT ? "cublasSgemv" : "cublasDgemv", dev);
    if ((st = run_open(&g.r, host, e)) == KL_OK)
        st = kl_cudart_run_measure(kl, &g.r.r, gemv_once, &g, proto, y, stats, e);
    run_close(&g.r);
    return st;
}

struct cublas_gemm {
    const struct kl_gemm_problem *p;
    struct cublas_run r; /* A, B, C */
};

static enum kl_status gemm_once(void *arg, double *seconds, struct kl_err *e)
{
    struct cublas_gemm *g = arg;
    const struct kl_gemm_problem *p = g->p;
    void **b = g->r.r.buf;
    /* Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: swap the operands, no transposes. */
    int rc;
    cu.rt->event_record(g->r.r.start, NULL);
    if (p->type == KL_FLOAT && p->tf32) {
        /* CUBLAS_COMPUTE_32F_FAST_TF32: the inputs may be rounded to TF32 for the tensor cores. */
        const float one = 1.0f, zero = 0.0f;
        rc = cu.gemm_ex(g->r.handle, CUBLAS_OP_N, CUBLAS_OP_N, p->N, p->M, p->K, &one, b[1],
                        CUDA_R_32F, p->N, b[0], CUDA_R_32F, p->K, &zero, b[2], CUDA_R_32F, p->N,
                        CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    } else if (p->type == KL_FLOAT) {
        /* Default math: CUBLAS_COMPUTE_32F, fp32 on the FMA units. */
        const float one = 1.0f, zero = 0.0f;
        rc = cu.sgemm(g->r.handle, CUBLAS_OP_N, CUBLAS_OP_N, p->N, p->M, p->K, &one, b[1], p->N,
                      b[0], p->K, &zero, b[2], p->N);
    } else {
        const double one = 1.0, zero = 0.0;
        rc = cu.dgemm(g->r.handle, CUBLAS_OP_N, CUBLAS_OP_N, p->N, p->M, p->K, &one, b[1], p->N,
                      b[0], p->K, &zero, b[2], p->N);
    }
    cu.rt->event_record(g->r.r.stop, NULL);
    return kl_cudart_run_time(&g->r.r, rc, "cuBLAS gemm", seconds, e);
}

enum kl_status kl_cublas_gemm(struct kl_context *kl, const struct kl_gemm_problem *p,
                              const struct kl_protocol *proto, void *C, struct kl_stats *stats,
                              char *what, size_t n, struct kl_err *e)
{
    size_t es = kl_type_size(p->type);
    struct cublas_gemm g = {
        .p = p,
        .r.r.bytes = {(size_t)p->M * p->K * es, (size_t)p->K * p->N * es, (size_t)p->M * p->N * es}};
    const void *host[3] = {p->A, p->B, NULL};
    int dev = 0;
    enum kl_status st = check_peer(kl, &dev, e);
    if (st != KL_OK)
        return st;
    if (p->tf32)
        snprintf(what, n,
                 "cuBLAS cublasGemmEx (CUBLAS_COMPUTE_32F_FAST_TF32: TF32 tensor cores) on CUDA "
                 "device %d, CUDA event time",
                 dev);
    else
        snprintf(what, n, "cuBLAS %s (default math, no TF32) on CUDA device %d, CUDA event time",
                 p->type == KL_FLOAT ? "cublasSgemm" : "cublasDgemm", dev);
    if ((st = run_open(&g.r, host, e)) == KL_OK)
        st = kl_cudart_run_measure(kl, &g.r.r, gemm_once, &g, proto, C, stats, e);
    run_close(&g.r);
    return st;
}

struct cublas_transpose {
    const struct kl_transpose_problem *p;
    struct cublas_run r; /* A, (none), B */
};

static enum kl_status transpose_once(void *arg, double *seconds, struct kl_err *e)
{
    struct cublas_transpose *g = arg;
    const struct kl_transpose_problem *p = g->p;
    void **b = g->r.r.buf;
    /*
     * Row-major A (m×n) is column-major Aᵀ with ld n; the row-major n×m result is column-major
     * m×n with ld m: C = op_T(A) + 0·C, C standing in for the B that beta 0 leaves unread.
     */
    int rc;
    cu.rt->event_record(g->r.r.start, NULL);
    if (p->type == KL_FLOAT) {
        const float one = 1.0f, zero = 0.0f;
        rc = cu.sgeam(g->r.handle, CUBLAS_OP_T, CUBLAS_OP_N, p->m, p->n, &one, b[0], p->n, &zero,
                      b[2], p->m, b[2], p->m);
    } else {
        const double one = 1.0, zero = 0.0;
        rc = cu.dgeam(g->r.handle, CUBLAS_OP_T, CUBLAS_OP_N, p->m, p->n, &one, b[0], p->n, &zero,
                      b[2], p->m, b[2], p->m);
    }
    cu.rt->event_record(g->r.r.stop, NULL);
    return kl_cudart_run_time(&g->r.r, rc, "cuBLAS geam", seconds, e);
}

enum kl_status kl_cublas_transpose(struct kl_context *kl, const struct kl_transpose_problem *p,
                                   const struct kl_protocol *proto, void *out,
                                   struct kl_stats *stats, char *what, size_t n, struct kl_err *e)
{
    size_t bytes = (size_t)p->m * p->n * kl_type_size(p->type);
    struct cublas_transpose g = {.p = p, .r.r.bytes = {bytes, 0, bytes}};
    const void *host[3] = {p->a, NULL, NULL};
    int dev = 0;
    if (p->type != KL_FLOAT && p->type != KL_DOUBLE)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "cuBLAS geam transposes float and double, not %s",
                       kl_type_name(p->type));
    if (p->in_place)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "cuBLAS geam transposes out of place only (C = A needs A untransposed)");
    enum kl_status st = check_peer(kl, &dev, e);
    if (st != KL_OK)
        return st;
    snprintf(what, n, "cuBLAS %s (C = Aᵀ, beta 0) on CUDA device %d, CUDA event time",
             p->type == KL_FLOAT ? "cublasSgeam" : "cublasDgeam", dev);
    if ((st = run_open(&g.r, host, e)) == KL_OK)
        st = kl_cudart_run_measure(kl, &g.r.r, transpose_once, &g, proto, out, stats, e);
    run_close(&g.r);
    return st;
}

/* ---- on the caller's buffers and streams (peers/cublas.h) ------------------- */

enum kl_status kl_cublas_handle_open(int device, void *stream, void **handle, struct kl_err *e)
{
    *handle = NULL;
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", cu.why);
    if (!(cu.rt = kl_cudart(cu.why, sizeof cu.why)))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "cuBLAS is not available: %s", cu.why);
    if (cu.rt->set_device(device) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cudaSetDevice(%d) failed", device);
    if (cu.create(handle) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cuBLAS set-up failed (handle on CUDA device %d)",
                       device);
    /* Default math: fp32 on the FMA units, as kl_cublas_gemm's SGEMM row. */
    if (cu.math_mode(*handle, CUBLAS_DEFAULT_MATH) != 0 || cu.set_stream(*handle, stream) != 0) {
        kl_cublas_handle_close(*handle);
        *handle = NULL;
        return kl_fail(e, KL_ERR_BACKEND, "cuBLAS set-up failed (math mode or stream)");
    }
    return KL_OK;
}

void kl_cublas_handle_close(void *handle)
{
    if (handle)
        cu.destroy(handle);
}

enum kl_status kl_cublas_sgemm_on(void *handle, int M, int N, int K, unsigned long long A,
                                  unsigned long long B, unsigned long long C, struct kl_err *e)
{
    const float one = 1.0f, zero = 0.0f;
    /* Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: swap the operands, no transposes. */
    int rc = cu.sgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one,
                      (const float *)(uintptr_t)B, N, (const float *)(uintptr_t)A, K, &zero,
                      (float *)(uintptr_t)C, N);
    if (rc != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cublasSgemm (%d×%d×%d) failed with status %d", M, N,
                       K, rc);
    return KL_OK;
}

enum kl_status kl_cublas_dgemm_on(void *handle, int M, int N, int K, unsigned long long A,
                                  unsigned long long B, unsigned long long C, struct kl_err *e)
{
    const double one = 1.0, zero = 0.0;
    int rc = cu.dgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, (const double *)(uintptr_t)B,
                      N, (const double *)(uintptr_t)A, K, &zero, (double *)(uintptr_t)C, N);
    if (rc != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cublasDgemm (%d×%d×%d) failed with status %d", M, N, K,
                       rc);
    return KL_OK;
}
