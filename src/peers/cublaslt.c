/*
 * cuBLASLt's cublasLtMatmul for the narrow input types (half, bf16, fp8,
 * fp8e5m2, int8), loaded at run time with the CUDA runtime (kladder needs
 * neither to build). It runs on the ladder's GPU with its own copies of A
 * and of B transposed, takes the algorithm the library's heuristic ranks
 * first, and is timed by a pair of CUDA events around the call, as cuBLAS is
 * (cublas.c).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "peers/cudart.h"
#include "peers/peers_impl.h"

/* cublasLt.h's algorithm and heuristic result, by layout (CUDA 11 and later). */
struct lt_algo {
    uint64_t data[8];
};
struct lt_heuristic {
    struct lt_algo algo;
    size_t workspace; /* the bytes of workspace the algorithm needs */
    int state;        /* cublasStatus_t */
    float waves;
    int reserved[4];
};

/* The cuBLASLt entry points used, with their C types (its enums are passed as int). */
typedef int (*lt_create_fn)(void **);
typedef int (*lt_destroy_fn)(void *);
typedef size_t (*lt_version_fn)(void);
typedef int (*lt_desc_create_fn)(void **, int compute, int scale_type);
typedef int (*lt_set_fn)(void *, int attribute, const void *, size_t);
typedef int (*lt_layout_create_fn)(void **, int type, uint64_t rows, uint64_t cols, int64_t ld);
typedef int (*lt_heuristic_fn)(void *, void *op, void *a, void *b, void *c, void *d, void *pref,
                               int requested, struct lt_heuristic *, int *returned);
typedef int (*lt_matmul_fn)(void *, void *op, const void *alpha, const void *A, void *a,
                            const void *B, void *b, const void *beta, const void *C, void *c,
                            void *D, void *d, const struct lt_algo *, void *workspace,
                            size_t workspace_bytes, void *stream);

/* Values from library_types.h, cublas_api.h and cublasLt.h (CUDA 12 and 13). */
enum {
    CUDA_R_32F = 0,
    CUDA_R_16F = 2,
    CUDA_R_8I = 3,
    CUDA_R_32I = 10,
    CUDA_R_16BF = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15,
    CUDA_R_8F_E4M3 = 28,
    CUDA_R_8F_E5M2 = 29,
    CUBLAS_OP_N = 0,
    CUBLAS_OP_T = 1,
    CUBLAS_COMPUTE_32F = 68,
    CUBLAS_COMPUTE_32I = 72,
    CUBLASLT_MATMUL_DESC_TRANSA = 3,
    CUBLASLT_MATMUL_DESC_TRANSB = 4,
    CUBLASLT_MATMUL_DESC_FAST_ACCUM = 25,
    CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
    ATTR_CC_MAJOR = 75, /* cudaDeviceAttr (driver_types.h) */
    ATTR_CC_MINOR = 76
};

/* The workspace offered to the heuristic and to the call: room for split-K and the like. */
#define WORKSPACE ((size_t)32 << 20)

static struct {
    int loaded;
    char why[256];
    const struct kl_cudart *rt;
    lt_create_fn create;
    lt_destroy_fn destroy;
    lt_version_fn version;
    lt_desc_create_fn desc_create;
    lt_destroy_fn desc_destroy;
    lt_set_fn desc_set;
    lt_layout_create_fn layout_create;
    lt_destroy_fn layout_destroy;
    lt_create_fn pref_create;
    lt_destroy_fn pref_destroy;
    lt_set_fn pref_set;
    lt_heuristic_fn heuristic;
    lt_matmul_fn matmul;
} lt;

/* POSIX allows converting dlsym's object pointer to a function pointer. */
#define LOAD(lib, field, name)                                                                     \
    do {                                                                                           \
        void *f_ = dlsym(lib, name);                                                               \
        if (!f_) {                                                                                 \
            snprintf(lt.why, sizeof lt.why, "%s is missing from the cuBLASLt library", name);      \
            return -1;                                                                             \
        }                                                                                          \
        *(void **)&lt.field = f_;                                                                  \
    } while (0)

