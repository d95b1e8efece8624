/*
 * NVIDIA cuDNN beside the softmax ladder, loaded at run time from libcudnn
 * beside the CUDA runtime. It runs on the ladder's GPU with its own copies
 * of the rows; its time is a pair of CUDA events around the call.
 * - Softmax: cudnnSoftmaxForward (accurate: the max subtracted first), over
 *   the channels of an N×C×1×1 tensor, one row a sample.
 * - Layer norm and RMS norm: the graph API's normalization forward in its
 *   inference phase (no mean or variance kept), over the C×1×1 of each of
 *   the N rows, with γ and (layer norm) β as vectors of C floats and ε a
 *   float passed by value. Its plan is the first engine configuration that
 *   builds, of heuristics mode A's list and then of the fallback list.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"
#include "peers/cudart.h"
#include "peers/cudnn_values.h"
#include "peers/peers_impl.h"

#define AS_ENUM(name, value) CUDNN_##name = (value),
enum { KL_CUDNN_VALUES(AS_ENUM) };

typedef int (*cudnn_handle_fn)(void **);
typedef int (*cudnn_release_fn)(void *);
typedef int (*cudnn_set4d_fn)(void *, int format, int type, int n, int c, int h, int w);
typedef int (*cudnn_softmax_fn)(void *handle, int algo, int mode, const void *alpha,
                                const void *x_desc, const void *x, const void *beta,
                                const void *y_desc, void *y);
typedef const char *(*cudnn_string_fn)(int);
typedef size_t (*cudnn_version_fn)(void);
/* The graph API's: a descriptor made, given attributes, finalized, read, run. */
typedef int (*cudnn_make_fn)(int type, void **desc);
typedef int (*cudnn_set_fn)(void *desc, int name, int type, int64_t count, const void *values);
typedef int (*cudnn_get_fn)(void *desc, int name, int type, int64_t requested, int64_t *count,
                            void *values);
typedef int (*cudnn_execute_fn)(void *handle, void *plan, void *pack);

static struct {
    int loaded, legacy, graph; /* legacy, graph: that API's calls were all found */
    char why[256];
    cudnn_handle_fn create, create_desc;
    cudnn_release_fn destroy, destroy_desc;
    cudnn_set4d_fn set4d;
    cudnn_softmax_fn softmax;
    cudnn_string_fn string;
    cudnn_version_fn version;
    cudnn_make_fn make;
    cudnn_release_fn unmake, finalize;
    cudnn_set_fn set;
    cudnn_get_fn get;
    cudnn_execute_fn execute;
} dnn;

/* The calls kladder takes from libcudnn: where each goes, and which API needs it. */
enum { BOTH, LEGACY, GRAPH };
/* clang-format off */
#define CALL(field, name, api) {(void **)&dnn.field, name, api}
/* clang-format on */
static const struct {
    void **slot; /* POSIX allows converting dlsym's object pointer to a function pointer */
    const char *name;
    int api;
} calls[] = {
    CALL(create, "cudnnCreate", BOTH),
    CALL(destroy, "cudnnDestroy", BOTH),
    CALL(string, "cudnnGetErrorString", BOTH),
    CALL(version, "cudnnGetVersion", BOTH),
    CALL(create_desc, "cudnnCreateTensorDescriptor", LEGACY),
    CALL(destroy_desc, "cudnnDestroyTensorDescriptor", LEGACY),
    CALL(set4d, "cudnnSetTensor4dDescriptor", LEGACY),
    CALL(softmax, "cudnnSoftmaxForward", LEGACY),
    CALL(make, "cudnnBackendCreateDescriptor", GRAPH),
    CALL(unmake, "cudnnBackendDestroyDescriptor", GRAPH),
    CALL(finalize, "cudnnBackendFinalize", GRAPH),
    CALL(set, "cudnnBackendSetAttribute", GRAPH),
    CALL(get, "cudnnBackendGetAttribute", GRAPH),
    CALL(execute, "cudnnBackendExecute", GRAPH),
};

