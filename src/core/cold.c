/*
 * The flush behind --cold: peak's fill kernel (kernels/opencl/peak/bw_fill.cl,
 * one uint4 a work-item) over a buffer twice the last-level cache, launched
 * straight through the backend so it is neither timed nor counted among the
 * row's kernels.
 */
#include "core/cold.h"

#include <stdlib.h>

#include "backend/backend.h"
#include "core/context.h"

struct kl_cold {
    struct kl_buf *buf;
    struct kl_kernel *kernel;
    size_t words; /* uint4 elements */
    unsigned seed;
};

size_t kl_cold_bytes(const struct kl_context *kl)
{
    size_t bytes = 2 * (size_t)kl->info.global_cache, least = (size_t)256 << 20;
    bytes = bytes > least ? bytes : least;
    return (bytes + 15) / 16 * 16;
}

/* The buffer and the kernel, on first use. */
static enum kl_status cold_open(struct kl_context *kl, struct kl_err *e)
{
    double build_s;
    struct kl_cold *c = calloc(1, sizeof *c);
    if (!c)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    c->words = kl_cold_bytes(kl) / 16;
    enum kl_status st = kl->ops->alloc(kl->dev, c->words * 16, &c->buf, e);
    if (st != KL_OK) {
        free(c);
        return st;
    }
    st = kl_kernel_get(kl, "opencl/peak/bw_fill.cl", "bw_fill", "-DVEC=4 -DEPI=1", &c->kernel,
                       &build_s);
    if (st != KL_OK) {
        kl->ops->release(c->buf);
        free(c);
        return kl_fail(e, st, "--cold: the cache flush's kernel: %s", kl->err.msg);
    }
    kl->cold = c;
    return KL_OK;
}

enum kl_status kl_cold_flush(struct kl_context *kl, struct kl_err *e)
{
    enum kl_status st;
    if (!kl->cold && (st = cold_open(kl, e)) != KL_OK)
        return st;
    struct kl_cold *c = kl->cold;
    struct kl_arg args[3] = {{KL_ARG_BUF, {.buf = c->buf}},
                             {KL_ARG_INT, {.i = (int)c->words}},
                             {KL_ARG_INT, {.i = (int)++c->seed}}};
    size_t local[3] = {64, 1, 1}, global[3] = {(c->words + 63) / 64 * 64, 1, 1};
    struct kl_launch_time t;
    return kl->ops->launch(kl->dev, c->kernel, args, 3, 1, global, local, &t, e);
}

void kl_cold_free(struct kl_context *kl)
{
    if (kl->cold) {
        kl->ops->release(kl->cold->buf);
        free(kl->cold);
        kl->cold = NULL;
    }
}
