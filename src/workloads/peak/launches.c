/*
 * `kladder peak`'s launches and transfers: the latency of an empty kernel's
 * launch as the device's events and the host's clock see it, and host <->
 * device copies (pageable, pinned, mapped) after one round trip checked
 * byte for byte.
 */
#include "workloads/peak/parts.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/progress.h"
#include "core/util.h"

/* ---- launch latency ---------------------------------------------------------- */

struct latency {
    struct kl_launch l;
    double *queue, *run, *host;
    int n;
};

static enum kl_status latency_once(void *arg, double *seconds, struct kl_err *e)
{
    struct latency *x = arg;
    struct kl_launch_time t;
    double t0 = kl_now();
    enum kl_status st = x->l.kl->ops->launch(x->l.kl->dev, x->l.kernel, x->l.args, 1, 1,
                                             x->l.global, x->l.local, &t, e);
    double host = kl_now() - t0;
    if (st == KL_OK) {
        x->queue[x->n] = t.queue;
        x->run[x->n] = t.run;
        x->host[x->n++] = host;
    }
    *seconds = host;
    return st;
}

static void latency_row(struct kl_report *rep, const char *name, const char *what, double *v, int n)
{
    struct kl_result *res = kl_report_add(rep, name, NULL);
    struct kl_stats s;
    double mean = 0;
    if (!res)
        return;
    for (int i = 0; i < n; i++)
        mean += v[i] / n;
    kl_stats_compute(v, n, &s);
    res->status = KL_RESULT_MEASURED;
    res->median_s = s.median;
    res->min_s = s.min;
    res->max_s = s.max;
    res->repeats = n;
    snprintf(res->config, sizeof res->config, "empty kernel, 1 work-item");
    snprintf(res->note, sizeof res->note, "%s; mean %.2f us", what, mean * 1e6);
}

static enum kl_status measure_latency(struct kl_context *kl, const struct kl_peak_request *req,
                                      struct kl_report *rep, struct kl_ceilings *c)
{
    struct latency x = {.l = {.kl = kl, .dims = 1, .nargs = 1}};
    struct kl_protocol p = req->protocol;
    struct kl_buf *dummy = NULL;
    double build_s;
    enum kl_status st;
    /* Empty launches are microseconds: take many, whatever the protocol asks. */
    p.warmup = p.warmup > 10 ? p.warmup : 10;
    p.min_repeats = p.min_repeats > 200 ? p.min_repeats : 200;
    p.max_repeats = p.min_repeats > 2000 ? p.min_repeats : 2000;
    x.l.global[0] = x.l.local[0] = 1;
    x.l.global[1] = x.l.global[2] = x.l.local[1] = x.l.local[2] = 1;
    x.queue = malloc((size_t)(p.warmup + p.max_repeats) * sizeof(double));
    x.run = malloc((size_t)(p.warmup + p.max_repeats) * sizeof(double));
    x.host = malloc((size_t)(p.warmup + p.max_repeats) * sizeof(double));
    if (!x.queue || !x.run || !x.host) {
        st = kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
        goto done;
    }
    struct kl_stats ignored;
    if ((st = kl->ops->alloc(kl->dev, 4, &dummy, &kl->err)) != KL_OK ||
        (st = kl_kernel_get(kl, "opencl/peak/empty.cl", "empty", "", &x.l.kernel, &build_s)) !=
            KL_OK)
        goto done;
    x.l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = dummy}};
    if ((st = kl_measure(kl, &p, latency_once, &x, &ignored, &kl->err)) != KL_OK)
        goto done;
    /* Drop the warm-up launches, which latency_once recorded too. */
    int n = x.n - p.warmup;
    double *q = x.queue + p.warmup, *r = x.run + p.warmup, *h = x.host + p.warmup;
    double qmean = 0, rmean = 0;
    for (int i = 0; i < n; i++)
        qmean += q[i] / n, rmean += r[i] / n;
    if (n > 0 && q[0] < 0) {
        /* Events on the stream (CUDA's) cannot see a launch queued, nor a kernel start apart
         * from its end: the events around one launch give its submission, start and end. */
        latency_row(rep, "launch_latency",
                    "events recorded on the stream just before and after one launch: its "
                    "submission, start and end as the device's clock sees them (clpeak's OpenCL "
                    "figure is queued to start; the mean)",
                    r, n);
        c->launch_us = rmean * 1e6;
    } else {
        latency_row(rep, "launch_latency",
                    "queued to start, from events (clpeak's figure is the mean)", q, n);
        c->launch_us = qmean * 1e6;
    }
    latency_row(rep, "launch_host", "enqueue to completion as the host sees it", h, n);
    c->launch_host_us = rep->results[rep->count - 1].median_s * 1e6;
    if (n > 0 && q[0] < 0) {
        st = kl_peak_skip(kl, rep, "empty_kernel",
                          "the %s backend's events time a launch whole (launch_latency above): "
                          "an empty kernel's own run time is not seen apart",
                          kl->ops->name);
    } else {
        latency_row(rep, "empty_kernel", "an empty kernel's own run time, start to end", r, n);
        c->empty_us = rep->results[rep->count - 1].median_s * 1e6;
    }
