/*
 * The devices a multi-GPU run drives from one process (multi/summa.h): each
 * opened as "cuda:I" with its streams and events, and NCCL's communicators
 * over all of them.
 */
#include "multi/summa.h"

#ifdef KLADDER_HAVE_CUDA

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multi/links.h"

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

/* 1 when every device has device 0's name (with ranks: rank 0's device's). */
static int same_names(const struct kl_menv *env)
{
    const struct kl_ranks *R = env->ranks;
    char first[sizeof env->dev[0].kl->info.name];
    if (!R) {
        for (int d = 1; d < env->G; d++)
            if (strcmp(env->dev[d].kl->info.name, env->dev[0].kl->info.name) != 0)
                return 0;
        return 1;
    }
    snprintf(first, sizeof first, "%s", kl_menv_first(env)->info.name);
    R->bcast(first, sizeof first);
    return R->agree(strcmp(first, kl_menv_first(env)->info.name) == 0, NULL, 0);
}

/* One process: a communicator per device by ncclCommInitAll. */
static void nccl_all(struct kl_menv *env, const int *devices, char *why_no_nccl, size_t n)
{
    struct kl_err why;
    const struct kl_nccl *nccl = kl_nccl_load(&why);
    if (nccl && kl_nccl_comms(nccl, devices, env->G, env->comms, &why) == KL_OK)
        env->nccl = nccl;
    else
        snprintf(why_no_nccl, n, "%s", why.msg);
}

/*
 * Ranks: NCCL loaded on every rank, rank 0's unique id to all, then a communicator each
 * (ncclCommInitRank, which waits for every rank). Where any rank cannot, none has NCCL,
 * and why_no_nccl names the first that could not and why.
 */
static void nccl_ranks(struct kl_menv *env, char *why_no_nccl, size_t n)
{
    const struct kl_ranks *R = env->ranks;
    struct kl_context *kl = env->dev[R->rank].kl;
    struct kl_err why = {""};
    kl_nccl_unique_id id;
    kl_nccl_comm *mine = &env->comms[R->rank];
    const struct kl_nccl *nccl = R->shared ? NULL : kl_nccl_load(&why);
    memset(&id, 0, sizeof id);
    if (R->shared)
        snprintf(why.msg, sizeof why.msg, "ranks share a device here; NCCL needs one GPU a rank");
    int ok = nccl && (R->rank != 0 || kl_nccl_check(nccl, nccl->get_unique_id(&id),
                                                    "ncclGetUniqueId", &why) == KL_OK);
    if (R->agree(ok, why.msg, sizeof why.msg)) {
        R->bcast(&id, sizeof id);
        /* (every rank ready first: ncclCommInitRank waits for all of them) */
        if (R->agree(env->ops->make_current(kl->dev, &why) == KL_OK, why.msg, sizeof why.msg) &&
            R->agree(kl_nccl_check(nccl, nccl->comm_init_rank(mine, R->size, id, R->rank),
                                   "ncclCommInitRank", &why) == KL_OK,
                     why.msg, sizeof why.msg)) {
            env->nccl = nccl;
            return;
        }
    }
    if (*mine)
        nccl->comm_destroy(*mine);
    *mine = NULL;
    snprintf(why_no_nccl, n, "%s", why.msg);
}

enum kl_status kl_menv_open(struct kl_menv *env, const int *devices, int G,
                            const struct kl_ranks *ranks, char *why_no_nccl, size_t n,
                            struct kl_err *e)
{
    enum kl_status st = check_devices(devices, G, e);
    if (ranks && st == KL_OK && G != 1)
        st = kl_fail(e, KL_ERR_ARG, "a rank drives one device (got %d)", G);
    if (ranks && st == KL_OK && ranks->size > KL_MAX_DEVICES)
        st = kl_fail(e, KL_ERR_ARG, "at most %d ranks take part (got %d)", KL_MAX_DEVICES,
                     ranks->size);
    if ((st = kl_ranks_agreed(ranks, st, KL_ERR_ARG, e)) != KL_OK)
        return st;
    env->ranks = ranks;
    env->G = ranks ? ranks->size : G;
    env->dev = calloc((size_t)env->G, sizeof *env->dev);
    env->comms = calloc((size_t)env->G, sizeof *env->comms);
    if (!env->dev || !env->comms)
        st = kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    for (int d = 0; d < G && st == KL_OK; d++)
        st = open_device(env, &env->dev[ranks ? ranks->rank : d], devices[d], e);
    if ((st = kl_ranks_agreed(ranks, st, KL_ERR_BACKEND, e)) != KL_OK)
        return st;
    env->same_devices = same_names(env);
    if (ranks)
        nccl_ranks(env, why_no_nccl, n);
    else
        nccl_all(env, devices, why_no_nccl, n);
    return KL_OK;
}

struct kl_context *kl_menv_first(const struct kl_menv *env)
{
    for (int d = 0; env->dev && d < env->G; d++)
        if (env->dev[d].kl)
            return env->dev[d].kl;
    return NULL;
}

void kl_menv_note(const struct kl_menv *env, int index, char *line, size_t n)
{
    const struct kl_context *kl = kl_menv_first(env);
    const char *bus[KL_MAX_DEVICES];
    char device[160], links[1024];
    if (env->ranks) {
        snprintf(device, sizeof device, "CUDA device %d (%.80s)", index, kl->info.name);
        kl_links_ranks_note(env->ranks, device, kl->info.pci_bus_id, line, n);
        return;
    }
    for (int d = 0; d < env->G; d++)
        bus[d] = env->dev[d].kl->info.pci_bus_id;
    kl_links_text(env->G, NULL, bus, -1, links, sizeof links);
    size_t used = strlen(line);
    if (links[0] && used + 1 < n)
        snprintf(line + used, n - used, "%slinks: %s", used ? "; " : "", links);
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
