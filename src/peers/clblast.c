/*
 * CLBlast through its C API, loaded at run time. It runs on kladder's own
 * OpenCL queue and buffers; its time comes from profiling events, from a
 * marker enqueued before the call to the end of the last kernel it runs.
 * GEMV and GEMM; for the reduction its sum (xSUM) and the index of the
 * largest or smallest element (xMAX, xMIN), of float and double; the
 * transpose (xOMATCOPY) of float, double and half.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "peers/peers_impl.h"

/* The CLBlast C API's enums (clblast_c.h): fixed values. */
enum {
    CLBLAST_ROW_MAJOR = 101,
    CLBLAST_COL_MAJOR = 102,
    CLBLAST_NO_TRANS = 111,
    CLBLAST_TRANS = 112
};
typedef int (*sgemv_fn)(int, int, size_t, size_t, float, cl_mem, size_t, size_t, cl_mem, size_t,
                        size_t, float, cl_mem, size_t, size_t, cl_command_queue *, cl_event *);
typedef int (*dgemv_fn)(int, int, size_t, size_t, double, cl_mem, size_t, size_t, cl_mem, size_t,
                        size_t, double, cl_mem, size_t, size_t, cl_command_queue *, cl_event *);

typedef int (*sgemm_fn)(int, int, int, size_t, size_t, size_t, float, cl_mem, size_t, size_t,
                        cl_mem, size_t, size_t, float, cl_mem, size_t, size_t, cl_command_queue *,
                        cl_event *);
typedef int (*dgemm_fn)(int, int, int, size_t, size_t, size_t, double, cl_mem, size_t, size_t,
                        cl_mem, size_t, size_t, double, cl_mem, size_t, size_t, cl_command_queue *,
                        cl_event *);

static void *lib;
static const char *lib_name;

static void *sym(const char *name, struct kl_err *e)
{
    static const char *const names[] = {"libclblast.so.1", "libclblast.so"};
    if (!lib)
        lib = kl_dlopen_first(names, sizeof names / sizeof *names, 0, &lib_name);
    if (!lib) {
        kl_fail(e, KL_ERR_UNSUPPORTED,
                "CLBlast is not installed (libclblast.so.1; Debian: libclblast1)");
        return NULL;
    }
    void *f = dlsym(lib, name);
    if (!f)
        kl_fail(e, KL_ERR_UNSUPPORTED, "%s has no %s", lib_name, name);
    return f;
}

static enum kl_status event_time(cl_event before, cl_event ev, double *seconds, struct kl_err *e);

/*
 * A marker enqueued just before a CLBlast call. CLBlast returns the event of
 * its last kernel only, and a GEMM may run several (padding, transposing,
 * the product, copying back): the call's time is from the marker to the end
 * of that last event, everything in between on the in-order queue.
 */
static cl_event marker(cl_command_queue q)
{
    cl_event m = NULL;
    if (clEnqueueMarkerWithWaitList(q, 0, NULL, &m) != CL_SUCCESS)
        return NULL;
    return m;
}

struct clblast_gemv {
    struct kl_context *kl;
    const struct kl_gemv_problem *p;
    sgemv_fn sgemv;
    dgemv_fn dgemv;
    cl_mem A, x, y;
    cl_command_queue queue;
};

static enum kl_status gemv_once(void *arg, double *seconds, struct kl_err *e)
{
    struct clblast_gemv *g = arg;
    const struct kl_gemv_problem *p = g->p;
    int layout = p->layout == KL_ROW_MAJOR ? CLBLAST_ROW_MAJOR : CLBLAST_COL_MAJOR;
    size_t ld = p->layout == KL_ROW_MAJOR ? (size_t)p->N : (size_t)p->M;
    cl_event ev = NULL, before = marker(g->queue);
    int rc;
    if (p->type == KL_FLOAT)
        rc = g->sgemv(layout, CLBLAST_NO_TRANS, (size_t)p->M, (size_t)p->N, (float)p->alpha, g->A,
                      0, ld, g->x, 0, 1, (float)p->beta, g->y, 0, 1, &g->queue, &ev);
    else
        rc = g->dgemv(layout, CLBLAST_NO_TRANS, (size_t)p->M, (size_t)p->N, p->alpha, g->A, 0, ld,
                      g->x, 0, 1, p->beta, g->y, 0, 1, &g->queue, &ev);
    if (rc != 0) {
        if (before)
            clReleaseEvent(before);
        return kl_fail(e, KL_ERR_BACKEND, "CLBlast gemv failed with status %d", rc);
    }
    return event_time(before, ev, seconds, e);
}

