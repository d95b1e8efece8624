/*
 * cuBLAS through the CUDA runtime, both loaded at run time (kladder needs
 * neither to build). It runs on CUDA device 0 with its own copies of the
 * data; its time is a pair of CUDA events around the call.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "peers/peers_impl.h"

/* The few CUDA runtime and cuBLAS entry points used, with their C types. */
typedef int (*cuda_count_fn)(int *);
typedef int (*cuda_malloc_fn)(void **, size_t);
typedef int (*cuda_free_fn)(void *);
typedef int (*cuda_memcpy_fn)(void *, const void *, size_t, int);
typedef int (*cuda_event_create_fn)(void **);
typedef int (*cuda_event_fn)(void *);
typedef int (*cuda_event_record_fn)(void *, void *);
typedef int (*cuda_elapsed_fn)(float *, void *, void *);
typedef int (*cublas_create_fn)(void **);
typedef int (*cublas_destroy_fn)(void *);
typedef int (*cublas_sgemv_fn)(void *, int, int, int, const float *, const float *, int,
                               const float *, int, const float *, float *, int);
typedef int (*cublas_dgemv_fn)(void *, int, int, int, const double *, const double *, int,
                               const double *, int, const double *, double *, int);
typedef int (*cublas_sgemm_fn)(void *, int, int, int, int, int, const float *, const float *, int,
                               const float *, int, const float *, float *, int);
typedef int (*cublas_dgemm_fn)(void *, int, int, int, int, int, const double *, const double *,
                               int, const double *, int, const double *, double *, int);
typedef int (*cublas_math_fn)(void *, int);
enum { H2D = 1, D2H = 2, CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_DEFAULT_MATH = 0 };

static struct {
    int loaded;
    char why[256];
    cuda_count_fn count;
    cuda_malloc_fn malloc_;
    cuda_free_fn free_;
    cuda_memcpy_fn memcpy_;
    cuda_event_create_fn event_create;
    cuda_event_fn event_sync, event_destroy;
    cuda_event_record_fn event_record;
    cuda_elapsed_fn elapsed;
    cublas_create_fn create;
    cublas_destroy_fn destroy;
    cublas_sgemv_fn sgemv;
    cublas_dgemv_fn dgemv;
    cublas_sgemm_fn sgemm;
    cublas_dgemm_fn dgemm;
    cublas_math_fn math_mode;
} cu;

static void *open_first(const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    return NULL;
}

/* POSIX allows converting dlsym's object pointer to a function pointer. */
#define LOAD(lib, field, name)                                                                     \
    do {                                                                                           \
        void *f_ = dlsym(lib, name);                                                               \
        if (!f_) {                                                                                 \
            snprintf(cu.why, sizeof cu.why, "%s is missing from the CUDA libraries", name);        \
            return -1;                                                                             \
        }                                                                                          \
        *(void **)&cu.field = f_;                                                                  \
    } while (0)

