/*
 * NVIDIA NPP's separable Gaussian filter with the caller's weights
 * (nppiFilterGaussAdvancedBorder, replicated borders), loaded at run time
 * from libnppif and libnppc beside the CUDA runtime. It runs on the ladder's
 * GPU with its own copies of the picture and weights; its time is a pair of
 * CUDA events around the call.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "peers/cudart.h"
#include "peers/peers_impl.h"

/* nppdefs.h, by value as NPP takes them. */
typedef struct {
    int width, height;
} npp_size;
typedef struct {
    int x, y;
} npp_point;
typedef struct {
    void *stream; /* 0: the default stream, where the events are recorded */
    int device, sms, threads_per_sm, threads_per_block;
    size_t shared_per_block;
    int cc_major, cc_minor;
    unsigned stream_flags;
    int reserved;
} npp_stream_context;
enum { NPP_BORDER_REPLICATE = 2 };
/* cudaDeviceAttr values (driver_types.h). */
enum {
    ATTR_THREADS_PER_BLOCK = 1,
    ATTR_SHARED_PER_BLOCK = 8,
    ATTR_SMS = 16,
    ATTR_THREADS_PER_SM = 39,
    ATTR_CC_MAJOR = 75,
    ATTR_CC_MINOR = 76
};

/* nppiFilterGaussAdvancedBorder_{32f_C1R,8u_C4R}_Ctx: the pixel type differs, not the call. */
typedef int (*npp_gauss_fn)(const void *src, int src_step, npp_size src_size, npp_point offset,
                            void *dst, int dst_step, npp_size roi, int taps, const float *kernel,
                            int border, npp_stream_context ctx);

static struct {
    int loaded;
    char why[256];
    npp_gauss_fn gauss_f32, gauss_u8x4;
} npp;

static int load(void)
{
    static const char *const core[] = {"libnppc.so.13", "libnppc.so.12", "libnppc.so"};
    static const char *const filters[] = {"libnppif.so.13", "libnppif.so.12", "libnppif.so"};
    void *f;
    if (npp.loaded)
        return npp.loaded > 0 ? 0 : -1;
    npp.loaded = -1;
    /* libnppif needs libnppc's symbols: the core is opened first, globally. */
    if (!kl_dlopen_first(core, 3, 1, NULL) || !(f = kl_dlopen_first(filters, 3, 1, NULL))) {
        snprintf(npp.why, sizeof npp.why,
                 "NVIDIA NPP is not available (libnppc.so and libnppif.so not found)");
        return -1;
    }
    *(void **)&npp.gauss_f32 = dlsym(f, "nppiFilterGaussAdvancedBorder_32f_C1R_Ctx");
    *(void **)&npp.gauss_u8x4 = dlsym(f, "nppiFilterGaussAdvancedBorder_8u_C4R_Ctx");
    if (!npp.gauss_f32 || !npp.gauss_u8x4) {
        snprintf(npp.why, sizeof npp.why,
                 "nppiFilterGaussAdvancedBorder_{32f_C1R,8u_C4R}_Ctx are missing from libnppif");
        return -1;
    }
    npp.loaded = 1;
    return 0;
}

struct npp_blur {
    const struct kl_cudart *rt;
    const struct kl_blur_problem *p;
    npp_stream_context ctx;
    struct kl_cudart_run r; /* picture, weights, result */
};

static enum kl_status blur_once(void *arg, double *seconds, struct kl_err *e)
{
    struct npp_blur *b = arg;
    const struct kl_blur_problem *p = b->p;
    npp_size size = {p->W, p->H};
    npp_point origin = {0, 0};
    int step = p->W * 4; /* bytes per row: one float or four bytes a pixel */
    b->rt->event_record(b->r.start, NULL);
    int rc = (p->rgba8 ? npp.gauss_u8x4 : npp.gauss_f32)(
        b->r.buf[0], step, size, origin, b->r.buf[2], step, size, 2 * p->R + 1, b->r.buf[1],
        NPP_BORDER_REPLICATE, b->ctx);
    b->rt->event_record(b->r.stop, NULL);
    /* NPP's negative statuses are errors, positive ones warnings. */
    return kl_cudart_run_time(&b->r, rc < 0 ? rc : 0, "nppiFilterGaussAdvancedBorder", seconds,
                              e);
}

/* The stream context NPP's _Ctx calls take: the default stream and the device's limits. */
static enum kl_status context_of(const struct kl_cudart *rt, int dev, npp_stream_context *c,
                                 struct kl_err *e)
{
    int shared = 0;
    memset(c, 0, sizeof *c);
    c->device = dev;
    if (rt->attribute(&c->sms, ATTR_SMS, dev) != 0 ||
        rt->attribute(&c->threads_per_sm, ATTR_THREADS_PER_SM, dev) != 0 ||
        rt->attribute(&c->threads_per_block, ATTR_THREADS_PER_BLOCK, dev) != 0 ||
        rt->attribute(&shared, ATTR_SHARED_PER_BLOCK, dev) != 0 ||
        rt->attribute(&c->cc_major, ATTR_CC_MAJOR, dev) != 0 ||
        rt->attribute(&c->cc_minor, ATTR_CC_MINOR, dev) != 0)
        return kl_fail(e, KL_ERR_BACKEND, "cudaDeviceGetAttribute failed for NPP's context");
    c->shared_per_block = (size_t)shared;
    return KL_OK;
}

enum kl_status kl_npp_blur(struct kl_context *kl, const struct kl_blur_problem *p,
                           const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                           char *what, size_t n, struct kl_err *e)
{
    size_t bytes = (size_t)p->W * (size_t)p->H * 4;
    struct npp_blur b = {.p = p, .r.bytes = {bytes, (2 * (size_t)p->R + 1) * sizeof(float), bytes}};
    const void *host[3] = {p->src, p->w, NULL};
    char why[256];
    int dev = 0;
    enum kl_status st = kl_cudart_device(kl, "NPP", &dev, e);
    if (st != KL_OK)
        return st;
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", npp.why);
    b.rt = kl_cudart(why, sizeof why);
    if ((st = context_of(b.rt, dev, &b.ctx, e)) != KL_OK)
        return st;
    snprintf(what, n,
             "NPP nppiFilterGaussAdvancedBorder_%s_Ctx (%d taps, replicated border) on CUDA "
             "device %d, CUDA event time",
             p->rgba8 ? "8u_C4R" : "32f_C1R", 2 * p->R + 1, dev);
    if ((st = kl_cudart_run_open(&b.r, host, e)) == KL_OK)
        st = kl_cudart_run_measure(kl, &b.r, blur_once, &b, proto, out, stats, e);
    kl_cudart_run_close(&b.r);
    return st;
}