/* From the marker's end to the end of CLBlast's last event, by profiling. */
static enum kl_status event_time(cl_event before, cl_event ev, double *seconds, struct kl_err *e)
{
    cl_ulong t0 = 0, start = 0, t1 = 0;
    int ok =
        before && clWaitForEvents(1, &ev) == CL_SUCCESS &&
        clGetEventProfilingInfo(before, CL_PROFILING_COMMAND_END, sizeof t0, &t0, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) == CL_SUCCESS &&
        t0 > 0 && t0 <= start && start <= t1;
    if (before)
        clReleaseEvent(before);
    clReleaseEvent(ev);
    if (!ok)
        return kl_fail(e, KL_ERR_BACKEND, "CLBlast's call could not be timed by events");
    *seconds = (double)(t1 - t0) * 1e-9;
    return KL_OK;
}

enum kl_status kl_clblast_gemv(struct kl_context *kl, const struct kl_gemv_problem *p,
                               const struct kl_protocol *proto, void *y, struct kl_stats *stats,
                               char *what, size_t n, struct kl_err *e)
{
    const struct kl_backend_ops *ops = kl->ops;
    struct kl_buf *dA = NULL, *dx = NULL, *dy = NULL;
    size_t es = kl_type_size(p->type);
    double dummy;
    enum kl_status st;
    struct clblast_gemv g = {.kl = kl, .p = p};

    if (!ops->opencl_handles)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "CLBlast runs on OpenCL devices only");
    /* POSIX allows converting dlsym's object pointer to a function pointer. */
    void *f = sym(p->type == KL_FLOAT ? "CLBlastSgemv" : "CLBlastDgemv", e);
    if (!f)
        return KL_ERR_UNSUPPORTED;
    if (p->type == KL_FLOAT)
        *(void **)&g.sgemv = f;
    else
        *(void **)&g.dgemv = f;
    snprintf(what, n, "CLBlast (%s) %s, events: a marker before the call to its last kernel's end",
             lib_name, p->type == KL_FLOAT ? "CLBlastSgemv" : "CLBlastDgemv");
    if ((st = ops->alloc(kl->dev, (size_t)p->M * p->N * es, &dA, e)) != KL_OK ||
        (st = ops->alloc(kl->dev, (size_t)p->N * es, &dx, e)) != KL_OK ||
        (st = ops->alloc(kl->dev, (size_t)p->M * es, &dy, e)) != KL_OK ||
        (st = ops->write(kl->dev, dA, p->A, (size_t)p->M * p->N * es, e)) != KL_OK ||
        (st = ops->write(kl->dev, dx, p->x, (size_t)p->N * es, e)) != KL_OK ||
        (st = ops->write(kl->dev, dy, p->y0, (size_t)p->M * es, e)) != KL_OK)
        goto done;
    g.A = ops->native_buffer(dA);
    g.x = ops->native_buffer(dx);
    g.y = ops->native_buffer(dy);
    g.queue = ops->native_queue(kl->dev);
    if ((st = gemv_once(&g, &dummy, e)) != KL_OK ||
        (st = ops->read(kl->dev, dy, y, (size_t)p->M * es, e)) != KL_OK)
        goto done;
    st = kl_measure(kl, proto, gemv_once, &g, stats, e);
done:
    ops->release(dA);
    ops->release(dx);
    ops->release(dy);
    return st;
}

struct clblast_gemm {
    const struct kl_gemm_problem *p;
    sgemm_fn sgemm;
    dgemm_fn dgemm;
    cl_mem A, B, C;
    cl_command_queue queue;
};

