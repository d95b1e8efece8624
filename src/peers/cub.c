/*
 * CUB's DeviceReduce (Sum, Min, Max) as a peer of the reduction ladder,
 * through kladder's shim library (cub_shim.cu, built by CMake with nvcc
 * where the CUDA toolkit is found), loaded at run time. It runs on the
 * ladder's GPU with its own copy of the input; its time is a pair of CUDA
 * events around the call, scratch allocated once beforehand.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "core/util.h"
#include "peers/cudart.h"
#include "peers/peers_impl.h"

typedef int (*cub_reduce_fn)(int op, int type, const void *in, void *out, int n, void *temp,
                             size_t *temp_bytes);

static struct {
    int loaded;
    char why[256];
    cub_reduce_fn reduce;
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
    *(void **)&cub.reduce = dlsym(f, "kladder_cub_reduce");
    *(void **)&cub.version = dlsym(f, "kladder_cub_version");
    if (!cub.reduce || !cub.version) {
        snprintf(cub.why, sizeof cub.why, "libkladder_cub.so lacks kladder_cub_reduce");
        return -1;
    }
    cub.loaded = 1;
    return 0;
}

struct cub_run {
    const struct kl_cudart *rt;
    const struct kl_reduce_problem *p;
    int type;
    size_t temp_bytes;
    struct kl_cudart_run r; /* the input, the scratch, the result */
};

static enum kl_status reduce_once(void *arg, double *seconds, struct kl_err *e)
{
    struct cub_run *c = arg;
    size_t bytes = c->temp_bytes;
    c->rt->event_record(c->r.start, NULL);
    int rc = cub.reduce(c->p->op, c->type, c->r.buf[0], c->r.buf[2], c->p->n, c->r.buf[1], &bytes);
    c->rt->event_record(c->r.stop, NULL);
    return kl_cudart_run_time(&c->r, rc, "cub::DeviceReduce", seconds, e);
}

enum kl_status kl_cub_reduce(struct kl_context *kl, const struct kl_reduce_problem *p,
                             const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                             char *what, size_t n, struct kl_err *e)
{
    static const char *const calls[] = {"Sum", "Min", "Max"};
    size_t es = kl_type_size(p->type);
    struct cub_run c = {.p = p, .type = p->type == KL_FLOAT ? 0 : p->type == KL_DOUBLE ? 1 : 2};
    const void *host[3] = {p->x, NULL, NULL};
    char why[256];
    int dev = 0;
    enum kl_status st = kl_cudart_device(kl, "CUB", &dev, e);
    if (st != KL_OK)
        return st;
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", cub.why);
    c.rt = kl_cudart(why, sizeof why);
    /* the scratch's size, asked with no scratch */
    int rc = cub.reduce(p->op, c.type, NULL, NULL, p->n, NULL, &c.temp_bytes);
    if (rc != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cub::DeviceReduce's size query failed (%d)", rc);
    c.r.bytes[0] = (size_t)p->n * es;
    c.r.bytes[1] = c.temp_bytes > 0 ? c.temp_bytes : 1;
    c.r.bytes[2] = es;
    snprintf(what, n, "%s cub::DeviceReduce::%s on CUDA device %d, CUDA event time", cub.version(),
             calls[p->op], dev);
    if ((st = kl_cudart_run_open(&c.r, host, e)) == KL_OK)
        st = kl_cudart_run_measure(kl, &c.r, reduce_once, &c, proto, out, stats, e);
    kl_cudart_run_close(&c.r);
    return st;
}
