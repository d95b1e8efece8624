/*
 * The flush behind --cold: peak's fill kernel (kernels/opencl/peak/bw_fill.cl,
 * one uint4 a work-item) over a buffer twice the last-level cache, launched
 * straight through the backend so it is neither timed nor counted among the
 * row's kernels.
 */
#include "core/cold.h"


#include "backend/backend.h"
#include "core/context.h"

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
    struct kl_cold_flush *c = &kl->cold;
    size_t words = kl_cold_bytes(kl) / 16;
    enum kl_status st = kl_kernel_get(kl, "opencl/peak/bw_fill.cl", "bw_fill", "-DVEC=4 -DEPI=1",
                                      &c->kernel, &build_s);
    if (st != KL_OK)
        return kl_fail(e, st, "--cold: the cache flush's kernel: %s", kl->err.msg);
    if ((st = kl->ops->alloc(kl->dev, words * 16, &c->buf, e)) != KL_OK)
        return st;
    c->words = words;
    return KL_OK;
}

enum kl_status kl_cold_flush(struct kl_context *kl, struct kl_err *e)
{
    enum kl_status st;
    if (!kl->cold.buf && (st = cold_open(kl, e)) != KL_OK)
        return st;
    struct kl_cold_flush *c = &kl->cold;
    struct kl_arg args[3] = {{KL_ARG_BUF, {.buf = c->buf}},
                             {KL_ARG_INT, {.i = (int)c->words}},
                             {KL_ARG_INT, {.i = (int)++c->seed}}};
    size_t local[3] = {64, 1, 1}, global[3] = {(c->words + 63) / 64 * 64, 1, 1};
    struct kl_launch_time t;
    if ((st = kl->ops->launch(kl->dev, c->kernel, args, 3, 1, global, local, &t, e)) != KL_OK)
        return st;
    c->flushes++;
    return KL_OK;
}
