/* The CUDA runtime for the CUDA peers, loaded at run time (kladder needs none to build). */
#include "peers/cudart.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

static struct kl_cudart rt;
static int loaded; /* 0: not tried, 1: loaded, -1: failed (why says so) */
static char failed[256];

/* POSIX allows converting dlsym's object pointer to a function pointer. */
#define LOAD(field, name)                                                                          \
    do {                                                                                           \
        void *f_ = dlsym(lib, name);                                                               \
        if (!f_) {                                                                                 \
            snprintf(failed, sizeof failed, "%s is missing from the CUDA runtime", name);          \
            return -1;                                                                             \
        }                                                                                          \
        *(void **)&rt.field = f_;                                                                  \
    } while (0)

static int load(void)
{
    static const char *const names[] = {"libcudart.so.13", "libcudart.so.12", "libcudart.so"};
    void *lib = kl_dlopen_first(names, sizeof names / sizeof *names, 0, NULL);
    if (!lib) {
        snprintf(failed, sizeof failed, "the CUDA runtime (libcudart.so) is not installed");
        return -1;
    }
    LOAD(count, "cudaGetDeviceCount");
    LOAD(set_device, "cudaSetDevice");
    LOAD(malloc_, "cudaMalloc");
    LOAD(free_, "cudaFree");
    LOAD(memcpy_, "cudaMemcpy");
    LOAD(event_create, "cudaEventCreate");
    LOAD(event_record, "cudaEventRecord");
    LOAD(event_sync, "cudaEventSynchronize");
    LOAD(event_destroy, "cudaEventDestroy");
    LOAD(elapsed, "cudaEventElapsedTime");
    LOAD(attribute, "cudaDeviceGetAttribute");
    int devices = 0;
    if (rt.count(&devices) != 0 || devices < 1) {
        snprintf(failed, sizeof failed, "the CUDA runtime found no CUDA device");
        return -1;
    }
    return 1;
}

const struct kl_cudart *kl_cudart(char *why, size_t n)
{
    if (!loaded)
        loaded = load();
    if (loaded < 0)
        snprintf(why, n, "%s", failed);
    return loaded > 0 ? &rt : NULL;
}

enum kl_status kl_cudart_device(const struct kl_context *kl, const char *library, int *dev,
                                struct kl_err *e)
{
    char why[256];
    int devices = 0;
    if (!kl_contains_nocase(kl->info.vendor, "nvidia"))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s runs beside NVIDIA devices only", library);
    if (!kl_cudart(why, sizeof why))
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s is not available: %s", library, why);
    *dev = kl->ops->cuda_ordinals ? kl->device : 0;
    if (*dev == 0 && !kl->ops->cuda_ordinals && rt.count(&devices) == 0 && devices > 1)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "%d CUDA devices: which one is this OpenCL device cannot be told; "
                       "--backend cuda runs %s on the ladder's own GPU",
                       devices, library);
    if (rt.set_device(*dev) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cudaSetDevice(%d) failed", *dev);
    return KL_OK;
}

void kl_cudart_run_close(struct kl_cudart_run *r)
{
    for (int i = 0; i < 3; i++)
        if (r->buf[i])
            rt.free_(r->buf[i]);
    if (r->start)
        rt.event_destroy(r->start);
    if (r->stop)
        rt.event_destroy(r->stop);
}

enum kl_status kl_cudart_run_open(struct kl_cudart_run *r, const void *const host[3],
                                  struct kl_err *e)
{
    if (rt.event_create(&r->start) != 0 || rt.event_create(&r->stop) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "CUDA events could not be created");
    for (int i = 0; i < 3; i++) {
        if (rt.malloc_(&r->buf[i], r->bytes[i]) != 0)
            return kl_fail(e, KL_ERR_NO_MEMORY, "cudaMalloc of %zu bytes failed", r->bytes[i]);
        if (host[i] && rt.memcpy_(r->buf[i], host[i], r->bytes[i], KL_CUDART_H2D) != 0)
            return kl_fail(e, KL_ERR_BACKEND, "cudaMemcpy to the device failed");
    }
    return KL_OK;
}

enum kl_status kl_cudart_run_time(struct kl_cudart_run *r, int rc, const char *call,
                                  double *seconds, struct kl_err *e)
{
    float ms = 0;
    if (rc != 0)
        return kl_fail(e, KL_ERR_BACKEND, "%s failed with status %d", call, rc);
    if (rt.event_sync(r->stop) != 0 || rt.elapsed(&ms, r->start, r->stop) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "CUDA events could not time %s", call);
    *seconds = ms * 1e-3;
    return KL_OK;
}

enum kl_status kl_cudart_run_measure(struct kl_context *kl, struct kl_cudart_run *r,
                                     enum kl_status (*once)(void *, double *, struct kl_err *),
                                     void *arg, const struct kl_protocol *proto, void *out,
                                     struct kl_stats *stats, struct kl_err *e)
{
    double dummy;
    enum kl_status st = once(arg, &dummy, e);
    if (st != KL_OK)
        return st;
    if (rt.memcpy_(out, r->buf[2], r->bytes[2], KL_CUDART_D2H) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cudaMemcpy from the device failed");
    return kl_measure(kl, proto, once, arg, stats, e);
}
