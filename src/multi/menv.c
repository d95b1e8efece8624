/*
 * The devices a multi-GPU run drives from one process (multi/summa.h): each
 * opened as "cuda:I" with its streams and events, and NCCL's communicators
 * over all of them.
 */
#include "multi/summa.h"

#ifdef KLADDER_HAVE_CUDA

#include <stdio.h>
#include <stdlib.h>

/* 1 to KL_MAX_DEVICES device indices, none negative, none twice. */
static enum kl_status check_devices(const int *devices, int G, struct kl_err *e)
{
    if (G < 1 || G > KL_MAX_DEVICES || !devices)
        return kl_fail(e, KL_ERR_ARG, "1 to %d CUDA devices are needed (got %d)", KL_MAX_DEVICES,
                       G);
    for (int d = 0; d < G; d++) {
        if (devices[d] < 0)
            return kl_fail(e, KL_ERR_ARG, "CUDA device index %d is negative", devices[d]);
        for (int x = 0; x < d; x++)
            if (devices[x] == devices[d])
                return kl_fail(e, KL_ERR_ARG, "CUDA device %d is named twice", devices[d]);
    }
    return KL_OK;
}

/* Opens "cuda:index" as x with its two streams and four events (env->ops: its backend's). */
static enum kl_status open_device(struct kl_menv *env, struct kl_mdev *x, int index,
                                  struct kl_err *e)
{
    enum kl_status st;
    char spec[32], err[1024];
    snprintf(spec, sizeof spec, "cuda:%d", index);
    if ((st = kl_open(spec, &x->kl, err, sizeof err)) != KL_OK)
        return kl_fail(e, st, "opening CUDA device %d: %s", index, err);
    env->ops = x->kl->ops;
    if (!env->ops->stream_create)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "the %s backend has no streams", env->ops->name);
    if ((st = env->ops->stream_create(x->kl->dev, &x->comp, e)) != KL_OK ||
        (st = env->ops->stream_create(x->kl->dev, &x->comm, e)) != KL_OK)
        return st;
    for (int b = 0; b < 2; b++)
        if ((st = env->ops->event_create(x->kl->dev, &x->recv[b], e)) != KL_OK ||
            (st = env->ops->event_create(x->kl->dev, &x->used[b], e)) != KL_OK)
            return st;
    return KL_OK;
}

enum kl_status kl_menv_open(struct kl_menv *env, const int *devices, int G, char *why_no_nccl,
                            size_t n, struct kl_err *e)
{
    enum kl_status st = check_devices(devices, G, e);
    struct kl_err why;
    if (st != KL_OK)
        return st;
    env->G = G;
    env->dev = calloc((size_t)G, sizeof *env->dev);
    env->comms = calloc((size_t)G, sizeof *env->comms);
    if (!env->dev || !env->comms)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    for (int d = 0; d < G; d++)
        if ((st = open_device(env, &env->dev[d], devices[d], e)) != KL_OK)
            return st;
    const struct kl_nccl *nccl = kl_nccl_load(&why);
    if (nccl && kl_nccl_comms(nccl, devices, G, env->comms, &why) == KL_OK)
        env->nccl = nccl;
    else
        snprintf(why_no_nccl, n, "%s", why.msg);
    return KL_OK;
}

void kl_menv_close(struct kl_menv *env)
{
    if (env->nccl)
        kl_nccl_comms_free(env->nccl, env->comms, env->G);
    for (int d = 0; env->dev && d < env->G; d++) {
        struct kl_mdev *x = &env->dev[d];
        if (!x->kl)
            continue;
        const struct kl_backend_ops *ops = x->kl->ops;
        for (int b = 0; ops->event_destroy && b < 2; b++) {
            ops->event_destroy(x->kl->dev, x->recv[b]);
            ops->event_destroy(x->kl->dev, x->used[b]);
        }
        if (ops->stream_destroy) {
            ops->stream_destroy(x->kl->dev, x->comp);
            ops->stream_destroy(x->kl->dev, x->comm);
        }
        kl_close(x->kl);
    }
    free(env->dev);
    free(env->comms);
    env->dev = NULL;
    env->comms = NULL;
}

void kl_mrow_skip(struct kl_result *res, const char *why)
{
    res->status = KL_RESULT_SKIPPED;
    snprintf(res->note, sizeof res->note, "%.*s", (int)sizeof res->note - 1, why);
}

#endif /* KLADDER_HAVE_CUDA */