static int load(void)
{
    static const char *const rt[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
    static const char *const bl[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    void *r, *b;
    if (cu.loaded)
        return cu.loaded > 0 ? 0 : -1;
    cu.loaded = -1;
    if (!(r = open_first(rt, 3)) || !(b = open_first(bl, 3))) {
        snprintf(cu.why, sizeof cu.why,
                 "cuBLAS is not available (libcudart.so and libcublas.so not found)");
        return -1;
    }
    LOAD(r, count, "cudaGetDeviceCount");
    LOAD(r, malloc_, "cudaMalloc");
    LOAD(r, free_, "cudaFree");
    LOAD(r, memcpy_, "cudaMemcpy");
    LOAD(r, event_create, "cudaEventCreate");
    LOAD(r, event_record, "cudaEventRecord");
    LOAD(r, event_sync, "cudaEventSynchronize");
    LOAD(r, event_destroy, "cudaEventDestroy");
    LOAD(r, elapsed, "cudaEventElapsedTime");
    LOAD(b, create, "cublasCreate_v2");
    LOAD(b, destroy, "cublasDestroy_v2");
    LOAD(b, sgemv, "cublasSgemv_v2");
    LOAD(b, dgemv, "cublasDgemv_v2");
    LOAD(b, sgemm, "cublasSgemm_v2");
    LOAD(b, dgemm, "cublasDgemm_v2");
    LOAD(b, math_mode, "cublasSetMathMode");
    int devices = 0;
    if (cu.count(&devices) != 0 || devices < 1) {
        snprintf(cu.why, sizeof cu.why, "cuBLAS found no CUDA device");
        return -1;
    }
    cu.loaded = 1;
    return 0;
}

struct cublas_gemv {
    const struct kl_gemv_problem *p;
    void *handle, *A, *x, *y, *start, *stop;
};

static enum kl_status gemv_once(void *arg, double *seconds, struct kl_err *e)
{
    struct cublas_gemv *g = arg;
    const struct kl_gemv_problem *p = g->p;
    /* cuBLAS is column-major: a row-major M×N matrix is its transpose, N×M. */
    int row = p->layout == KL_ROW_MAJOR;
    int op = row ? CUBLAS_OP_T : CUBLAS_OP_N, m = row ? p->N : p->M, n = row ? p->M : p->N;
    int rc;
    float ms = 0;
    cu.event_record(g->start, NULL);
    if (p->type == KL_FLOAT) {
        float a = (float)p->alpha, b = (float)p->beta;
        rc = cu.sgemv(g->handle, op, m, n, &a, g->A, m, g->x, 1, &b, g->y, 1);
    } else {
        rc = cu.dgemv(g->handle, op, m, n, &p->alpha, g->A, m, g->x, 1, &p->beta, g->y, 1);
    }
    cu.event_record(g->stop, NULL);
    if (rc != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cuBLAS gemv failed with status %d", rc);
    if (cu.event_sync(g->stop) != 0 || cu.elapsed(&ms, g->start, g->stop) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "CUDA events could not time cuBLAS");
    *seconds = ms * 1e-3;
    return KL_OK;
}

enum kl_status kl_cublas_gemv(struct kl_context *kl, const struct kl_gemv_problem *p,
                              const struct kl_protocol *proto, void *y, struct kl_stats *stats,
                              char *what, size_t n, struct kl_err *e)
{
    struct cublas_gemv g = {.p = p};
    size_t es = kl_type_size(p->type), a = (size_t)p->M * p->N * es;
    enum kl_status st = KL_OK;
    double dummy;

    if (!kl_contains_nocase(kl->info.vendor, "nvidia"))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "cuBLAS runs beside NVIDIA devices only");
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", cu.why);
    snprintf(what, n, "cuBLAS %s on CUDA device 0, CUDA event time",
             p->type == KL_FLOAT ? "cublasSgemv" : "cublasDgemv");
    if (cu.create(&g.handle) != 0 || cu.event_create(&g.start) != 0 ||
        cu.event_create(&g.stop) != 0 || cu.malloc_(&g.A, a) != 0 ||
        cu.malloc_(&g.x, (size_t)p->N * es) != 0 || cu.malloc_(&g.y, (size_t)p->M * es) != 0) {
        st = kl_fail(e, KL_ERR_NO_MEMORY, "cuBLAS set-up failed (handle, events or cudaMalloc)");
        goto done;
    }
    if (cu.memcpy_(g.A, p->A, a, H2D) != 0 || cu.memcpy_(g.x, p->x, (size_t)p->N * es, H2D) != 0 ||
        cu.memcpy_(g.y, p->y0, (size_t)p->M * es, H2D) != 0) {
        st = kl_fail(e, KL_ERR_BACKEND, "cudaMemcpy to the device failed");
        goto done;
    }
    if ((st = gemv_once(&g, &dummy, e)) != KL_OK)
        goto done;
    if (cu.memcpy_(y, g.y, (size_t)p->M * es, D2H) != 0) {
        st = kl_fail(e, KL_ERR_BACKEND, "cudaMemcpy from the device failed");
        goto done;
    }
    st = kl_measure(proto, gemv_once, &g, stats, e);
done:
    if (g.A)
        cu.free_(g.A);
    if (g.x)
        cu.free_(g.x);
    if (g.y)
        cu.free_(g.y);
    if (g.start)
        cu.event_destroy(g.start);
    if (g.stop)
        cu.event_destroy(g.stop);
    if (g.handle)
        cu.destroy(g.handle);
    return st;
}

struct cublas_gemm {
    const struct kl_gemm_problem *p;
    void *handle, *A, *B, *C, *start, *stop;
};

static enum kl_status gemm_once(void *arg, double *seconds, struct kl_err *e)
{
    struct cublas_gemm *g = arg;
    const struct kl_gemm_problem *p = g->p;
    /* Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: swap the operands, no transposes. */
    int rc;
    float ms = 0;
    cu.event_record(g->start, NULL);
    if (p->type == KL_FLOAT) {
        const float one = 1.0f, zero = 0.0f;
        rc = cu.sgemm(g->handle, CUBLAS_OP_N, CUBLAS_OP_N, p->N, p->M, p->K, &one, g->B, p->N,
                      g->A, p->K, &zero, g->C, p->N);
    } else {
        const double one = 1.0, zero = 0.0;
        rc = cu.dgemm(g->handle, CUBLAS_OP_N, CUBLAS_OP_N, p->N, p->M, p->K, &one, g->B, p->N,
                      g->A, p->K, &zero, g->C, p->N);
    }
    cu.event_record(g->stop, NULL);
    if (rc != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cuBLAS gemm failed with status %d", rc);
    if (cu.event_sync(g->stop) != 0 || cu.elapsed(&ms, g->start, g->stop) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "CUDA events could not time cuBLAS");
    *seconds = ms * 1e-3;
    return KL_OK;
}

enum kl_status kl_cublas_gemm(struct kl_context *kl, const struct kl_gemm_problem *p,
                              const struct kl_protocol *proto, void *C, struct kl_stats *stats,
                              char *what, size_t n, struct kl_err *e)
{
    struct cublas_gemm g = {.p = p};
    size_t es = kl_type_size(p->type), a = (size_t)p->M * p->K * es, b = (size_t)p->K * p->N * es,
           c = (size_t)p->M * p->N * es;
    enum kl_status st = KL_OK;
    double dummy;

    if (!kl_contains_nocase(kl->info.vendor, "nvidia"))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "cuBLAS runs beside NVIDIA devices only");
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", cu.why);
    /* Default math: fp32 on the FMA units; TF32 tensor cores only if asked, never here. */
    snprintf(what, n, "cuBLAS %s (default math, no TF32) on CUDA device 0, CUDA event time",
             p->type == KL_FLOAT ? "cublasSgemm" : "cublasDgemm");
    if (cu.create(&g.handle) != 0 || cu.math_mode(g.handle, CUBLAS_DEFAULT_MATH) != 0 ||
        cu.event_create(&g.start) != 0 || cu.event_create(&g.stop) != 0 ||
        cu.malloc_(&g.A, a) != 0 || cu.malloc_(&g.B, b) != 0 || cu.malloc_(&g.C, c) != 0) {
        st = kl_fail(e, KL_ERR_NO_MEMORY, "cuBLAS set-up failed (handle, events or cudaMalloc)");
        goto done;
    }
    if (cu.memcpy_(g.A, p->A, a, H2D) != 0 || cu.memcpy_(g.B, p->B, b, H2D) != 0) {
        st = kl_fail(e, KL_ERR_BACKEND, "cudaMemcpy to the device failed");
        goto done;
    }
    if ((st = gemm_once(&g, &dummy, e)) != KL_OK)
        goto done;
    if (cu.memcpy_(C, g.C, c, D2H) != 0) {
        st = kl_fail(e, KL_ERR_BACKEND, "cudaMemcpy from the device failed");
        goto done;
    }
    st = kl_measure(proto, gemm_once, &g, stats, e);
done:
    if (g.A)
        cu.free_(g.A);
    if (g.B)
        cu.free_(g.B);
    if (g.C)
        cu.free_(g.C);
    if (g.start)
        cu.event_destroy(g.start);
    if (g.stop)
        cu.event_destroy(g.stop);
    if (g.handle)
        cu.destroy(g.handle);
    return st;
}
