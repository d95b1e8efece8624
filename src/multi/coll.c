/*
 * Collectives between ranks (multi/coll.h): sizes, the data and its check,
 * the timed loops and the rows, through whatever transport kladder-mpi made.
 */
#include "multi/coll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/measure.h"
#include "core/progress.h"
#include "core/util.h"

kl_coll_open_fn kl_coll_transport_open = NULL;

static const char *const names[KL_COLL_OPS] = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all", "send_recv"};

const char *kl_coll_name(enum kl_coll_op op)
{
    return op >= 0 && op < KL_COLL_OPS ? names[op] : "?";
}

double kl_coll_bus_factor(enum kl_coll_op op, int n)
{
    switch (op) {
    case KL_COLL_ALL_REDUCE: return 2.0 * (n - 1) / n;
    case KL_COLL_ALL_GATHER:
    case KL_COLL_REDUCE_SCATTER:
    case KL_COLL_ALL_TO_ALL: return (double)(n - 1) / n;
    default: return 1.0;
    }
}

/* ---- buffers in host memory (kl_coll_host_memory) ---- */

static enum kl_status host_alloc(void *self, size_t floats, void **buf, struct kl_err *e)
{
    (void)self;
    return (*buf = malloc(floats * sizeof(float)))
               ? KL_OK
               : kl_fail(e, KL_ERR_NO_MEMORY, "no host memory for %zu floats", floats);
}

static void host_release(void *self, void *buf)
{
    (void)self;
    free(buf);
}

static enum kl_status host_put(void *self, void *buf, const float *host, size_t floats,
                               struct kl_err *e)
{
    (void)self, (void)e;
    memcpy(buf, host, floats * sizeof(float));
    return KL_OK;
}

static enum kl_status host_get(void *self, float *host, const void *buf, size_t floats,
                               struct kl_err *e)
{
    (void)self, (void)e;
    memcpy(host, buf, floats * sizeof(float));
    return KL_OK;
}

static enum kl_status host_wait(void *self, struct kl_err *e)
{
    (void)self, (void)e;
    return KL_OK;
}

static void host_close(void *self)
{
    (void)self;
}

void kl_coll_host_memory(struct kl_coll_transport *t)
{
    t->host_memory = 1;
    t->alloc = host_alloc, t->release = host_release, t->put = host_put, t->get = host_get;
    t->wait = host_wait, t->close = host_close;
}

/* nccl-tests' iterations a timed loop: 20, fewer from 8 MiB so a loop stays near 80 MiB. */
static int iterations(size_t bytes)
{
    size_t it = ((size_t)80 << 20) / bytes;
    return it > 20 ? 20 : it < 1 ? 1 : (int)it;
}

/* The count a rank passes for a message of `floats` (nccl-tests' size), and its buffers'. */
static size_t count_of(enum kl_coll_op op, size_t floats, int n, size_t *send, size_t *recv)
{
    size_t c = floats;
    *send = *recv = floats;
    switch (op) {
    case KL_COLL_ALL_GATHER: c = floats / n, *send = c, *recv = c * n; break;
    case KL_COLL_REDUCE_SCATTER: c = floats / n, *send = c * n, *recv = c; break;
    case KL_COLL_ALL_TO_ALL: c = floats / n, *send = *recv = c * n; break;
    default: break;
    }
    return c;
}

/* Rank r's float i: small whole numbers, so every sum over the ranks is exact in float. */
static float value(int r, size_t i)
{
    return (float)(((size_t)r * 31 + i) % 61 + 1);
}

static float sum_over(int n, size_t i)
{
    float s = 0;
    for (int r = 0; r < n; r++)
        s += value(r, i);
    return s;
}

/* What rank q's receive buffer holds at j after op; NAN where the op leaves it undefined. */
static float expected(enum kl_coll_op op, int q, int n, size_t count, size_t j)
{
    switch (op) {
    case KL_COLL_ALL_REDUCE: return sum_over(n, j);
    case KL_COLL_ALL_GATHER: return value((int)(j / count), j % count);
    case KL_COLL_REDUCE_SCATTER: return sum_over(n, (size_t)q * count + j);
    case KL_COLL_BROADCAST: return value(0, j);
    case KL_COLL_REDUCE: return q == 0 ? sum_over(n, j) : NAN;
    case KL_COLL_ALL_TO_ALL: return value((int)(j / count), (size_t)q * count + j % count);
    case KL_COLL_SEND_RECV: return value((q + n - 1) % n, j);
    default: return NAN;
    }
}

struct coll {
    struct kl_coll_transport *t;
    void *send, *recv;
    float *host;
    char why[256]; /* this rank's first wrong float, for the row's note */
};

