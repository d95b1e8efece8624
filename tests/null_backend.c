/*
 * The null backend (null_backend.h): the backend table of a device whose
 * memory is the host's and whose kernels are the test's functions.
 */
#include "null_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kl_dev {
    int open;
};
struct kl_buf {
    size_t bytes;
    unsigned char *mem;
    int view; /* host_view's: mem is another buffer's */
};
struct kl_kernel {
    const struct kl_null_kernel *k;
    char options[512];
};

#define MAX_KERNELS 16
static const struct kl_null_kernel *kernels;
static int nkernels;
static long launches[MAX_KERNELS];

void kl_null_kernels(const struct kl_null_kernel *table, int n)
{
    kernels = table;
    nkernels = n < MAX_KERNELS ? n : MAX_KERNELS;
    memset(launches, 0, sizeof launches);
}

static int kernel_index(const char *entry)
{
    for (int i = 0; i < nkernels; i++)
        if (strcmp(kernels[i].entry, entry) == 0)
            return i;
    return -1;
}

long kl_null_launches(const char *entry)
{
    int i = kernel_index(entry);
    return i < 0 ? 0 : launches[i];
}

void *kl_null_memory(const struct kl_buf *b)
{
    return b ? b->mem : NULL;
}

static int platform_count(void)
{
    return 1;
}

static int device_count(int p)
{
    return p == 0 ? 1 : 0;
}

int kl_null_nvidia;

static enum kl_status device_info(int p, int d, struct kl_device_info *info, struct kl_err *e)
{
    if (p != 0 || d != 0)
        return kl_fail(e, KL_ERR_NO_DEVICE, "the null backend has one device, 0:0");
    memset(info, 0, sizeof *info);
    snprintf(info->platform, sizeof info->platform, "kladder null platform");
    snprintf(info->platform_version, sizeof info->platform_version, "null 1.0");
    snprintf(info->name, sizeof info->name, "null device");
    snprintf(info->vendor, sizeof info->vendor, "%s",
             kl_null_nvidia ? "NVIDIA Corporation (kladder tests)" : "kladder tests");
    if (kl_null_nvidia)
        snprintf(info->pci_bus_id, sizeof info->pci_bus_id, "00000000:01:00.0");
    snprintf(info->driver_version, sizeof info->driver_version, "1.0");
    snprintf(info->device_version, sizeof info->device_version, "OpenCL 1.2 null");
    snprintf(info->c_version, sizeof info->c_version, "OpenCL C 1.2 null");
    snprintf(info->type, sizeof info->type, "other");
    info->compute_units = 4;
    info->max_clock_mhz = 1000;
    info->global_mem = 1ull << 30;
    info->max_alloc = 1ull << 28;
    info->local_mem = 32 * 1024;
    info->local_mem_dedicated = 1;
    info->constant_mem = 64 * 1024;
    info->max_wg = 256;
    info->max_item[0] = info->max_item[1] = 256;
    info->max_item[2] = 64;
    info->fp64 = 1;
    info->profiling = 1;
    return KL_OK;
}