done:
    kl->ops->release(dummy);
    free(x.queue);
    free(x.run);
    free(x.host);
    return st;
}

/* ---- host <-> device transfers ------------------------------------------------ */

/* Transfers of more than this run at the same rate and only take longer. */
#define XFER_BYTES ((size_t)256 << 20)

enum xfer_kind { X_WRITE, X_READ, X_MAP, X_UNMAP, X_BOTH };

struct xfer {
    struct kl_context *kl;
    enum xfer_kind kind;
    struct kl_buf *dev;
    void *host;
    size_t bytes;        /* each way */
    struct kl_buf *dev2; /* X_BOTH: the device buffer read back, at once, into host2 */
    void *host2;
};

static enum kl_status xfer_once(void *arg, double *seconds, struct kl_err *e)
{
    struct xfer *x = arg;
    const struct kl_backend_ops *ops = x->kl->ops;
    struct kl_dev *d = x->kl->dev;
    enum kl_status st = KL_OK;
    void *mapped = NULL;
    double t0 = kl_now(), t1;
    switch (x->kind) {
    case X_WRITE: st = ops->write(d, x->dev, x->host, x->bytes, e); break;
    case X_READ: st = ops->read(d, x->dev, x->host, x->bytes, e); break;
    case X_BOTH: st = ops->copy_both(d, x->dev, x->host, x->dev2, x->host2, x->bytes, e); break;
    case X_MAP:
        /* Mapping a device buffer for reading brings its bytes to the host. */
        if ((st = ops->map(d, x->dev, x->bytes, 0, &mapped, e)) != KL_OK)
            return st;
        t1 = kl_now();
        *seconds = t1 - t0;
        return ops->unmap(d, x->dev, mapped, e);
    case X_UNMAP:
        /* Unmapping after a write sends the bytes back to the device. */
        if ((st = ops->map(d, x->dev, x->bytes, 1, &mapped, e)) != KL_OK)
            return st;
        t0 = kl_now();
        st = ops->unmap(d, x->dev, mapped, e);
        break;
    }
    *seconds = kl_now() - t0;
    return st;
}

