#include "workloads/vecout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/measure.h"
#include "core/verify.h"
#include "peers/peers.h"

#define GUARD 256 /* elements past the output that a correct kernel never writes */

void kl_vecout_init(struct kl_vecout *o, struct kl_context *kl, enum kl_type t, size_t n)
{
    memset(o, 0, sizeof *o);
    o->kl = kl;
    o->type = t;
    o->n = n;
}

enum kl_status kl_vecout_alloc(struct kl_vecout *o, struct kl_err *e)
{
    size_t es = kl_type_size(o->type), total = o->n + GUARD;
    /* the reference and bounds in double, the read-back and fill, and on a CPU device the
       output itself: asked for before any is touched (kl_host_fits says why) */
    size_t need = o->n * (sizeof *o->ref + sizeof *o->scale) + 2 * total * es +
                  (o->kl->info.is_gpu ? 0 : total * es);
    char what[96];
    snprintf(what, sizeof what, "the reference, bounds and read-back of %zu results", o->n);
    enum kl_status st = kl_host_fits((double)need, what, e);
    if (st != KL_OK)
        return st;
    o->ref = malloc(o->n * sizeof *o->ref);
    o->scale = malloc(o->n * sizeof *o->scale);
    o->host = malloc(total * es);
    o->fill = malloc(total * es);
    if (!o->ref || !o->scale || !o->host || !o->fill)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for %zu results", o->n);
    kl_poison(o->type, o->fill, total);
    return o->kl->ops->alloc(o->kl->dev, total * es, &o->dev, e);
}

void kl_vecout_free(struct kl_vecout *o)
{
    if (o->kl)
        o->kl->ops->release(o->dev);
    free(o->ref);
    free(o->scale);
    free(o->host);
    free(o->fill);
}

void kl_vecout_judge(const struct kl_vecout *o, const void *got, double factor,
                     struct kl_result *res)
{
    struct kl_check c;
    kl_check(o->type, got, o->ref, o->type == KL_INT ? NULL : o->scale, NULL, o->n, factor, &c);
    if (c.bad) {
        res->status = KL_RESULT_FAILED;
        size_t used = (size_t)snprintf(res->note, sizeof res->note,
                                       "%zu of %zu results differ from the reference; first", c.bad,
                                       c.checked);
        for (size_t k = 0; k < c.nfirst && used < sizeof res->note; k++)
            used += (size_t)snprintf(res->note + used, sizeof res->note - used,
                                     "%s at %zu: got %.9g, want %.9g", k ? ";" : "", c.first[k],
                                     c.first_got[k], c.first_want[k]);
        if (used < sizeof res->note)
            snprintf(res->note + used, sizeof res->note - used,
                     "; worst at %zu: got %.9g, want %.9g", c.worst, c.worst_got, c.worst_want);
        return;
    }
    res->status = KL_RESULT_VERIFIED;
    snprintf(res->note, sizeof res->note,
             "%zu results match the reference (worst %.2g of tolerance)", c.checked, c.worst_ratio);
}

void kl_vecout_peer(const struct kl_vecout *o, enum kl_status st, const struct kl_err *e,
                    const char *what, const struct kl_stats *stats, double factor,
                    struct kl_result *res)
{
    if (!kl_peer_row(res, st, e, what))
        return;
    kl_vecout_judge(o, o->host, factor, res);
    kl_peer_keep(res, stats);
}

enum kl_status kl_vecout_run(struct kl_vecout *o, struct kl_launch *l, struct kl_launch *l2,
                             const struct kl_protocol *proto, double factor, struct kl_result *res)
{
    struct kl_launch_pair p = {.a = l, .b = l2};
    return kl_vecout_run_all(o, &p, proto, factor, res);
}

enum kl_status kl_vecout_run_all(struct kl_vecout *o, struct kl_launch_pair *p,
                                 const struct kl_protocol *proto, double factor,
                                 struct kl_result *res)
{
    struct kl_context *kl = o->kl;
    size_t es = kl_type_size(o->type), total = (o->n + GUARD) * es;
    struct kl_stats stats;
    enum kl_status st;
    double dummy;

    if (o->init)
        memcpy(o->fill, o->init, o->n * es);
    if ((st = kl->ops->write(kl->dev, o->dev, o->fill, total, &kl->err)) != KL_OK ||
        (st = kl_launch_pair_timed(p, &dummy, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, o->dev, o->host, total, &kl->err)) != KL_OK)
        return st;
    if (memcmp((char *)o->host + o->n * es, (char *)o->fill + o->n * es, GUARD * es) != 0) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note,
                 "the kernel wrote past the end of its %zu results (into the guard band)", o->n);
        return KL_OK;
    }
    kl_vecout_judge(o, o->host, factor, res);
    if (res->status != KL_RESULT_VERIFIED)
        return KL_OK;
    if ((st = kl_measure(kl, proto, kl_launch_pair_timed, p, &stats, &kl->err)) != KL_OK) {
        res->status = KL_RESULT_FAILED;
        return st;
    }
    kl_result_set_stats(res, &stats);
    return KL_OK;
}

enum kl_status kl_vecout_run_twice(struct kl_vecout *o, struct kl_launch_pair *p,
                                   const struct kl_protocol *proto, double factor,
                                   struct kl_result *res)
{
    struct kl_context *kl = o->kl;
    size_t bytes = o->n * kl_type_size(o->type);
    struct kl_result again;
    double seconds;
    enum kl_status st = kl_vecout_run_all(o, p, proto, factor, res);
    if (st != KL_OK || res->status != KL_RESULT_VERIFIED)
        return st;
    memset(&again, 0, sizeof again);
    if ((st = kl->ops->write(kl->dev, o->dev, o->fill, bytes, &kl->err)) != KL_OK ||
        (st = kl_launch_pair_timed(p, &seconds, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, o->dev, o->host, bytes, &kl->err)) != KL_OK)
        return st;
    kl_vecout_judge(o, o->host, factor, &again);
    if (again.status != KL_RESULT_VERIFIED) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "verified once, but after the timed launches: %.400s",
                 again.note);
    }
    return KL_OK;
}