static enum kl_status dev_open(int p, int d, struct kl_dev **out, struct kl_err *e)
{
    if (p != 0 || d != 0)
        return kl_fail(e, KL_ERR_NO_DEVICE, "the null backend has one device, 0:0");
    if (!(*out = calloc(1, sizeof **out)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    (*out)->open = 1;
    return KL_OK;
}

static void dev_close(struct kl_dev *dev)
{
    free(dev);
}

static enum kl_status alloc(struct kl_dev *dev, size_t bytes, struct kl_buf **out, struct kl_err *e)
{
    (void)dev;
    struct kl_buf *b = calloc(1, sizeof *b);
    if (b)
        b->mem = calloc(bytes ? bytes : 1, 1);
    if (!b || !b->mem) {
        free(b);
        return kl_fail(e, KL_ERR_NO_MEMORY, "null device: no %zu bytes of host memory", bytes);
    }
    b->bytes = bytes;
    *out = b;
    return KL_OK;
}

static void release(struct kl_buf *b)
{
    if (b && !b->view)
        free(b->mem);
    free(b);
}

static enum kl_status out_of_range(struct kl_buf *b, size_t bytes, struct kl_err *e)
{
    return kl_fail(e, KL_ERR_BACKEND, "null device: %zu bytes of a %zu-byte buffer", bytes,
                   b->bytes);
}

static enum kl_status write_buf(struct kl_dev *dev, struct kl_buf *b, const void *src, size_t bytes,
                                struct kl_err *e)
{
    (void)dev;
    if (bytes > b->bytes)
        return out_of_range(b, bytes, e);
    memcpy(b->mem, src, bytes);
    return KL_OK;
}

static enum kl_status read_buf(struct kl_dev *dev, struct kl_buf *b, void *dst, size_t bytes,
                               struct kl_err *e)
{
    (void)dev;
    if (bytes > b->bytes)
        return out_of_range(b, bytes, e);
    memcpy(dst, b->mem, bytes);
    return KL_OK;
}

static enum kl_status build(struct kl_dev *dev, const char *source, const char *options,
                            const char *entry, struct kl_kernel **out, struct kl_err *e)
{
    (void)dev, (void)source;
    int i = kernel_index(entry);
    const char *log = i >= 0 && kernels[i].build ? kernels[i].build(options ? options : "") : NULL;
    if (i < 0)
        return kl_fail(e, KL_ERR_BUILD, "null device: no pretend kernel \"%s\"", entry);
    if (log)
        return kl_fail(e, KL_ERR_BUILD, "null device: building %s failed:\n%s", entry, log);
    if (!(*out = calloc(1, sizeof **out)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    (*out)->k = &kernels[i];
    snprintf((*out)->options, sizeof(*out)->options, "%s", options ? options : "");
    return KL_OK;
}

static void kernel_free(struct kl_kernel *k)
{
    free(k);
}

static size_t kernel_max_wg(struct kl_kernel *k)
{
    (void)k;
    return 256;
}

static void kernel_signature(struct kl_kernel *k, struct kl_kernel_sig *sig)
{
    (void)k;
    memset(sig, 0, sizeof *sig);
    sig->count = -1;
}

static void kernel_resources(struct kl_dev *dev, struct kl_kernel *k, size_t threads,
                             size_t local_dynamic, struct kl_resources *r)
{
    (void)dev, (void)k;
    memset(r, 0, sizeof *r);
    r->regs = -1;
    r->private_bytes = r->local_static = r->max_threads = r->threads_multiple = -1;
    r->groups_per_cu = -1;
    r->local_dynamic = (long)local_dynamic;
    r->threads = (long)threads;
    snprintf(r->why, sizeof r->why, "the null device runs no real kernel");
}

static enum kl_status launch(struct kl_dev *dev, struct kl_kernel *k, const struct kl_arg *args,
                             int nargs, int dims, const size_t *global, const size_t *local,
                             struct kl_launch_time *t, struct kl_err *e)
{
    (void)dev;
    long n = ++launches[k->k - kernels];
    struct kl_null_launch l = {k->k->entry, k->options, args, nargs, dims, global, local, n};
    double s = k->k->run(&l);
    if (s < 0)
        return kl_fail(e, KL_ERR_BACKEND, "null device: launch %ld of %s failed", n, k->k->entry);
    if (t)
        *t = (struct kl_launch_time){s, 0.0};
    return KL_OK;
}

static enum kl_status alloc_pinned(struct kl_dev *dev, size_t bytes, struct kl_buf **out,
                                   void **host, struct kl_err *e)
{
    enum kl_status st = alloc(dev, bytes, out, e);
    if (st == KL_OK)
        *host = (*out)->mem;
    return st;
}

/* Both ways at once: one after the other, which the null device's time does not see. */
static enum kl_status copy_both(struct kl_dev *dev, struct kl_buf *in, const void *host_in,
                                struct kl_buf *out, void *host_out, size_t bytes, struct kl_err *e)
{
    enum kl_status st = write_buf(dev, in, host_in, bytes, e);
    return st != KL_OK ? st : read_buf(dev, out, host_out, bytes, e);
}

/* The null device's memory is the host's: a view of a pinned buffer is its memory. */
static enum kl_status host_view(struct kl_dev *dev, struct kl_buf *pinned, struct kl_buf **out,
                                struct kl_err *e)
{
    (void)dev;
    if (!(*out = calloc(1, sizeof **out)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    (*out)->mem = pinned->mem, (*out)->bytes = pinned->bytes, (*out)->view = 1;
    return KL_OK;
}

static enum kl_status map(struct kl_dev *dev, struct kl_buf *b, size_t bytes, int for_write,
                          void **host, struct kl_err *e)
{
    (void)dev, (void)for_write;
    if (bytes > b->bytes)
        return out_of_range(b, bytes, e);
    *host = b->mem;
    return KL_OK;
}

static enum kl_status unmap(struct kl_dev *dev, struct kl_buf *b, void *host, struct kl_err *e)
{
    (void)dev, (void)b, (void)host, (void)e;
    return KL_OK;
}

static enum kl_status alloc_image(struct kl_dev *dev, int w, int h, int rgba8, const void *host,
                                  struct kl_buf **out, struct kl_err *e)
{
    size_t bytes = (size_t)w * (size_t)h * (rgba8 ? 4 : sizeof(float));
    enum kl_status st = alloc(dev, bytes, out, e);
    if (st == KL_OK)
        memcpy((*out)->mem, host, bytes);
    return st;
}

const struct kl_backend_ops kl_backend_null = {
    .name = "null",
    .platform_count = platform_count,
    .device_count = device_count,
    .device_info = device_info,
    .open = dev_open,
    .close = dev_close,
    .alloc = alloc,
    .release = release,
    .write = write_buf,
    .read = read_buf,
    .build = build,
    .kernel_free = kernel_free,
    .kernel_max_wg = kernel_max_wg,
    .kernel_signature = kernel_signature,
    .kernel_resources = kernel_resources,
    .launch = launch,
    .alloc_pinned = alloc_pinned,
    .copy_both = copy_both,
    .host_view = host_view,
    .pinned_what = "malloc",
    .map = map,
    .unmap = unmap,
    .alloc_image = alloc_image,
};