static enum kl_status xfer_row(struct xfer *x, const char *name, const char *config,
                               const struct kl_protocol *proto, struct kl_report *rep, double *gbps)
{
    struct kl_stats s;
    enum kl_status st = kl_measure(x->kl, proto, xfer_once, x, &s, &x->kl->err);
    struct kl_result *res;
    if (st != KL_OK)
        return st;
    if (!(res = kl_report_add(rep, name, NULL)))
        return kl_fail(&x->kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    res->status = KL_RESULT_MEASURED;
    kl_result_set_stats(res, &s);
    res->bytes = (double)x->bytes * (x->kind == X_BOTH ? 2 : 1); /* both ways: both counted */
    snprintf(res->config, sizeof res->config, "%s", config);
    snprintf(res->note, sizeof res->note, "%s",
             x->kind == X_BOTH
                 ? "host clock around both copies, queued at once on two queues; GB/s counts "
                   "the bytes of both directions; a copy both ways (from malloc'd memory) was "
                   "checked byte for byte first"
                 : "host clock around the blocking call; a write and read-back was checked byte "
                   "for byte first");
    *gbps = res->bytes / s.median * 1e-9;
    return KL_OK;
}

/*
 * One round trip of data (x->bytes) through x's device buffer into back,
 * checked byte for byte, so that the timed copies move real data; *same 0
 * and a failed row where it came back different.
 */
static enum kl_status round_trip(struct xfer *x, const unsigned char *data, unsigned char *back,
                                 struct kl_report *rep, int *same)
{
    struct kl_context *kl = x->kl;
    enum kl_status st;
    *same = 0;
    if ((st = kl->ops->write(kl->dev, x->dev, data, x->bytes, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, x->dev, back, x->bytes, &kl->err)) != KL_OK)
        return st;
    if (memcmp(data, back, x->bytes) == 0) {
        *same = 1;
        return KL_OK;
    }
    struct kl_result *bad = kl_report_add(rep, "write_pageable", NULL);
    if (bad) {
        bad->status = KL_RESULT_FAILED;
        snprintf(bad->note, sizeof bad->note,
                 "a write then read of %zu bytes came back "
                 "different",
                 x->bytes);
    }
    return KL_OK;
}

/*
 * Both directions at once (copy_both), checked as round_trip checks one: x->dev2 holds data
 * and x->dev zeros first, and after one copy_both from data into x->dev and from x->dev2 into
 * back, both hold data; *same 0 and a failed row where either does not.
 */
static enum kl_status both_trip(struct xfer *x, const unsigned char *data, unsigned char *back,
                                struct kl_report *rep, int *same)
{
    struct kl_context *kl = x->kl;
    enum kl_status st;
    *same = 0;
    memset(back, 0, x->bytes);
    if ((st = kl->ops->write(kl->dev, x->dev2, data, x->bytes, &kl->err)) != KL_OK ||
        (st = kl->ops->write(kl->dev, x->dev, back, x->bytes, &kl->err)) != KL_OK ||
        (st = kl->ops->copy_both(kl->dev, x->dev, data, x->dev2, back, x->bytes, &kl->err)) !=
            KL_OK)
        return st;
    int read_right = memcmp(back, data, x->bytes) == 0;
    if ((st = kl->ops->read(kl->dev, x->dev, back, x->bytes, &kl->err)) != KL_OK)
        return st;
    if (read_right && memcmp(back, data, x->bytes) == 0) {
        *same = 1;
        return KL_OK;
    }
    struct kl_result *bad = kl_report_add(rep, "both_pageable", NULL);
    if (bad) {
        bad->status = KL_RESULT_FAILED;
        snprintf(bad->note, sizeof bad->note,
                 "copies of %zu bytes both ways at once: the %s came back different", x->bytes,
                 read_right ? "host-to-device one" : "device-to-host one");
    }
    return KL_OK;
}

/*
 * The four copies, both ways from pageable and from pinned memory: their rows' names in the
 * ceilings and in the sweep (peak --transfers), and the ceiling each gives.
 */
static const struct copy_kind {
    const char *row, *sweep_row;
    enum xfer_kind kind;
    int pinned;
    size_t ceiling; /* offset of its GB/s in struct kl_ceilings */
} copies[] = {
    {"write_pageable", "h2d_pageable", X_WRITE, 0, offsetof(struct kl_ceilings, h2d_pageable)},
    {"read_pageable", "d2h_pageable", X_READ, 0, offsetof(struct kl_ceilings, d2h_pageable)},
    {"write_pinned", "h2d_pinned", X_WRITE, 1, offsetof(struct kl_ceilings, h2d_pinned)},
    {"read_pinned", "d2h_pinned", X_READ, 1, offsetof(struct kl_ceilings, d2h_pinned)},
};
#define NCOPIES (sizeof copies / sizeof *copies)

/* Copy k's side of the host (into x) and what that memory is. */
static const char *copy_host(struct xfer *x, size_t k, void *pageable, void *pinned)
{
    x->kind = copies[k].kind;
    x->host = copies[k].pinned ? pinned : pageable;
    return copies[k].pinned ? x->kl->ops->pinned_what : "malloc'd host memory";
}

/* The transfer rows, each timed by p: pageable and pinned copies both ways, map and unmap. */
static enum kl_status transfer_rows(struct xfer *x, void *pageable, void *pinned,
                                    const struct kl_protocol *p, struct kl_report *rep,
                                    struct kl_ceilings *c)
{
    const struct {
        const char *name;
        enum xfer_kind kind;
        const char *config;
        double *gbps;
    } maps[] = {
        {"map_read", X_MAP, "map a device buffer for reading", &c->map_gbps},
        {"unmap_write", X_UNMAP, "unmap a device buffer mapped for writing", &c->unmap_gbps},
    };
    enum kl_status st;
    for (size_t k = 0; k < NCOPIES; k++) {
        const char *what = copy_host(x, k, pageable, pinned);
        if ((st = xfer_row(x, copies[k].row, what, p, rep,
                           (double *)((char *)c + copies[k].ceiling))) != KL_OK)
            return st;
    }
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
        x->kind = maps[i].kind;
        x->host = pinned;
        if ((st = xfer_row(x, maps[i].name, maps[i].config, p, rep, maps[i].gbps)) != KL_OK)
            return st;
    }
    return KL_OK;
}