static int load(void)
{
    /* libcudnn.so.9 is cuDNN 9's shim: it loads libcudnn_ops and libcudnn_graph as needed. */
    static const char *const names[] = {"libcudnn.so.9", "libcudnn.so"};
    int found[3] = {1, 1, 1}; /* BOTH, LEGACY, GRAPH: every call of theirs found */
    void *h;
    if (dnn.loaded)
        return dnn.loaded > 0 ? 0 : -1;
    dnn.loaded = -1;
    if (!(h = kl_dlopen_first(names, 2, 0, NULL))) {
        snprintf(dnn.why, sizeof dnn.why,
                 "NVIDIA cuDNN is not available (libcudnn.so.9 not found)");
        return -1;
    }
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        if (!(*calls[i].slot = dlsym(h, calls[i].name)))
            found[calls[i].api] = 0;
    if (!found[BOTH]) {
        snprintf(dnn.why, sizeof dnn.why, "libcudnn lacks cudnnCreate or cudnnGetVersion");
        return -1;
    }
    dnn.legacy = found[LEGACY], dnn.graph = found[GRAPH];
    dnn.loaded = 1;
    return 0;
}

/* A cuDNN status as kladder's: unsupported where cuDNN says the call is, else a failure. */
static enum kl_status status_of(int rc, const char *call, struct kl_err *e)
{
    if (rc == 0)
        return KL_OK;
    return kl_fail(e,
                   rc >= CUDNN_STATUS_NOT_SUPPORTED && rc < CUDNN_STATUS_NOT_SUPPORTED + 1000
                       ? KL_ERR_UNSUPPORTED
                       : KL_ERR_BACKEND,
                   "cuDNN %s: %s (%d)", call, dnn.string(rc), rc);
}

static int data_type(enum kl_type t)
{
    return t == KL_HALF ? CUDNN_DATA_HALF : t == KL_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

/* ---- softmax: the legacy API ----------------------------------------------------- */

struct dnn_softmax {
    const struct kl_cudart *rt;
    void *handle, *desc;
    struct kl_cudart_run r; /* rows, nothing, result */
};

static enum kl_status softmax_once(void *arg, double *seconds, struct kl_err *e)
{
    struct dnn_softmax *s = arg;
    const float one = 1.0f, zero = 0.0f; /* float scalars for float, half and bf16 tensors */
    s->rt->event_record(s->r.start, NULL);
    int rc = dnn.softmax(s->handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one,
                         s->desc, s->r.buf[0], &zero, s->desc, s->r.buf[2]);
    s->rt->event_record(s->r.stop, NULL);
    if (rc != 0)
        return status_of(rc, "cudnnSoftmaxForward", e);
    return kl_cudart_run_time(&s->r, 0, "cudnnSoftmaxForward", seconds, e);
}

static enum kl_status dnn_softmax(struct kl_context *kl, const struct kl_softmax_problem *p,
                                  const struct kl_protocol *proto, void *out,
                                  struct kl_stats *stats, char *what, size_t n, int dev,
                                  struct kl_err *e)
{
    size_t bytes = (size_t)p->rows * (size_t)p->cols * kl_type_size(p->type);
    struct dnn_softmax s = {.r.bytes = {bytes, 0, bytes}};
    const void *host[3] = {p->x, NULL, NULL};
    char why[256];
    enum kl_status st;
    if (!dnn.legacy)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "libcudnn lacks the legacy softmax (cudnnSoftmaxForward and its "
                       "descriptors)");
    s.rt = kl_cudart(why, sizeof why);
    size_t v = dnn.version();
    snprintf(what, n,
             "cuDNN %zu.%zu.%zu cudnnSoftmaxForward (accurate, over channels: %d x %d x 1 x 1) "
             "on CUDA device %d, CUDA event time",
             v / 10000, v / 100 % 100, v % 100, p->rows, p->cols, dev);
    if ((st = status_of(dnn.create(&s.handle), "cudnnCreate", e)) != KL_OK)
        return st;
    if ((st = status_of(dnn.create_desc(&s.desc), "cudnnCreateTensorDescriptor", e)) == KL_OK &&
        (st = status_of(
             dnn.set4d(s.desc, CUDNN_TENSOR_NCHW, data_type(p->type), p->rows, p->cols, 1, 1),
             "cudnnSetTensor4dDescriptor", e)) == KL_OK &&
        (st = kl_cudart_run_open(&s.r, host, e)) == KL_OK)
        st = kl_cudart_run_measure(kl, &s.r, softmax_once, &s, proto, out, stats, e);
    kl_cudart_run_close(&s.r);
    if (s.desc)
        dnn.destroy_desc(s.desc);
    dnn.destroy(s.handle);
    return st;
}