/* Fills send with this rank's values and recv with NaN; runs op once; checks recv. */
static enum kl_status check(struct coll *C, enum kl_coll_op op, size_t count, size_t ns, size_t nr,
                            long *wrong, struct kl_err *e)
{
    struct kl_coll_transport *t = C->t;
    enum kl_status st;
    for (size_t i = 0; i < ns; i++)
        C->host[i] = value(t->rank, i);
    if ((st = t->put(t->self, C->send, C->host, ns, e)) != KL_OK)
        return st;
    for (size_t i = 0; i < nr; i++)
        C->host[i] = NAN;
    if ((st = t->put(t->self, C->recv, C->host, nr, e)) != KL_OK ||
        (st = t->run(t->self, op, C->send, C->recv, count, e)) != KL_OK ||
        (st = t->wait(t->self, e)) != KL_OK ||
        (st = t->get(t->self, C->host, C->recv, nr, e)) != KL_OK)
        return st;
    *wrong = 0;
    for (size_t j = 0; j < nr; j++) {
        float want = expected(op, t->rank, t->nranks, count, j);
        if (isnan(want) || C->host[j] == want)
            continue;
        if (!(*wrong)++)
            snprintf(C->why, sizeof C->why, "rank %d's float %zu is %g, not %g", t->rank, j,
                     (double)C->host[j], (double)want);
    }
    return KL_OK;
}

/* A loop's time as the ranks agree on it: the slowest rank's, or FAILED where one failed. */
#define FAILED 1e300
static enum kl_status agree(struct coll *C, enum kl_status st, double seconds, double *worst,
                            struct kl_err *e)
{
    *worst = C->t->max(C->t->self, st == KL_OK ? seconds : FAILED);
    if (st != KL_OK)
        return st;
    return *worst < FAILED ? KL_OK : kl_fail(e, KL_ERR_BACKEND, "another rank's collective failed");
}

/* `repeats` loops of `iters` runs, each begun by a barrier; samples: the slowest rank's. */
static enum kl_status timed(struct coll *C, enum kl_coll_op op, size_t count, int iters,
                            int repeats, double *samples, struct kl_err *e)
{
    struct kl_coll_transport *t = C->t;
    enum kl_status st = KL_OK;
    double worst;
    for (int w = 0; w < 2 && st == KL_OK; w++) /* warm-up, as nccl-tests' -w */
        st = t->run(t->self, op, C->send, C->recv, count, e);
    if (st == KL_OK)
        st = t->wait(t->self, e);
    st = agree(C, st, 0, &worst, e);
    for (int k = 0; k < repeats && st == KL_OK; k++) {
        t->barrier(t->self);
        double t0 = kl_now();
        for (int i = 0; i < iters && st == KL_OK; i++)
            st = t->run(t->self, op, C->send, C->recv, count, e);
        if (st == KL_OK)
            st = t->wait(t->self, e);
        /* every rank agrees after every loop, so none waits at a barrier for one that left */
        if ((st = agree(C, st, kl_now() - t0, &worst, e)) == KL_OK)
            samples[k] = worst / iters;
    }
    return st;
}

/* The row of op at `bytes`: checked on every rank, then timed unless any rank was wrong. */
static enum kl_status row(struct coll *C, enum kl_coll_op op, size_t bytes, int repeats,
                          struct kl_report *rep, struct kl_err *e)
{
    struct kl_coll_transport *t = C->t;
    size_t ns, nr, count = count_of(op, bytes / sizeof(float), t->nranks, &ns, &nr);
    /* What moves: the size rounded down to whole floats a rank, as nccl-tests rounds it. */
    double moved = (double)(ns > nr ? ns : nr) * sizeof(float);
    long wrong = 0;
    double samples[64];
    if (count == 0)
        return KL_OK; /* fewer floats than ranks: no message to send */
    enum kl_status st = check(C, op, count, ns, nr, &wrong, e);
    /* Every rank leaves together: a failure anywhere stops all (a hang otherwise). */
    int failed_here = st != KL_OK;
    if (t->max(t->self, failed_here) > 0)
        return failed_here ? st : kl_fail(e, KL_ERR_BACKEND, "another rank's collective failed");
    int wrong_anywhere = t->max(t->self, wrong > 0) > 0;
    struct kl_result *res = kl_report_add(rep, names[op], NULL);
    if (!res)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    double f = kl_coll_bus_factor(op, t->nranks);
    int iters = iterations(bytes);
    res->x = (double)bytes;
    res->bytes = moved * f; /* so the row's GB/s is the bus bandwidth */
    snprintf(res->config, sizeof res->config, "%zu B, %d rank%s", bytes, t->nranks,
             t->nranks == 1 ? "" : "s");
    if (wrong_anywhere) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "%s",
                 wrong ? C->why : "another rank's result differs");
        return KL_OK;
    }
    if ((st = timed(C, op, count, iters, repeats, samples, e)) != KL_OK)
        return st;
    struct kl_stats s;
    double sorted[64];
    memcpy(sorted, samples, (size_t)repeats * sizeof *samples);
    kl_stats_compute(sorted, repeats, &s);
    res->status = KL_RESULT_VERIFIED;
    kl_result_set_stats(res, &s);
    res->has_machine = 0; /* no kernel of kladder's: the transport's calls */
    if ((res->samples = malloc((size_t)repeats * sizeof *res->samples))) {
        memcpy(res->samples, samples, (size_t)repeats * sizeof *samples);
        res->nsamples = repeats;
    }
    snprintf(res->note, sizeof res->note,
             "algbw %.4g GB/s; busbw = algbw x %.3g; every float checked on every rank; %d "
             "iteration%s a loop, timed by the slowest rank",
             moved / s.median * 1e-9, f, iters, iters == 1 ? "" : "s");
    return KL_OK;
}