/* Far faster than any real copy: the "mapping" moved no data (shared memory). */
static void note_zero_copy(struct kl_report *rep, const struct kl_ceilings *c)
{
    double real = c->h2d_pinned > c->d2h_pinned ? c->h2d_pinned : c->d2h_pinned;
    for (int i = rep->count - 2; i < rep->count; i++)
        if (rep->results[i].bytes / rep->results[i].median_s * 1e-9 > 5 * real)
            snprintf(rep->results[i].note, sizeof rep->results[i].note,
                     "zero-copy: over 5x the pinned transfer rate, so no data moved");
}

/*
 * The host and device sides of transfers of up to bytes: random bytes (from seed) in
 * page-aligned malloc'd memory and in pinned memory, a device buffer, and room to read back;
 * for copies both ways at once, a second device buffer and a second pinned one.
 */
struct xfer_bufs {
    unsigned char *pageable, *back;
    struct kl_buf *dev, *pinned, *dev2, *pinned2;
    void *pinned_host, *pinned2_host;
    struct kl_buf *view, *view2; /* pinned and pinned2 as kernels see them (host_view) */
    char no_second[256];         /* why there is no dev2 and pinned2 though asked for */
};

static void bufs_close(struct kl_context *kl, struct xfer_bufs *b)
{
    kl->ops->release(b->view);
    kl->ops->release(b->view2);
    kl->ops->release(b->dev);
    kl->ops->release(b->pinned);
    kl->ops->release(b->dev2);
    kl->ops->release(b->pinned2);
    free(b->pageable);
    free(b->back);
}

static enum kl_status bufs_open(struct kl_context *kl, size_t bytes, unsigned long long seed,
                                int both, struct xfer_bufs *b)
{
    struct kl_rng rng;
    enum kl_status st;
    memset(b, 0, sizeof *b);
    /* Page-aligned, as a careful application's buffers would be. */
    b->pageable = aligned_alloc(4096, kl_round_up(bytes, 4096));
    b->back = malloc(bytes);
    if (!b->pageable || !b->back)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory for %zu-byte transfers",
                       bytes);
    kl_rng_seed(&rng, seed);
    for (size_t i = 0; i < bytes; i++)
        b->pageable[i] = (unsigned char)kl_rng_next(&rng);
    if ((st = kl->ops->alloc(kl->dev, bytes, &b->dev, &kl->err)) != KL_OK ||
        (st = kl->ops->alloc_pinned(kl->dev, bytes, &b->pinned, &b->pinned_host, &kl->err)) !=
            KL_OK)
        return st;
    memcpy(b->pinned_host, b->pageable, bytes);
    if (both &&
        (kl->ops->alloc(kl->dev, bytes, &b->dev2, &kl->err) != KL_OK ||
         kl->ops->alloc_pinned(kl->dev, bytes, &b->pinned2, &b->pinned2_host, &kl->err) != KL_OK)) {
        /* room for one copy's buffers, not two: only the rows that need two are left out */
        snprintf(b->no_second, sizeof b->no_second, "%.250s", kl->err.msg);
        kl->ops->release(b->dev2);
        kl->ops->release(b->pinned2);
        b->dev2 = b->pinned2 = NULL;
        b->pinned2_host = NULL;
    }
    return KL_OK;
}

/* Transfer rows time at least one warm-up copy first. */
static struct kl_protocol xfer_protocol(const struct kl_peak_request *req)
{
    struct kl_protocol p = req->protocol;
    p.warmup = p.warmup < 1 ? 1 : p.warmup;
    return p;
}

static enum kl_status measure_transfers(struct kl_context *kl, size_t bytes,
                                        const struct kl_peak_request *req, struct kl_report *rep,
                                        struct kl_ceilings *c)
{
    struct xfer_bufs b;
    struct kl_protocol p = xfer_protocol(req);
    enum kl_status st = bufs_open(kl, bytes, req->seed, 0, &b);
    struct xfer x = {.kl = kl, .bytes = bytes, .dev = b.dev};
    int same = 0;
    if (st == KL_OK && (st = round_trip(&x, b.pageable, b.back, rep, &same)) == KL_OK && same &&
        (st = transfer_rows(&x, b.pageable, b.pinned_host, &p, rep, c)) == KL_OK)
        note_zero_copy(rep, c);
    bufs_close(kl, &b);
    return st;
}