static int load(void)
{
    static const char *const names[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"};
    void *b;
    if (lt.loaded)
        return lt.loaded > 0 ? 0 : -1;
    lt.loaded = -1;
    if (!(b = kl_dlopen_first(names, sizeof names / sizeof *names, 0, NULL))) {
        snprintf(lt.why, sizeof lt.why, "cuBLASLt is not available (libcublasLt.so not found)");
        return -1;
    }
    LOAD(b, create, "cublasLtCreate");
    LOAD(b, destroy, "cublasLtDestroy");
    LOAD(b, version, "cublasLtGetVersion");
    LOAD(b, desc_create, "cublasLtMatmulDescCreate");
    LOAD(b, desc_destroy, "cublasLtMatmulDescDestroy");
    LOAD(b, desc_set, "cublasLtMatmulDescSetAttribute");
    LOAD(b, layout_create, "cublasLtMatrixLayoutCreate");
    LOAD(b, layout_destroy, "cublasLtMatrixLayoutDestroy");
    LOAD(b, pref_create, "cublasLtMatmulPreferenceCreate");
    LOAD(b, pref_destroy, "cublasLtMatmulPreferenceDestroy");
    LOAD(b, pref_set, "cublasLtMatmulPreferenceSetAttribute");
    LOAD(b, heuristic, "cublasLtMatmulAlgoGetHeuristic");
    LOAD(b, matmul, "cublasLtMatmul");
    lt.loaded = 1;
    return 0;
}

/* How cuBLASLt names a narrow type's inputs, its C and D, its sums and its alpha and beta. */
struct lt_types {
    int in, out, compute, scale;
    const char *name;
};

static struct lt_types types_of(enum kl_type t)
{
    switch (t) {
    case KL_HALF:
        return (struct lt_types){CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F,
                                 "CUDA_R_16F"};
    case KL_BF16:
        return (struct lt_types){CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F,
                                 "CUDA_R_16BF"};
    case KL_FP8:
        return (struct lt_types){CUDA_R_8F_E4M3, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F,
                                 "CUDA_R_8F_E4M3"};
    case KL_FP8E5M2:
        return (struct lt_types){CUDA_R_8F_E5M2, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F,
                                 "CUDA_R_8F_E5M2"};
    default:
        return (struct lt_types){CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I,
                                 "CUDA_R_8I"};
    }
}

/*
 * One peer's run: the handle, the operation and its layouts, the algorithm,
 * the workspace beside the runtime's buffers (A, Bt, C).
 */
struct lt_run {
    const struct kl_gemm_problem *p;
    void *handle, *op, *la, *lb, *lc, *ld, *pref; /* lc: C's layout, ld: D's (the result) */
    void *workspace;                              /* device: WORKSPACE bytes */
    union {
        float f;
        int32_t i;
    } alpha, beta; /* of the scale type: float, int32 for int8 */
    struct lt_heuristic best;
    struct kl_cudart_run r;
};

static void run_close(struct lt_run *g)
{
    kl_cudart_run_close(&g->r);
    if (g->workspace)
        lt.rt->free_(g->workspace);

    if (g->pref)
        lt.pref_destroy(g->pref);
    void *layouts[4] = {g->la, g->lb, g->lc, g->ld};
    for (int i = 0; i < 4; i++)
        if (layouts[i])
            lt.layout_destroy(layouts[i]);
    if (g->op)
        lt.desc_destroy(g->op);
    if (g->handle)
        lt.destroy(g->handle);
}

/*
 * Row-major C (M×N) = A·B is column-major Cᵀ (N×M, ld N) = (Bt's memory,
 * K×N, ld K)ᵀ · (A's memory, K×M, ld K): transa T, transb N, the "TN" form
 * FP8 and INT8 require. FP8's fast accumulation only where asked for: by
 * default cuBLASLt adds its FP8 sums into fp32 at intervals of K.
 */
static int describe(struct lt_run *g, struct lt_types ty)
{
    const struct kl_gemm_problem *p = g->p;
    int32_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    int8_t fast = (int8_t)(p->fast != 0);
    uint64_t M = (uint64_t)p->M, N = (uint64_t)p->N, K = (uint64_t)p->K;
    return lt.desc_create(&g->op, ty.compute, ty.scale) != 0 ||
           lt.desc_set(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta) != 0 ||
           lt.desc_set(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb) != 0 ||
           (fast && lt.desc_set(g->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast) != 0) ||
           lt.layout_create(&g->la, ty.in, K, N, (int64_t)K) != 0 ||
           lt.layout_create(&g->lb, ty.in, K, M, (int64_t)K) != 0 ||
           lt.layout_create(&g->lc, ty.out, N, M, (int64_t)N) != 0 ||
           lt.layout_create(&g->ld, ty.out, N, M, (int64_t)N) != 0;
}

/* The heuristic's best algorithm within the workspace, or why there is none. */
static enum kl_status pick(struct lt_run *g, struct kl_err *e)
{
    uint64_t room = WORKSPACE;
    int found = 0, rc;
    if (lt.pref_create(&g->pref) != 0 ||
        lt.pref_set(g->pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &room, sizeof room) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cuBLASLt set-up failed (preference)");
    rc = lt.heuristic(g->handle, g->op, g->la, g->lb, g->lc, g->ld, g->pref, 1, &g->best, &found);
    if (rc == 0 && found > 0 && g->best.state == 0)
        return KL_OK;
    if (g->p->type == KL_FP8E5M2)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "cuBLASLt has no algorithm for fp8e5m2 (status %d): its FP8 GEMMs take "
                       "E4M3 with E4M3 or with E5M2, not E5M2 with E5M2",
                       rc);
    return kl_fail(e, KL_ERR_UNSUPPORTED,
                   "cuBLASLt's heuristic found no algorithm for %s %d×%d×%d (status %d)",
                   kl_type_name(g->p->type), g->p->M, g->p->N, g->p->K, rc);
}

/* One cublasLtMatmul: its A is Bt's memory, its B is A's (describe); beta 0, C is D. */
static int call(struct lt_run *g)
{
    void **b = g->r.buf;
    return lt.matmul(g->handle, g->op, &g->alpha, b[1], g->la, b[0], g->lb, &g->beta, b[2], g->lc,
                     b[2], g->ld, &g->best.algo, g->workspace, WORKSPACE, NULL);
}

/*
 * Handle, operation, layouts, workspace and algorithm; then A and Bt uploaded. FP8's
 * scale factors stay cuBLASLt's default, 1 (inputs are drawn in e4m3's range): with scale
 * pointers set, cuBLASLt 13.1 refuses every FP8 call with fp32 D (NOT_SUPPORTED).
 */
static enum kl_status run_open(struct lt_run *g, struct kl_err *e)
{
    struct lt_types ty = types_of(g->p->type);
    const void *host[3] = {g->p->A, g->p->Bt, NULL};
    enum kl_status st;
    if (ty.scale == CUDA_R_32I)
        g->alpha.i = 1, g->beta.i = 0;
    else
        g->alpha.f = 1.0f, g->beta.f = 0.0f;
    if (lt.create(&g->handle) != 0 || describe(g, ty))
        return kl_fail(e, KL_ERR_BACKEND, "cuBLASLt set-up failed (handle, operation, layouts)");
    if (lt.rt->malloc_(&g->workspace, WORKSPACE) != 0)
        return kl_fail(e, KL_ERR_NO_MEMORY, "cudaMalloc of cuBLASLt's %zu-byte workspace failed",
                       WORKSPACE);
    if ((st = pick(g, e)) != KL_OK || (st = kl_cudart_run_open(&g->r, host, e)) != KL_OK)
        return st;
    /* a first call: the heuristic may offer what the call then refuses (NOT_SUPPORTED) */
    int rc = call(g);
    if (rc == CUBLAS_STATUS_NOT_SUPPORTED)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "cublasLtMatmul refused %s %s (status %d)",
                       types_of(g->p->type).name,
                       kl_type_output(g->p->type) == KL_INT ? "with int32 C" : "with fp32 C", rc);
    return KL_OK;
}

