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
typedef int (*cuda_set_device_fn)(int);
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
typedef int (*cublas_dgemm_fn)(void *, int, int, int, int, int, const double *, const double *, int,
                               const double *, int, const double *, double *, int);
typedef int (*cublas_math_fn)(void *, int);
typedef int (*cublas_gemm_ex_fn)(void *, int, int, int, int, int, const void *, const void *, int,
                                 int, const void *, int, int, const void *, void *, int, int, int,
                                 int);
/* Values from cublas_api.h and library_types.h (CUDA 11 and later). */
enum {
    H2D = 1,
    D2H = 2,
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
    cuda_count_fn count;
    cuda_set_device_fn set_device;
    int devices;
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
    cublas_gemm_ex_fn gemm_ex;
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
    LOAD(r, set_device, "cudaSetDevice");
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
    LOAD(b, gemm_ex, "cublasGemmEx");
    int devices = 0;
    if (cu.count(&devices) != 0 || devices < 1) {
        snprintf(cu.why, sizeof cu.why, "cuBLAS found no CUDA device");
        return -1;
    }
    cu.loaded = 1;
    return 0;
}

/*
 * One peer's run: a cuBLAS handle, a pair of events and three device
 * buffers (the two inputs, uploaded, and the output, uploaded too where the
 * call reads it, as gemv's beta·y does). The output is buf[2].
 */
struct cublas_run {
    void *handle, *start, *stop, *buf[3];
    size_t bytes[3];
};

static void run_close(struct cublas_run *r)
{
    for (int i = 0; i < 3; i++)
        if (r->buf[i])
            cu.free_(r->buf[i]);
    if (r->start)
        cu.event_destroy(r->start);
    if (r->stop)
        cu.event_destroy(r->stop);
    if (r->handle)
        cu.destroy(r->handle);
}