/* ---- SM-driven copies: a kernel reads or writes pinned host memory across the link ---- */

/* peak's copy kernel (bw_copy, uint4 elements, four a work-item) over bytes from src to dst. */
static enum kl_status sm_kernel(struct kl_context *kl, struct kl_buf *src, struct kl_buf *dst,
                                size_t bytes, struct kl_launch *l)
{
    enum kl_status st;
    double build_s;
    size_t n = bytes / 16;
    *l = (struct kl_launch){.kl = kl, .dims = 1, .nargs = 3, .local = {256, 1, 1}};
    l->global[0] = kl_round_up((n + 3) / 4, 256), l->global[1] = l->global[2] = 1;
    if ((st = kl_kernel_get(kl, "opencl/peak/bw_copy.cl", "bw_copy", "-DVEC=4 -DEPI=4", &l->kernel,
                            &build_s)) != KL_OK ||
        (st = kl_launch_check(l, "bw_copy", &kl->err)) != KL_OK)
        return st;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = src}};
    l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = dst}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)n}};
    return KL_OK;
}

/*
 * One SM-driven copy of x->bytes (a multiple of 16), host to device (d2h 0: the kernel reads
 * b->view into b->dev) or device to host (b->dev into b->view2): checked byte for byte first
 * (the source holding the data, the destination zeroed), then timed by the device's own
 * timer around the kernel; a failed row, untimed, where the bytes came out wrong.
 */
static enum kl_status sm_row(struct xfer *x, const struct xfer_bufs *b, int d2h,
                             const struct kl_protocol *p, struct kl_report *rep)
{
    struct kl_context *kl = x->kl;
    struct kl_launch l;
    struct kl_stats stats;
    struct kl_result *res;
    double once;
    enum kl_status st;
    const void *got = d2h ? b->pinned2_host : (const void *)b->back;
    memset(b->back, 0, x->bytes);
    memcpy(b->pinned_host, b->pageable, x->bytes);
    if (d2h)
        memset(b->pinned2_host, 0, x->bytes);
    if ((st = sm_kernel(kl, d2h ? b->dev : b->view, d2h ? b->view2 : b->dev, x->bytes, &l)) !=
            KL_OK ||
        (st = kl->ops->write(kl->dev, b->dev, d2h ? b->pageable : b->back, x->bytes, &kl->err)) !=
            KL_OK ||
        (st = kl_launch_timed(&l, &once, &kl->err)) != KL_OK ||
        (!d2h && (st = kl->ops->read(kl->dev, b->dev, b->back, x->bytes, &kl->err)) != KL_OK))
        return st;
    if (!(res = kl_report_add(rep, d2h ? "sm_d2h_pinned" : "sm_h2d_pinned", NULL)))
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    res->x = res->bytes = (double)x->bytes;
    snprintf(res->config, sizeof res->config, "%zu KiB, a kernel %s %s", x->bytes >> 10,
             d2h ? "writing" : "reading", kl->ops->pinned_what);
    if (memcmp(got, b->pageable, x->bytes) != 0) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "the kernel's copy of %zu bytes %s came out wrong",
                 x->bytes, d2h ? "into host memory" : "from host memory");
        return KL_OK;
    }
    if ((st = kl_measure(kl, p, kl_launch_timed, &l, &stats, &kl->err)) != KL_OK)
        return st;
    res->status = KL_RESULT_MEASURED;
    kl_result_set_stats(res, &stats);
    snprintf(res->note, sizeof res->note,
             "the copy kernel's own time (uint4, 4 a work-item): the SMs move the bytes across "
             "the link, no copy engine; checked byte for byte first");
    return KL_OK;
}

/*
 * The two pinned buffers as kernels see them, for the SM-driven rows. Where the backend has
 * a host_view but it fails here (the driver cannot map pinned memory, say), the rows are left
 * out and the report's reference line says why; only running out of host memory is an error.
 */