/* ---- the norms: the graph API ---------------------------------------------------- */

/*
 * The descriptors of one norm's graph, destroyed in the reverse of their
 * making; rc: the first call that failed since the last clean start, call
 * what it was. Every step below does nothing once rc is set.
 */
struct graph {
    void *made[64];
    int n, rc;
    char call[96];
};

static void failed(struct graph *g, int rc, const char *call)
{
    if (g->rc == 0 && rc != 0) {
        g->rc = rc;
        snprintf(g->call, sizeof g->call, "%s", call);
    }
}

static void *make(struct graph *g, int type)
{
    void *d = NULL;
    if (g->rc == 0 && g->n == (int)(sizeof g->made / sizeof *g->made))
        failed(g, CUDNN_STATUS_NOT_SUPPORTED, "(more descriptors than kladder keeps)");
    if (g->rc == 0) {
        failed(g, dnn.make(type, &d), "cudnnBackendCreateDescriptor");
        if (d)
            g->made[g->n++] = d;
    }
    return d;
}

static void set(struct graph *g, void *d, int name, int type, int64_t count, const void *values)
{
    char call[64];
    if (g->rc == 0) {
        snprintf(call, sizeof call, "cudnnBackendSetAttribute (attribute %d)", name);
        failed(g, dnn.set(d, name, type, count, values), call);
    }
}

static void finalize(struct graph *g, void *d, const char *what)
{
    char call[96];
    if (g->rc == 0) {
        snprintf(call, sizeof call, "cudnnBackendFinalize (%s)", what);
        failed(g, dnn.finalize(d), call);
    }
}

static void graph_free(struct graph *g)
{
    while (g->n > 0)
        dnn.unmake(g->made[--g->n]);
}

#define NO_GRAPH "libcudnn lacks the graph API (cudnnBackend*)"

/* The ids of the norm's tensors in its graph and its variant pack. */
enum { X_ID = 1, Y_ID, SCALE_ID, BIAS_ID, EPS_ID };

/* A finalized tensor of rows x cols x 1 x 1, rows packed, of cuDNN type t; by value: a host
   scalar's. */