static enum kl_status gemm_once(void *arg, double *seconds, struct kl_err *e)
{
    struct clblast_gemm *g = arg;
    const struct kl_gemm_problem *p = g->p;
    size_t M = (size_t)p->M, N = (size_t)p->N, K = (size_t)p->K;
    cl_event ev = NULL, before = marker(g->queue);
    int rc;
    if (p->type == KL_FLOAT)
        rc = g->sgemm(CLBLAST_ROW_MAJOR, CLBLAST_NO_TRANS, CLBLAST_NO_TRANS, M, N, K, 1.0f, g->A, 0,
                      K, g->B, 0, N, 0.0f, g->C, 0, N, &g->queue, &ev);
    else
        rc = g->dgemm(CLBLAST_ROW_MAJOR, CLBLAST_NO_TRANS, CLBLAST_NO_TRANS, M, N, K, 1.0, g->A, 0,
                      K, g->B, 0, N, 0.0, g->C, 0, N, &g->queue, &ev);
    if (rc != 0) {
        if (before)
            clReleaseEvent(before);
        return kl_fail(e, KL_ERR_BACKEND, "CLBlast gemm failed with status %d", rc);
    }
    return event_time(before, ev, seconds, e);
}

enum kl_status kl_clblast_gemm(struct kl_context *kl, const struct kl_gemm_problem *p,
                               const struct kl_protocol *proto, void *C, struct kl_stats *stats,
                               char *what, size_t n, struct kl_err *e)
{
    const struct kl_backend_ops *ops = kl->ops;
    struct kl_buf *dA = NULL, *dB = NULL, *dC = NULL;
    size_t es = kl_type_size(p->type), a = (size_t)p->M * p->K * es, b = (size_t)p->K * p->N * es,
           c = (size_t)p->M * p->N * es;
    double dummy;
    enum kl_status st;
    struct clblast_gemm g = {.p = p};

    if (!ops->opencl_handles)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "CLBlast runs on OpenCL devices only");
    void *f = sym(p->type == KL_FLOAT ? "CLBlastSgemm" : "CLBlastDgemm", e);
    if (!f)
        return KL_ERR_UNSUPPORTED;
    if (p->type == KL_FLOAT)
        *(void **)&g.sgemm = f;
    else
        *(void **)&g.dgemm = f;
    snprintf(what, n, "CLBlast (%s) %s, events: a marker before the call to its last kernel's end",
             lib_name, p->type == KL_FLOAT ? "CLBlastSgemm" : "CLBlastDgemm");
    if ((st = ops->alloc(kl->dev, a, &dA, e)) != KL_OK ||
        (st = ops->alloc(kl->dev, b, &dB, e)) != KL_OK ||
        (st = ops->alloc(kl->dev, c, &dC, e)) != KL_OK ||
        (st = ops->write(kl->dev, dA, p->A, a, e)) != KL_OK ||
        (st = ops->write(kl->dev, dB, p->B, b, e)) != KL_OK)
        goto done;
    g.A = ops->native_buffer(dA);
    g.B = ops->native_buffer(dB);
    g.C = ops->native_buffer(dC);
    g.queue = ops->native_queue(kl->dev);
    if ((st = gemm_once(&g, &dummy, e)) != KL_OK || (st = ops->read(kl->dev, dC, C, c, e)) != KL_OK)
        goto done;
    st = kl_measure(kl, proto, gemm_once, &g, stats, e);
done:
    ops->release(dA);
    ops->release(dB);
    ops->release(dC);
    return st;
}

/* xSUM writes the sum, xMAX and xMIN the index (an unsigned int) of the element. */
typedef int (*reduce_fn)(size_t, cl_mem, size_t, cl_mem, size_t, size_t, cl_command_queue *,
                         cl_event *);

struct clblast_reduce {
    const struct kl_reduce_problem *p;
    reduce_fn fn;
    cl_mem x, out;
    cl_command_queue queue;
};