static enum kl_status sm_views(struct kl_context *kl, struct xfer_bufs *b, struct kl_report *rep)
{
    struct kl_err why;
    enum kl_status st = kl->ops->host_view(kl->dev, b->pinned, &b->view, &why);
    if (st == KL_OK)
        st = kl->ops->host_view(kl->dev, b->pinned2, &b->view2, &why);
    if (st == KL_OK || st == KL_ERR_NO_MEMORY)
        return st == KL_OK ? st : kl_fail(&kl->err, st, "%s", why.msg);
    kl->ops->release(b->view);
    b->view = b->view2 = NULL;
    size_t used = strlen(rep->reference);
    snprintf(rep->reference + used, sizeof rep->reference - used, "%sno SM-driven copies: %.300s",
             used ? "; " : "", why.msg);
    return KL_OK;
}

/*
 * The copies of one size (x's): each way, from pageable and from pinned memory, then, where
 * the backend has copy_both, both ways at once from each, and where it has host_view, by
 * the SMs each way.
 */
static enum kl_status sweep_size(struct xfer *x, const struct xfer_bufs *b,
                                 const struct kl_protocol *p, struct kl_report *rep)
{
    const struct {
        const char *row;
        void *host, *host2;
        const char *what;
    } both[] = {
        {"both_pageable", b->pageable, b->back, "malloc'd host memory"},
        {"both_pinned", b->pinned_host, b->pinned2_host, x->kl->ops->pinned_what},
    };
    char config[128];
    double gbps;
    enum kl_status st;
    for (size_t k = 0; k < NCOPIES + (x->kl->ops->copy_both && b->dev2 ? 2 : 0); k++) {
        const char *row, *what;
        if (k < NCOPIES) {
            what = copy_host(x, k, b->pageable, b->pinned_host), row = copies[k].sweep_row;
        } else {
            x->kind = X_BOTH, x->host = both[k - NCOPIES].host, x->host2 = both[k - NCOPIES].host2;
            what = both[k - NCOPIES].what, row = both[k - NCOPIES].row;
        }
        snprintf(config, sizeof config, "%zu KiB%s, %s", x->bytes >> 10,
                 k < NCOPIES ? "" : " each way", what);
        if ((st = xfer_row(x, row, config, p, rep, &gbps)) != KL_OK)
            return st;
        rep->results[rep->count - 1].x = (double)x->bytes;
    }
    for (int d2h = 0; b->view && b->view2 && x->bytes % 16 == 0 && d2h < 2; d2h++)
        if ((st = sm_row(x, b, d2h, p, rep)) != KL_OK)
            return st;
    return KL_OK;
}

enum kl_status kl_peak_transfer_sweep(struct kl_context *kl, const struct kl_peak_request *req,
                                      size_t top, struct kl_report *rep)
{
    struct xfer_bufs b;
    struct kl_protocol p = xfer_protocol(req);
    enum kl_status st =
        bufs_open(kl, top, req->seed, kl->ops->copy_both != NULL || kl->ops->host_view != NULL, &b);
    if (st == KL_OK && b.no_second[0]) {
        size_t used = strlen(rep->reference);
        snprintf(rep->reference + used, sizeof rep->reference - used,
                 "%sno copies both ways at once or by the SMs: %.300s", used ? "; " : "",
                 b.no_second);
    }
    if (st == KL_OK && kl->ops->host_view && b.pinned2)
        st = sm_views(kl, &b, rep);
    struct xfer x = {.kl = kl, .dev = b.dev, .dev2 = b.dev2};
    int same = 1;
    for (size_t s = 4096; s <= top && same && st == KL_OK; s = s == top      ? top + 1
                                                               : s * 4 < top ? s * 4
                                                                             : top) {
        x.bytes = s;
        kl_progress_step(0, 1, "peak: transfers of %zu KiB", s >> 10);
        if ((st = round_trip(&x, b.pageable, b.back, rep, &same)) == KL_OK && same &&
            kl->ops->copy_both && b.dev2)
            st = both_trip(&x, b.pageable, b.back, rep, &same);
        if (st == KL_OK && same)
            st = sweep_size(&x, &b, &p, rep);
    }
    bufs_close(kl, &b);
    return st;
}

enum kl_status kl_peak_launches(struct kl_context *kl, const struct kl_peak_request *req,
                                size_t bytes, struct kl_report *rep, struct kl_ceilings *c)
{
    enum kl_status st = measure_latency(kl, req, rep, c);
    return st != KL_OK
               ? st
               : measure_transfers(kl, bytes < XFER_BYTES ? bytes : XFER_BYTES, req, rep, c);
}
