/*
 * CUB as a peer of the reduce, scan and histogram ladders (DeviceReduce's
 * Sum, Min and Max; DeviceScan's InclusiveSum and ExclusiveSum;
 * DeviceHistogram's HistogramEven), through kladder's shim library
 * (cub_shim.cu, built by CMake with nvcc where the CUDA toolkit is found),
 * loaded at run time. Each runs on the ladder's GPU with its own copy of the
 * input; its time is a pair of CUDA events around the call, scratch
 * allocated once beforehand.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "core/util.h"
#include "peers/cudart.h"
#include "peers/peers_impl.h"

/* The shim's one shape of call (cub_shim.cu): what, type, in, out, n, scratch, its size. */
typedef int (*cub_fn)(int what, int type, const void *in, void *out, int n, void *temp,
                      size_t *temp_bytes);
enum { CUB_REDUCE, CUB_SCAN, CUB_HISTOGRAM, CUB_CALLS };

static struct {
    int loaded;
    char why[256];
    cub_fn call[CUB_CALLS];
    const char *(*version)(void);
} cub;

static int load(void)
{
    /* beside the build (KLADDER_CUB_SHIM), where it is installed, then the loader's path */
    static const char *const names[] = {
#ifdef KLADDER_CUB_SHIM
        KLADDER_CUB_SHIM,
#endif
#ifdef KLADDER_CUB_SHIM_INSTALLED
        KLADDER_CUB_SHIM_INSTALLED,
#endif
        "libkladder_cub.so"};
    static const char *const symbols[CUB_CALLS] = {"kladder_cub_reduce", "kladder_cub_scan",
                                                   "kladder_cub_histogram"};
    void *f;
    if (cub.loaded)
        return cub.loaded > 0 ? 0 : -1;
    cub.loaded = -1;
    if (!(f = kl_dlopen_first(names, sizeof names / sizeof *names, 0, NULL))) {
        snprintf(cub.why, sizeof cub.why,
                 "CUB is not available: libkladder_cub.so, which kladder builds where the CUDA "
                 "toolkit is found, is missing");
        return -1;
    }
    for (int i = 0; i < CUB_CALLS; i++)
        if (!(*(void **)&cub.call[i] = dlsym(f, symbols[i]))) {
            snprintf(cub.why, sizeof cub.why, "libkladder_cub.so lacks %s (an older build?)",
                     symbols[i]);
            return -1;
        }
    if (!(*(void **)&cub.version = dlsym(f, "kladder_cub_version"))) {
        snprintf(cub.why, sizeof cub.why, "libkladder_cub.so lacks kladder_cub_version");
        return -1;
    }
    cub.loaded = 1;
    return 0;
}

/* One call's run: its arguments, the input's and the output's bytes, and the buffers. */
struct cub_run {
    const struct kl_cudart *rt;
    int index; /* CUB_REDUCE, CUB_SCAN or CUB_HISTOGRAM */
    cub_fn fn;
    int what, type, n;
    const char *call; /* "cub::DeviceScan" */
    size_t temp_bytes;
    struct kl_cudart_run r; /* the input, the scratch, the result */
};

static enum kl_status cub_once(void *arg, double *seconds, struct kl_err *e)
{
    struct cub_run *c = arg;
    size_t bytes = c->temp_bytes;
    c->rt->event_record(c->r.start, NULL);
    int rc = c->fn(c->what, c->type, c->r.buf[0], c->r.buf[2], c->n, c->r.buf[1], &bytes);
    c->rt->event_record(c->r.stop, NULL);
    return kl_cudart_run_time(&c->r, rc, c->call, seconds, e);
}

/*
 * Runs c (its index, what, type, n and call set) on in_bytes of x into out_bytes of out, once
 * and then timed by proto; *what_text names the library and the call.
 */
static enum kl_status cub_run(struct kl_context *kl, struct cub_run *c, const void *x,
                              size_t in_bytes, size_t out_bytes, const struct kl_protocol *proto,
                              void *out, struct kl_stats *stats, char *what_text, size_t n,
                              const char *detail, struct kl_err *e)
{
    const void *host[3] = {x, NULL, NULL};
    char why[256];
    int dev = 0;
    enum kl_status st = kl_cudart_device(kl, "CUB", &dev, e);
    if (st != KL_OK)
        return st;
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", cub.why);
    c->fn = cub.call[c->index];
    c->rt = kl_cudart(why, sizeof why);
    /* the scratch's size, asked with no scratch */
    int rc = c->fn(c->what, c->type, NULL, NULL, c->n, NULL, &c->temp_bytes);
    if (rc != 0)
        return kl_fail(e, KL_ERR_BACKEND, "%s's size query failed (%d)", c->call, rc);
    c->r.bytes[0] = in_bytes;
    c->r.bytes[1] = c->temp_bytes > 0 ? c->temp_bytes : 1;
    c->r.bytes[2] = out_bytes;
    snprintf(what_text, n, "%s %s::%s on CUDA device %d, CUDA event time", cub.version(), c->call,
             detail, dev);
    if ((st = kl_cudart_run_open(&c->r, host, e)) == KL_OK)
        st = kl_cudart_run_measure(kl, &c->r, cub_once, c, proto, out, stats, e);
    kl_cudart_run_close(&c->r);
    return st;
}

/* The shim's type code: 0 float, 1 double, 2 int, 3 uchar. */
static int type_code(enum kl_type t)
{
    return t == KL_FLOAT ? 0 : t == KL_DOUBLE ? 1 : t == KL_INT ? 2 : 3;
}

enum kl_status kl_cub_reduce(struct kl_context *kl, const struct kl_reduce_problem *p,
                             const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                             char *what, size_t n, struct kl_err *e)
{
    static const char *const calls[] = {"Sum", "Min", "Max"};
    size_t es = kl_type_size(p->type);
    struct cub_run c = {.index = CUB_REDUCE,
                        .what = p->op,
                        .type = type_code(p->type),
                        .n = p->n,
                        .call = "cub::DeviceReduce"};
    return cub_run(kl, &c, p->x, (size_t)p->n * es, es, proto, out, stats, what, n,
                   calls[p->op], e);
}

enum kl_status kl_cub_scan(struct kl_context *kl, const struct kl_scan_problem *p,
                           const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                           char *what, size_t n, struct kl_err *e)
{
    size_t bytes = (size_t)p->n * kl_type_size(p->type);
    struct cub_run c = {.index = CUB_SCAN,
                        .what = p->exclusive,
                        .type = type_code(p->type),
                        .n = p->n,
                        .call = "cub::DeviceScan"};
    return cub_run(kl, &c, p->x, bytes, bytes, proto, out, stats, what, n,
                   p->exclusive ? "ExclusiveSum" : "InclusiveSum", e);
}

enum kl_status kl_cub_histogram(struct kl_context *kl, const struct kl_histogram_problem *p,
                                const struct kl_protocol *proto, void *out,
                                struct kl_stats *stats, char *what, size_t n, struct kl_err *e)
{
    struct cub_run c = {.index = CUB_HISTOGRAM,
                        .what = p->bins,
                        .type = 3,
                        .n = p->n,
                        .call = "cub::DeviceHistogram"};
    return cub_run(kl, &c, p->x, (size_t)p->n, (size_t)p->bins * 4, proto, out, stats, what, n,
                   "HistogramEven", e);
}