static enum kl_status gemm_once(void *arg, double *seconds, struct kl_err *e)
{
    struct lt_run *g = arg;
    lt.rt->event_record(g->r.start, NULL);
    int rc = call(g);
    lt.rt->event_record(g->r.stop, NULL);
    return kl_cudart_run_time(&g->r, rc, "cublasLtMatmul", seconds, e);
}

/* The ladder's GPU made current (cudart.c), cuBLASLt loaded, FP8 where the GPU has it. */
static enum kl_status check_peer(const struct kl_context *kl, enum kl_type t, int *dev,
                                 struct kl_err *e)
{
    int major = 0, minor = 0;
    enum kl_status st = kl_cudart_device(kl, "cuBLASLt", dev, e);
    if (st != KL_OK)
        return st;
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", lt.why);
    lt.rt = kl_cudart(lt.why, sizeof lt.why);
    if (!kl_type_fp8(t))
        return KL_OK;
    if (lt.rt->attribute(&major, ATTR_CC_MAJOR, *dev) != 0 ||
        lt.rt->attribute(&minor, ATTR_CC_MINOR, *dev) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cudaDeviceGetAttribute failed (compute capability)");
    if (major * 10 + minor < 89)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "FP8 GEMMs need compute capability 8.9 or more (CUDA device %d is %d.%d)",
                       *dev, major, minor);
    return KL_OK;
}

enum kl_status kl_cublaslt_gemm(struct kl_context *kl, const struct kl_gemm_problem *p,
                                const struct kl_protocol *proto, void *C, struct kl_stats *stats,
                                char *what, size_t n, struct kl_err *e)
{
    size_t es = kl_type_size(p->type), os = kl_type_size(kl_type_output(p->type));
    struct lt_run g = {
        .p = p,
        .r.bytes = {(size_t)p->M * p->K * es, (size_t)p->N * p->K * es, (size_t)p->M * p->N * os}};
    int dev = 0;
    if (!kl_type_narrow(p->type) || !p->Bt)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "cuBLASLt runs the narrow types with B transposed");
    enum kl_status st = check_peer(kl, p->type, &dev, e);
    if (st != KL_OK)
        return st;
    size_t v = lt.version();
    st = run_open(&g, e);
    if (st == KL_OK) {
        snprintf(what, n,
                 "cuBLASLt %zu.%zu.%zu cublasLtMatmul (%s inputs, TN, %s sums; the heuristic's "
                 "best algorithm, %zu MiB workspace) on CUDA device %d, CUDA event time",
                 v / 10000, v / 100 % 100, v % 100, types_of(p->type).name,
                 p->type == KL_INT8 ? "int32"
                 : p->fast          ? "FP8 fast-accumulation"
                                    : "fp32",
                 WORKSPACE >> 20, dev);
        st = kl_cudart_run_measure(kl, &g.r, gemm_once, &g, proto, C, stats, e);
    }
    run_close(&g);
    return st;
}