static void *tensor(struct graph *g, int64_t id, int64_t rows, int64_t cols, int t, bool by_value)
{
    const int64_t dims[4] = {rows, cols, 1, 1}, strides[4] = {cols, 1, cols, cols};
    const int64_t align = by_value ? (int64_t)sizeof(float) : 16;
    void *d = make(g, CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    set(g, d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &t);
    set(g, d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    set(g, d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    set(g, d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &id);
    set(g, d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    if (by_value)
        set(g, d, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &by_value);
    finalize(g, d, "a tensor");
    return d;
}

static void set_desc(struct graph *g, void *d, int name, void *value)
{
    set(g, d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &value);
}

/* p's normalization forward (op 1 layer norm, 2 RMS norm), finalized; no GPU needed yet. */
static void *norm_operation(struct graph *g, const struct kl_softmax_problem *p)
{
    const int io = data_type(p->type), phase = CUDNN_NORM_FWD_INFERENCE;
    const int mode = p->op == 1 ? CUDNN_LAYER_NORM : CUDNN_RMS_NORM;
    void *x = tensor(g, X_ID, p->rows, p->cols, io, false);
    void *y = tensor(g, Y_ID, p->rows, p->cols, io, false);
    void *scale = tensor(g, SCALE_ID, 1, p->cols, CUDNN_DATA_FLOAT, false);
    void *eps = tensor(g, EPS_ID, 1, 1, CUDNN_DATA_FLOAT, true);
    void *op = make(g, CUDNN_BACKEND_OPERATION_NORM_FORWARD_DESCRIPTOR);
    set(g, op, CUDNN_ATTR_OPERATION_NORM_FWD_MODE, CUDNN_TYPE_NORM_MODE, 1, &mode);
    set(g, op, CUDNN_ATTR_OPERATION_NORM_FWD_PHASE, CUDNN_TYPE_NORM_FWD_PHASE, 1, &phase);
    set_desc(g, op, CUDNN_ATTR_OPERATION_NORM_FWD_XDESC, x);
    set_desc(g, op, CUDNN_ATTR_OPERATION_NORM_FWD_SCALE_DESC, scale);
    if (p->op == 1)
        set_desc(g, op, CUDNN_ATTR_OPERATION_NORM_FWD_BIAS_DESC,
                 tensor(g, BIAS_ID, 1, p->cols, CUDNN_DATA_FLOAT, false));
    set_desc(g, op, CUDNN_ATTR_OPERATION_NORM_FWD_EPSILON_DESC, eps);
    set_desc(g, op, CUDNN_ATTR_OPERATION_NORM_FWD_YDESC, y);
    finalize(g, op, "the normalization");
    return op;
}

enum kl_status kl_cudnn_norm_operation(const struct kl_softmax_problem *p, struct kl_err *e)
{
    struct graph g = {.n = 0};
    if (load() != 0 || !dnn.graph)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", dnn.why[0] ? dnn.why : NO_GRAPH);
    norm_operation(&g, p);
    enum kl_status st = status_of(g.rc, g.call, e);
    graph_free(&g);
    return st;
}

#define CONFIGS 8 /* the most engine configurations taken of one heuristics' list */

/*
 * The first execution plan that builds for the graph of op: of heuristics
 * mode A's configurations, then of the fallback list's. NULL where none
 * does, g->rc and g->call then the last failure.
 */
static void *norm_plan(struct graph *g, void *handle, void *op, char *how, size_t n)
{
    static const int modes[2] = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
    static const char *const mode_names[2] = {"heuristics mode A", "the fallback list"};
    int last = CUDNN_STATUS_NOT_SUPPORTED;
    char last_call[96] = "(no engine configuration for this graph)";
    void *graph = make(g, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set(g, graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
    set_desc(g, graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, op);
    finalize(g, graph, "the operation graph");
    for (int m = 0; m < 2 && g->rc == 0; m++) {
        void *heur = make(g, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR), *configs[CONFIGS];
        int64_t count = 0;
        set_desc(g, heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph);
        set(g, heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &modes[m]);
        finalize(g, heur, mode_names[m]);
        for (int i = 0; i < CONFIGS; i++)
            configs[i] = make(g, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        if (g->rc == 0)
            failed(g,
                   dnn.get(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                           CONFIGS, &count, configs),
                   "cudnnBackendGetAttribute (the heuristics' results)");
        for (int64_t i = 0; i < count && g->rc == 0; i++) {
            void *plan = make(g, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
            set(g, plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle);
            set_desc(g, plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs[i]);
            finalize(g, plan, "an execution plan");
            if (g->rc == 0) {
                snprintf(how, n, "configuration %d of %d from %s", (int)i + 1, (int)count,
                         mode_names[m]);
                return plan;
            }
            last = g->rc, g->rc = 0; /* that configuration failed: the next */
            snprintf(last_call, sizeof last_call, "%s", g->call);
        }
        if (g->rc != 0) /* that list failed: the next */
            last = g->rc, g->rc = 0, snprintf(last_call, sizeof last_call, "%s", g->call);
    }
    failed(g, last, last_call);
    return NULL;
}

struct dnn_norm {
    const struct kl_cudart *rt;
    void *handle, *plan, *pack, *work;
    float eps;              /* passed by value, read at each run */
    struct kl_cudart_run r; /* rows, gamma then beta, result */
};

static enum kl_status norm_once(void *arg, double *seconds, struct kl_err *e)
{
    struct dnn_norm *s = arg;
    s->rt->event_record(s->r.start, NULL);
    int rc = dnn.execute(s->handle, s->plan, s->pack);
    s->rt->event_record(s->r.stop, NULL);
    if (rc != 0)
        return status_of(rc, "cudnnBackendExecute", e);
    return kl_cudart_run_time(&s->r, 0, "cudnnBackendExecute", seconds, e);
}

/* The plan's workspace, the rows and vectors on the device, and the variant pack naming them. */
static enum kl_status norm_data(struct dnn_norm *s, struct graph *g,
                                const struct kl_softmax_problem *p, struct kl_err *e)
{
    const size_t pitch = ((size_t)p->cols + 3) / 4 * 4; /* beta 16-byte aligned after gamma */
    float *vectors = malloc(2 * pitch * sizeof *vectors);
    const void *host[3] = {p->x, vectors, NULL};
    int64_t bytes = 0, got = 0;
    enum kl_status st;
    if (!vectors)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for cuDNN's gamma and beta");
    for (size_t j = 0; j < pitch; j++)
        vectors[j] = p->gamma, vectors[pitch + j] = p->beta;
    s->r.bytes[1] = 2 * pitch * sizeof *vectors;
    st = kl_cudart_run_open(&s->r, host, e);
    free(vectors);
    if (st != KL_OK)
        return st;
    failed(g,
           dnn.get(s->plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                   &bytes),
           "cudnnBackendGetAttribute (the plan's workspace)");
    if (g->rc == 0 && bytes > 0 && s->rt->malloc_(&s->work, (size_t)bytes) != 0)
        return kl_fail(e, KL_ERR_NO_MEMORY, "cudaMalloc of cuDNN's %lld-byte workspace failed",
                       (long long)bytes);
    const int64_t ids[5] = {X_ID, Y_ID, SCALE_ID, EPS_ID, BIAS_ID};
    void *const at[5] = {s->r.buf[0], s->r.buf[2], s->r.buf[1], &s->eps,
                         (float *)s->r.buf[1] + pitch};
    const int64_t used = p->op == 1 ? 5 : 4;
    s->pack = make(g, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    set(g, s->pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, used, ids);
    set(g, s->pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, used, at);
    set(g, s->pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &s->work);
    finalize(g, s->pack, "the variant pack");
    return status_of(g->rc, g->call, e);
}

static enum kl_status dnn_norm(struct kl_context *kl, const struct kl_softmax_problem *p,
                               const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                               char *what, size_t n, int dev, struct kl_err *e)
{
    size_t bytes = (size_t)p->rows * (size_t)p->cols * kl_type_size(p->type);
    struct dnn_norm s = {.eps = p->eps, .r.bytes = {bytes, 0, bytes}};
    struct graph g = {.n = 0};
    char why[256], how[96] = "";
    enum kl_status st;
    if (!dnn.graph)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", NO_GRAPH);
    s.rt = kl_cudart(why, sizeof why);
    if ((st = status_of(dnn.create(&s.handle), "cudnnCreate", e)) != KL_OK)
        return st;
    void *op = norm_operation(&g, p);
    s.plan = norm_plan(&g, s.handle, op, how, sizeof how);
    if ((st = status_of(g.rc, g.call, e)) == KL_OK && (st = norm_data(&s, &g, p, e)) == KL_OK) {
        size_t v = dnn.version();
        snprintf(what, n,
                 "cuDNN %zu.%zu.%zu graph API, normalization forward (%s, inference: %d rows of "
                 "%d; gamma%s as float vectors, eps by value; %s) on CUDA device %d, CUDA "
                 "event time",
                 v / 10000, v / 100 % 100, v % 100, p->op == 1 ? "layer norm" : "RMS norm", p->rows,
                 p->cols, p->op == 1 ? " and beta" : "", how, dev);
        st = kl_cudart_run_measure(kl, &s.r, norm_once, &s, proto, out, stats, e);
    }
    kl_cudart_run_close(&s.r);
    if (s.work)
        s.rt->free_(s.work);
    graph_free(&g);
    dnn.destroy(s.handle);
    return st;
}

enum kl_status kl_cudnn_softmax(struct kl_context *kl, const struct kl_softmax_problem *p,
                                const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                                char *what, size_t n, struct kl_err *e)
{
    int dev = 0;
    enum kl_status st = kl_cudart_device(kl, "cuDNN", &dev, e);
    if (st != KL_OK)
        return st;
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", dnn.why);
    return p->op == 0 ? dnn_softmax(kl, p, proto, out, stats, what, n, dev, e)
                      : dnn_norm(kl, p, proto, out, stats, what, n, dev, e);
}