/* host[i] (NULL: not uploaded) of bytes[i] for each buffer. */
static enum kl_status run_open(struct cublas_run *r, const void *const host[3], struct kl_err *e)
{
    /* Default math: fp32 on the FMA units; TF32 only where a call's compute type asks. */
    if (cu.create(&r->handle) != 0 || cu.math_mode(r->handle, CUBLAS_DEFAULT_MATH) != 0 ||
        cu.event_create(&r->start) != 0 || cu.event_create(&r->stop) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cuBLAS set-up failed (handle or events)");
    for (int i = 0; i < 3; i++) {
        if (cu.malloc_(&r->buf[i], r->bytes[i]) != 0)
            return kl_fail(e, KL_ERR_NO_MEMORY, "cudaMalloc of %zu bytes for cuBLAS failed",
                           r->bytes[i]);
        if (host[i] && cu.memcpy_(r->buf[i], host[i], r->bytes[i], H2D) != 0)
            return kl_fail(e, KL_ERR_BACKEND, "cudaMemcpy to the device failed");
    }
    return KL_OK;
}

/* The call's status, then its time from the events recorded around it. */
static enum kl_status run_time(struct cublas_run *r, int rc, const char *call, double *seconds,
                               struct kl_err *e)
{
    float ms = 0;
    if (rc != 0)
        return kl_fail(e, KL_ERR_BACKEND, "%s failed with status %d", call, rc);
    if (cu.event_sync(r->stop) != 0 || cu.elapsed(&ms, r->start, r->stop) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "CUDA events could not time cuBLAS");
    *seconds = ms * 1e-3;
    return KL_OK;
}

/* Runs once into out (for verification), then by the protocol into stats. */
static enum kl_status run_measure(struct cublas_run *r,
                                  enum kl_status (*once)(void *, double *, struct kl_err *),
                                  void *arg, const struct kl_protocol *proto, void *out,
                                  struct kl_stats *stats, struct kl_err *e)
{
    double dummy;
    enum kl_status st = once(arg, &dummy, e);
    if (st != KL_OK)
        return st;
    if (cu.memcpy_(out, r->buf[2], r->bytes[2], D2H) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cudaMemcpy from the device failed");
    return kl_measure(proto, once, arg, stats, e);
}

/*
 * cuBLAS must run on the ladder's own GPU. Through the CUDA backend that is
 * its device index; through OpenCL the two APIs' numbering cannot be matched
 * here, so only a machine with one CUDA device qualifies. *dev gets the index.
 */
static enum kl_status check_peer(const struct kl_context *kl, int *dev, struct kl_err *e)
{
    int devices = 0;
    if (!kl_contains_nocase(kl->info.vendor, "nvidia"))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "cuBLAS runs beside NVIDIA devices only");
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", cu.why);
    *dev = strcmp(kl->ops->name, "cuda") == 0 ? kl->device : 0;
    if (*dev == 0 && strcmp(kl->ops->name, "cuda") != 0 && cu.count(&devices) == 0 && devices > 1)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "%d CUDA devices: which one is this OpenCL device cannot be told; "
                       "--backend cuda runs cuBLAS on the ladder's own GPU",
                       devices);
    if (cu.set_device(*dev) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cudaSetDevice(%d) failed", *dev);
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
    void **b = g->r.buf;
    /* cuBLAS is column-major: a row-major M×N matrix is its transpose, N×M. */
    int row = p->layout == KL_ROW_MAJOR;
    int op = row ? CUBLAS_OP_T : CUBLAS_OP_N, m = row ? p->N : p->M, n = row ? p->M : p->N;
    int rc;
    cu.event_record(g->r.start, NULL);
    if (p->type == KL_FLOAT) {
        float a = (float)p->alpha, beta = (float)p->beta;
        rc = cu.sgemv(g->r.handle, op, m, n, &a, b[0], m, b[1], 1, &beta, b[2], 1);
    } else {
        rc = cu.dgemv(g->r.handle, op, m, n, &p->alpha, b[0], m, b[1], 1, &p->beta, b[2], 1);
    }
    cu.event_record(g->r.stop, NULL);
    return run_time(&g->r, rc, "cuBLAS gemv", seconds, e);
}

enum kl_status kl_cublas_gemv(struct kl_context *kl, const struct kl_gemv_problem *p,
                              const struct kl_protocol *proto, void *y, struct kl_stats *stats,
                              char *what, size_t n, struct kl_err *e)
{
    size_t es = kl_type_size(p->type);
    struct cublas_gemv g = {
        .p = p, .r.bytes = {(size_t)p->M * p->N * es, (size_t)p->N * es, (size_t)p->M * es}};
    const void *host[3] = {p->A, p->x, p->y0};
    int dev = 0;
    enum kl_status st = check_peer(kl, &dev, e);
    if (st != KL_OK)
        return st;
    snprintf(what, n, "cuBLAS %s on CUDA device %d, CUDA event time",
             p->type == KL_FLOAT ? "cublasSgemv" : "cublasDgemv", dev);
    if ((st = run_open(&g.r, host, e)) == KL_OK)
        st = run_measure(&g.r, gemv_once, &g, proto, y, stats, e);
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
    void **b = g->r.buf;
    /* Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: swap the operands, no transposes. */
    int rc;
    cu.event_record(g->r.start, NULL);
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
    cu.event_record(g->r.stop, NULL);
    return run_time(&g->r, rc, "cuBLAS gemm", seconds, e);
}

enum kl_status kl_cublas_gemm(struct kl_context *kl, const struct kl_gemm_problem *p,
                              const struct kl_protocol *proto, void *C, struct kl_stats *stats,
                              char *what, size_t n, struct kl_err *e)
{
    size_t es = kl_type_size(p->type);
    struct cublas_gemm g = {
        .p = p,
        .r.bytes = {(size_t)p->M * p->K * es, (size_t)p->K * p->N * es, (size_t)p->M * p->N * es}};
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
        st = run_measure(&g.r, gemm_once, &g, proto, C, stats, e);
    run_close(&g.r);
    return st;
}