static enum kl_status reduce_once(void *arg, double *seconds, struct kl_err *e)
{
    struct clblast_reduce *r = arg;
    cl_event ev = NULL, before = marker(r->queue);
    int rc = r->fn((size_t)r->p->n, r->out, 0, r->x, 0, 1, &r->queue, &ev);
    if (rc != 0) {
        if (before)
            clReleaseEvent(before);
        return kl_fail(e, KL_ERR_BACKEND, "CLBlast's reduction failed with status %d", rc);
    }
    return event_time(before, ev, seconds, e);
}

/* CLBlast's call for p (*call its name) on this device, or NULL with the reason in e. */
static reduce_fn reduce_call(const struct kl_context *kl, const struct kl_reduce_problem *p,
                             const char **call, struct kl_err *e)
{
    static const char *const calls[2][3] = {{"CLBlastSsum", "CLBlastiSmin", "CLBlastiSmax"},
                                            {"CLBlastDsum", "CLBlastiDmin", "CLBlastiDmax"}};
    reduce_fn fn = NULL;
    if (!kl->ops->opencl_handles) {
        kl_fail(e, KL_ERR_UNSUPPORTED, "CLBlast runs on OpenCL devices only");
        return NULL;
    }
    if (p->type != KL_FLOAT && p->type != KL_DOUBLE) {
        kl_fail(e, KL_ERR_UNSUPPORTED, "CLBlast reduces float and double, not %s",
                kl_type_name(p->type));
        return NULL;
    }
    *call = calls[p->type == KL_DOUBLE][p->op];
    void *f = sym(*call, e);
    if (f)
        *(void **)&fn = f;
    return fn;
}

enum kl_status kl_clblast_reduce(struct kl_context *kl, const struct kl_reduce_problem *p,
                                 const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                                 char *what, size_t n, struct kl_err *e)
{
    const struct kl_backend_ops *ops = kl->ops;
    struct kl_buf *dx = NULL, *dout = NULL;
    size_t es = kl_type_size(p->type), got = es;
    unsigned index = 0;
    double dummy;
    enum kl_status st;
    const char *call = NULL;
    struct clblast_reduce r = {.p = p, .fn = reduce_call(kl, p, &call, e)};
    if (!r.fn)
        return KL_ERR_UNSUPPORTED;
    snprintf(what, n,
             "CLBlast (%s) %s%s, events: a marker before the call to its last kernel's end",
             lib_name, call, p->op ? " (the element at the index it finds)" : "");
    if (p->op) /* an index, of the element */
        got = sizeof index;
    if ((st = ops->alloc(kl->dev, (size_t)p->n * es, &dx, e)) != KL_OK ||
        (st = ops->alloc(kl->dev, got, &dout, e)) != KL_OK ||
        (st = ops->write(kl->dev, dx, p->x, (size_t)p->n * es, e)) != KL_OK)
        goto done;
    r.x = ops->native_buffer(dx);
    r.out = ops->native_buffer(dout);
    r.queue = ops->native_queue(kl->dev);
    if ((st = reduce_once(&r, &dummy, e)) != KL_OK ||
        (st = ops->read(kl->dev, dout, p->op ? (void *)&index : out, got, e)) != KL_OK)
        goto done;
    if (p->op && index >= (unsigned)p->n) {
        st = kl_fail(e, KL_ERR_BACKEND, "%s gave index %u of %d elements", call, index, p->n);
        goto done;
    }
    if (p->op)
        memcpy(out, (const char *)p->x + (size_t)index * es, es);
    st = kl_measure(kl, proto, reduce_once, &r, stats, e);
done:
    ops->release(dx);
    ops->release(dout);
    return st;
}

/* B = alpha·Aᵀ: CLBlastSomatcopy, Domatcopy and Homatcopy differ in alpha's type only. */
typedef int (*somatcopy_fn)(int, int, size_t, size_t, float, cl_mem, size_t, size_t, cl_mem, size_t,
                            size_t, cl_command_queue *, cl_event *);
typedef int (*domatcopy_fn)(int, int, size_t, size_t, double, cl_mem, size_t, size_t, cl_mem,
                            size_t, size_t, cl_command_queue *, cl_event *);
