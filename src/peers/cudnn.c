/*
 * NVIDIA cuDNN's softmax over rows (cudnnSoftmaxForward, accurate: the max
 * subtracted first, over the channels of an N×C×1×1 tensor: one row a
 * sample), loaded at run time from libcudnn beside the CUDA runtime. It runs
 * on the ladder's GPU with its own copies of the rows; its time is a pair of
 * CUDA events around the call. cuDNN's layer and RMS norms are operations of
 * its graph API only, which kladder does not drive: for those ops the peer
 * says so.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "peers/cudart.h"
#include "peers/peers_impl.h"

/* cudnn_graph.h and cudnn_ops.h, version 9 (the legacy API keeps these values from 7 on). */
enum {
    CUDNN_DATA_FLOAT = 0,
    CUDNN_DATA_HALF = 2,
    CUDNN_DATA_BFLOAT16 = 9,
    CUDNN_TENSOR_NCHW = 0,
    CUDNN_SOFTMAX_ACCURATE = 1,
    CUDNN_SOFTMAX_MODE_CHANNEL = 1,
    CUDNN_STATUS_NOT_SUPPORTED = 3000, /* 3000 to 3999: the call is not supported */
};
typedef int (*cudnn_handle_fn)(void **);
typedef int (*cudnn_release_fn)(void *);
typedef int (*cudnn_set4d_fn)(void *, int format, int type, int n, int c, int h, int w);
typedef int (*cudnn_softmax_fn)(void *handle, int algo, int mode, const void *alpha,
                                const void *x_desc, const void *x, const void *beta,
                                const void *y_desc, void *y);
typedef const char *(*cudnn_string_fn)(int);
typedef size_t (*cudnn_version_fn)(void);

static struct {
    int loaded;
    char why[256];
    cudnn_handle_fn create, create_desc;
    cudnn_release_fn destroy, destroy_desc;
    cudnn_set4d_fn set4d;
    cudnn_softmax_fn softmax;
    cudnn_string_fn string;
    cudnn_version_fn version;
} dnn;

static int load(void)
{
    /* libcudnn.so.9 is cuDNN 9's shim: it loads libcudnn_ops for the legacy calls. */
    static const char *const names[] = {"libcudnn.so.9", "libcudnn.so"};
    void *h;
    if (dnn.loaded)
        return dnn.loaded > 0 ? 0 : -1;
    dnn.loaded = -1;
    if (!(h = kl_dlopen_first(names, 2, 0, NULL))) {
        snprintf(dnn.why, sizeof dnn.why,
                 "NVIDIA cuDNN is not available (libcudnn.so.9 not found)");
        return -1;
    }
    *(void **)&dnn.create = dlsym(h, "cudnnCreate");
    *(void **)&dnn.destroy = dlsym(h, "cudnnDestroy");
    *(void **)&dnn.create_desc = dlsym(h, "cudnnCreateTensorDescriptor");
    *(void **)&dnn.destroy_desc = dlsym(h, "cudnnDestroyTensorDescriptor");
    *(void **)&dnn.set4d = dlsym(h, "cudnnSetTensor4dDescriptor");
    *(void **)&dnn.softmax = dlsym(h, "cudnnSoftmaxForward");
    *(void **)&dnn.string = dlsym(h, "cudnnGetErrorString");
    *(void **)&dnn.version = dlsym(h, "cudnnGetVersion");
    if (!dnn.create || !dnn.destroy || !dnn.create_desc || !dnn.destroy_desc || !dnn.set4d ||
        !dnn.softmax || !dnn.string || !dnn.version) {
        snprintf(dnn.why, sizeof dnn.why,
                 "libcudnn lacks the legacy softmax (cudnnSoftmaxForward and its descriptors)");
        return -1;
    }
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

enum kl_status kl_cudnn_softmax(struct kl_context *kl, const struct kl_softmax_problem *p,
                                const struct kl_protocol *proto, void *out, struct kl_stats *stats,
                                char *what, size_t n, struct kl_err *e)
{
    size_t bytes = (size_t)p->rows * (size_t)p->cols * kl_type_size(p->type);
    struct dnn_softmax s = {.r.bytes = {bytes, 0, bytes}};
    const void *host[3] = {p->x, NULL, NULL};
    const int type = p->type == KL_HALF   ? CUDNN_DATA_HALF
                     : p->type == KL_BF16 ? CUDNN_DATA_BFLOAT16
                                          : CUDNN_DATA_FLOAT;
    char why[256];
    int dev = 0;
    if (p->op != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED,
                       "cuDNN's layer and RMS norms are in its graph API only, which kladder "
                       "does not drive; its softmax runs beside --op softmax");
    enum kl_status st = kl_cudart_device(kl, "cuDNN", &dev, e);
    if (st != KL_OK)
        return st;
    if (load() != 0)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "%s", dnn.why);
    s.rt = kl_cudart(why, sizeof why);
    size_t v = dnn.version();
    snprintf(what, n,
             "cuDNN %zu.%zu.%zu cudnnSoftmaxForward (accurate, over channels: %d x %d x 1 x 1) "
             "on CUDA device %d, CUDA event time",
             v / 10000, v / 100 % 100, v % 100, p->rows, p->cols, dev);
    if ((st = status_of(dnn.create(&s.handle), "cudnnCreate", e)) != KL_OK)
        return st;
    if ((st = status_of(dnn.create_desc(&s.desc), "cudnnCreateTensorDescriptor", e)) == KL_OK &&
        (st = status_of(dnn.set4d(s.desc, CUDNN_TENSOR_NCHW, type, p->rows, p->cols, 1, 1),
                        "cudnnSetTensor4dDescriptor", e)) == KL_OK &&
        (st = kl_cudart_run_open(&s.r, host, e)) == KL_OK)
        st = kl_cudart_run_measure(kl, &s.r, softmax_once, &s, proto, out, stats, e);
    kl_cudart_run_close(&s.r);
    if (s.desc)
        dnn.destroy_desc(s.desc);
    dnn.destroy(s.handle);
    return st;
}