static void header(struct kl_context *kl, const struct kl_coll_request *req,
                   const struct kl_coll_transport *t, struct kl_report *rep)
{
    rep->workload = "collectives";
    rep->type = KL_FLOAT;
    rep->device = kl->info;
    rep->backend = kl->ops->name;
    kl_utc_now(rep->date, sizeof rep->date);
    kl_report_provenance(rep, kl);
    rep->protocol.warmup = 2;
    rep->protocol.min_repeats = rep->protocol.max_repeats = req->repeats;
    rep->show_config = 1;
    snprintf(rep->timing, sizeof rep->timing,
             "the host clock around each loop of iterations, begun by a barrier, the slowest "
             "rank's; a launch: one loop");
    snprintf(rep->sizes, sizeof rep->sizes, "bytes=%zu..%zu ranks=%d", req->min_bytes,
             req->max_bytes, t->nranks);
    snprintf(rep->size_json, sizeof rep->size_json,
             "\"min_bytes\": %zu, \"max_bytes\": %zu, \"ranks\": %d", req->min_bytes,
             req->max_bytes, t->nranks);
    snprintf(rep->reference, sizeof rep->reference,
             "every rank's result compared float by float with the exact sums of small whole "
             "numbers; a row is failed where any rank's differs");
    snprintf(rep->ceiling_note, sizeof rep->ceiling_note,
             "links between ranks: no single device's roof applies; moved by %s", t->what);
}

static enum kl_status check_request(const struct kl_coll_request *req, struct kl_err *e)
{
    if (req->min_bytes < KL_COLL_MIN_BYTES || req->min_bytes % sizeof(float) ||
        req->max_bytes < req->min_bytes)
        return kl_fail(e, KL_ERR_ARG,
                       "collectives need sizes of at least %d bytes, whole floats, the smallest "
                       "first (got %zu to %zu)",
                       KL_COLL_MIN_BYTES, req->min_bytes, req->max_bytes);
    if (req->repeats < 1 || req->repeats > 64)
        return kl_fail(e, KL_ERR_ARG, "1 to 64 timed loops a size (got %d)", req->repeats);
    return KL_OK;
}

enum kl_status kl_coll_measure(struct kl_context *kl, const struct kl_coll_request *req,
                               struct kl_coll_transport *t, struct kl_report *rep, struct kl_err *e)
{
    struct coll C = {.t = t};
    size_t floats = req->max_bytes / sizeof(float);
    enum kl_status st = check_request(req, e);
    if (st != KL_OK)
        return st;
    header(kl, req, t, rep);
    /* Every rank allocates; all go on only where all could. */
    int bad = (C.host = malloc(floats * sizeof *C.host)) == NULL;
    if (!bad && (st = t->alloc(t->self, floats, &C.send, e)) == KL_OK)
        st = t->alloc(t->self, floats, &C.recv, e);
    bad |= st != KL_OK;
    if (t->max(t->self, bad) > 0) {
        st = st != KL_OK ? st
             : bad ? kl_fail(e, KL_ERR_NO_MEMORY, "no host memory for %zu bytes", req->max_bytes)
                   : kl_fail(e, KL_ERR_NO_MEMORY, "another rank could not allocate %zu bytes",
                             req->max_bytes);
        goto done;
    }
    for (size_t b = req->min_bytes; b <= req->max_bytes && st == KL_OK; b *= 2) {
        kl_progress_step(0, 1, "collectives: %zu bytes", b);
        for (int op = 0; op < KL_COLL_OPS && st == KL_OK; op++)
            if (!req->ops || req->ops & 1u << op)
                st = row(&C, (enum kl_coll_op)op, b, req->repeats, rep, e);
        if (b > req->max_bytes / 2)
            break;
    }
    kl_report_finish(rep);
done:
    if (C.send)
        t->release(t->self, C.send);
    if (C.recv)
        t->release(t->self, C.recv);
    free(C.host);
    return st;
}
