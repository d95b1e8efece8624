/*
 * `kladder peak`'s atomics (kernels/opencl/peak/atomics.cl): adds to one
 * address, to one address a work-item, and in local memory, each timed and
 * then checked exactly; rows atomic_one, atomic_spread and atomic_local.
 */
#include "workloads/peak/parts.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/measure.h"

enum atomic_kind { AT_ONE, AT_SPREAD, AT_LOCAL };
static const char *const atomic_name[] = {"atomic_one", "atomic_spread", "atomic_local"};

/* v(gid) of atomics.cl. */
static uint32_t atomic_value(size_t gid)
{
    return (uint32_t)(gid % 7 + 1);
}

/*
 * Checks what atomics.cl left in host (read back): the global counters hold
 * the adds of every launch since they were zeroed, total iterations a
 * work-item; atomic_local's sums the last launch's, iters. 1 when exact
 * (mod 2^32), else 0 and a note.
 */
static int atomic_check(enum atomic_kind kind, const uint32_t *host, size_t groups, size_t wg,
                        uint32_t total, uint32_t iters, char *note, size_t n)
{
    const size_t global = groups * wg;
    uint32_t sum = 0;
    if (kind == AT_ONE) {
        for (size_t gid = 0; gid < global; gid++)
            sum += atomic_value(gid);
        if (host[0] != total * sum) {
            snprintf(note, n, "counter: got %u, want %u", host[0], total * sum);
            return 0;
        }
        return 1;
    }
    if (kind == AT_SPREAD) {
        for (size_t gid = 0; gid < global; gid++)
            if (host[gid] != total * atomic_value(gid)) {
                snprintf(note, n, "counter[%zu]: got %u, want %u", gid, host[gid],
                         total * atomic_value(gid));
                return 0;
            }
        return 1;
    }
    for (size_t g = 0; g < groups; g++) {
        sum = 0;
        for (size_t lid = 0; lid < wg; lid++)
            sum += atomic_value(g * wg + lid);
        if (host[g] != iters * sum) {
            snprintf(note, n, "out[%zu] (group %zu's sum): got %u, want %u", g, g, host[g],
                     iters * sum);
            return 0;
        }
    }
    return 1;
}

/* The counters a kind keeps: one, one a work-item, or one sum a work-group. */
static size_t atomic_words(enum atomic_kind kind, size_t groups, size_t global)
{
    return kind == AT_ONE ? 1 : kind == AT_SPREAD ? global : groups;
}

/*
 * The counters' host copy (atomic_local's poisoned; the global counters
 * start at zero) and, once the launch is checked, their device buffer.
 */
static enum kl_status atomic_buffers(struct kl_context *kl, enum atomic_kind kind,
                                     const struct kl_launch *l, size_t words, uint32_t **host,
                                     struct kl_buf **buf)
{
    enum kl_status st;
    if (!(*host = calloc(words, 4)))
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if (kind == AT_LOCAL)
        memset(*host, 0xA5, words * 4);
    if ((st = kl_launch_check(l, atomic_name[kind], &kl->err)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, words * 4, buf, &kl->err)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, *buf, *host, words * 4, &kl->err);
}

/* A verified row's rate (G adds/s in *gops) and its note. */
static void atomic_verified(enum atomic_kind kind, const struct kl_stats *stats, uint32_t iters,
                            size_t global, unsigned long long total, struct kl_result *res,
                            double *gops)
{
    static const char *const what[] = {"the counter", "every work-item's counter",
                                       "every group's sum"};
    kl_result_set_stats(res, stats);
    res->flops = (double)iters * (double)global;
    *gops = res->flops / res->median_s * 1e-9;
    snprintf(res->note, sizeof res->note,
             "verified: %s is exact (mod 2^32) after %llu adds a work-item; GFLOP/s reads as G "
             "atomic adds/s",
             what[kind], kind == AT_LOCAL ? (unsigned long long)iters : total);
}

/*
 * One atomics row: the loop calibrated, timed by req's protocol, the
 * counters checked exactly; *gops its rate in G adds/s (0 unless verified).
 */
static enum kl_status atomic_row(struct kl_context *kl, enum atomic_kind kind,
                                 const struct kl_peak_request *req, struct kl_report *rep,
                                 double *gops)
{
    struct kl_peak_counted c = {.l = {.kl = kl, .dims = 1, .nargs = 2}, .loop = 1};
    struct kl_buf *buf = NULL;
    uint32_t *host = NULL;
    struct kl_stats stats;
    enum kl_status st;
    double t;
    int row = kl_peak_add_row(kl, rep, atomic_name[kind]);
    size_t groups = kl_peak_grid_groups(kl, req->quick, 8);

    *gops = 0;
    if (row < 0)
        return KL_ERR_NO_MEMORY;
    struct kl_result *res = &rep->results[row];
    if ((st = kl_kernel_get(kl, "opencl/peak/atomics.cl", atomic_name[kind], "", &c.l.kernel,
                            &res->build_s)) != KL_OK)
        return st;
    const size_t wg = kl_peak_fit_wg(kl, c.l.kernel, req->quick ? 64 : 256), global = groups * wg;
    const size_t words = atomic_words(kind, groups, global);
    c.l.local[0] = wg;
    c.l.global[0] = global;
    c.l.local[1] = c.l.local[2] = c.l.global[1] = c.l.global[2] = 1;
    snprintf(res->config, sizeof res->config, "%zu groups of %zu", groups, wg);
    if ((st = atomic_buffers(kl, kind, &c.l, words, &host, &buf)) != KL_OK)
        goto done;
    c.l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = buf}};
    c.l.args[1] = (struct kl_arg){KL_ARG_INT, {.i = req->quick ? 4 : 1}};
    if ((st = kl_peak_calibrate(&c, req->quick, 1 << 20, &t)) != KL_OK ||
        (st = kl_measure(kl, &req->protocol, kl_peak_counted_launch, &c, &stats, &kl->err)) !=
            KL_OK ||
        (st = kl->ops->read(kl->dev, buf, host, words * 4, &kl->err)) != KL_OK)
        goto done;
    const uint32_t iters = (uint32_t)c.l.args[1].v.i;
    res->status =
        atomic_check(kind, host, groups, wg, (uint32_t)c.total, iters, res->note, sizeof res->note)
            ? KL_RESULT_VERIFIED
            : KL_RESULT_FAILED;
    if (res->status == KL_RESULT_VERIFIED)
        atomic_verified(kind, &stats, iters, global, (unsigned long long)c.total, res, gops);
done:
    free(host);
    kl->ops->release(buf);
    return st;
}

enum kl_status kl_peak_atomics(struct kl_context *kl, const struct kl_peak_request *req,
                               struct kl_report *rep, struct kl_ceilings *c)
{
    enum kl_status st;
    if ((st = atomic_row(kl, AT_ONE, req, rep, &c->atomic_one_gops)) != KL_OK ||
        (st = atomic_row(kl, AT_SPREAD, req, rep, &c->atomic_spread_gops)) != KL_OK)
        return st;
    return atomic_row(kl, AT_LOCAL, req, rep, &c->atomic_shared_gops);
}