typedef int (*homatcopy_fn)(int, int, size_t, size_t, cl_half, cl_mem, size_t, size_t, cl_mem,
                            size_t, size_t, cl_command_queue *, cl_event *);

struct clblast_transpose {
    const struct kl_transpose_problem *p;
    union {
        somatcopy_fn s;
        domatcopy_fn d;
        homatcopy_fn h;
    } fn;
    cl_mem a, b;
    cl_command_queue queue;
};

static enum kl_status transpose_once(void *arg, double *seconds, struct kl_err *e)
{
    struct clblast_transpose *t = arg;
    const struct kl_transpose_problem *p = t->p;
    size_t m = (size_t)p->m, n = (size_t)p->n;
    cl_event ev = NULL, before = marker(t->queue);
    int rc;
    if (p->type == KL_FLOAT)
        rc = t->fn.s(CLBLAST_ROW_MAJOR, CLBLAST_TRANS, m, n, 1.0f, t->a, 0, n, t->b, 0, m,
                     &t->queue, &ev);
    else if (p->type == KL_DOUBLE)
        rc = t->fn.d(CLBLAST_ROW_MAJOR, CLBLAST_TRANS, m, n, 1.0, t->a, 0, n, t->b, 0, m, &t->queue,
                     &ev);
    else /* half: 1.0 is 0x3c00 */
        rc = t->fn.h(CLBLAST_ROW_MAJOR, CLBLAST_TRANS, m, n, 0x3c00, t->a, 0, n, t->b, 0, m,
                     &t->queue, &ev);
    if (rc != 0) {
        if (before)
            clReleaseEvent(before);
        if (rc == -2045) /* CLBlast's kNoHalfPrecision */
            return kl_fail(e, KL_ERR_UNSUPPORTED, "CLBlast's half omatcopy needs cl_khr_fp16");
        return kl_fail(e, KL_ERR_BACKEND, "CLBlast omatcopy failed with status %d", rc);
    }
    return event_time(before, ev, seconds, e);
}

enum kl_status kl_clblast_transpose(struct kl_context *kl, const struct kl_transpose_problem *p,
                                    const struct kl_protocol *proto, void *out,
                                    struct kl_stats *stats, char *what, size_t n, struct kl_err *e)
{
    const struct kl_backend_ops *ops = kl->ops;
    struct kl_buf *da = NULL, *db = NULL;
    size_t bytes = (size_t)p->m * p->n * kl_type_size(p->type);
    double dummy;
    enum kl_status st;
    struct clblast_transpose t = {.p = p};
    const char *call = p->type == KL_FLOAT    ? "CLBlastSomatcopy"
                       : p->type == KL_DOUBLE ? "CLBlastDomatcopy"
                                              : "CLBlastHomatcopy";
    if (!ops->opencl_handles)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "CLBlast runs on OpenCL devices only");
    if (p->type == KL_BF16)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "CLBlast has no bf16 (its omatcopy takes half)");
    if (p->in_place)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "CLBlast's omatcopy transposes out of place only");
    void *f = sym(call, e);
    if (!f)
        return KL_ERR_UNSUPPORTED;
    *(void **)&t.fn = f; /* POSIX: dlsym's pointer converts to a function pointer */
    snprintf(what, n, "CLBlast (%s) %s, events: a marker before the call to its last kernel's end",
             lib_name, call);
    if ((st = ops->alloc(kl->dev, bytes, &da, e)) != KL_OK ||
        (st = ops->alloc(kl->dev, bytes, &db, e)) != KL_OK ||
        (st = ops->write(kl->dev, da, p->a, bytes, e)) != KL_OK)
        goto done;
    t.a = ops->native_buffer(da);
    t.b = ops->native_buffer(db);
    t.queue = ops->native_queue(kl->dev);
    if ((st = transpose_once(&t, &dummy, e)) != KL_OK ||
        (st = ops->read(kl->dev, db, out, bytes, e)) != KL_OK)
        goto done;
    st = kl_measure(kl, proto, transpose_once, &t, stats, e);
done:
    ops->release(da);
    ops->release(db);
    return st;
}
