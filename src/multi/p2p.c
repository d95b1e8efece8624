/*
 * Links between GPUs (multi/p2p.h). Each device holds a source buffer of a
 * pattern that names the device and the word, and a destination buffer.
 * Every row checks what arrived after its first, untimed run (the
 * destination poisoned before it), then times by the protocol: copies with
 * CUDA events on the issuing device's stream (one copy, one stream: events
 * see all of it), NCCL with the host clock around a run that ends with every
 * device involved synchronized (events on one device cannot see another's).
 *
 * With ranks (kladder-mpi, one process a GPU, multi/ranks.h) device d is rank d's: every
 * run starts after a barrier and its time is the slowest rank's (the others took no part
 * or waited for their half of a pair), each check is made by the rank that holds the
 * destination and shared, and a peer copy, which needs both devices in one process, is
 * measured only within each device; NCCL's rows measure the links between ranks.
 */
#include "multi/p2p.h"

#include <math.h>
#include <string.h>

#ifdef KLADDER_HAVE_CUDA

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/measure.h"
#include "core/stop.h"
#include "core/util.h"
#include "core/verify.h"
#include "multi/links.h"
#include "multi/summa.h"

struct p2p {
    const struct kl_p2p_request *req;
    struct kl_menv env;
    char why_no_nccl[600];
    size_t bytes;
    struct kl_buf **src, **dst; /* per device */
    uint32_t *host;             /* bytes of host memory: patterns, read-backs */
    int *peer;                  /* peer[i * G + j]: device i reaches j's memory directly */
};

/* Word x of device d's pattern: a hash of both, so a word from elsewhere does not match. */
static uint32_t word(int d, size_t x)
{
    uint64_t z = ((uint64_t)(unsigned)d << 40) ^ (uint64_t)x ^ 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)(z ^ (z >> 31));
}

/* Element x of device d's all-reduce input: an integer in [-8, 7], so every sum is exact. */
static float term(int d, size_t x)
{
    return (float)((int)(word(d, x) >> 28) - 8);
}

static struct kl_context *ctx(const struct p2p *P, int d)
{
    return P->env.dev[d].kl;
}

/* 1 when device d is this process's (every device in one process; with ranks, its own). */
static int here(const struct p2p *P, int d)
{
    return kl_menv_here(&P->env, d);
}

/* With ranks: rank `from`'s verdict on a row (its status and note) made every rank's. */
static void share_result(const struct p2p *P, int from, struct kl_result *res)
{
    const struct kl_ranks *R = P->env.ranks;
    struct {
        int status;
        char note[sizeof res->note];
    } v;
    if (!R)
        return;
    v.status = (int)res->status;
    memcpy(v.note, res->note, sizeof v.note);
    if (from != 0)
        R->to_root(&v, sizeof v, from);
    R->bcast(&v, sizeof v);
    res->status = (enum kl_result_status)v.status;
    memcpy(res->note, v.note, sizeof res->note);
}

/* Writes device d's pattern (or its all-reduce terms) into its source buffer. */
static enum kl_status fill_source(struct p2p *P, int d, int terms, struct kl_err *e)
{
    size_t words = P->bytes / 4;
    if (!here(P, d))
        return KL_OK;
    for (size_t x = 0; x < words; x++) {
        if (terms) {
            float f = term(d, x);
            memcpy(&P->host[x], &f, 4);
        } else {
            P->host[x] = word(d, x);
        }
    }
    return ctx(P, d)->ops->write(ctx(P, d)->dev, P->src[d], P->host, P->bytes, e);
}

/* Poisons the first bytes of device d's destination (NaN words). */
static enum kl_status poison(struct p2p *P, int d, size_t bytes, struct kl_err *e)
{
    if (!here(P, d))
        return KL_OK;
    kl_poison(KL_FLOAT, P->host, bytes / 4);
    return ctx(P, d)->ops->write(ctx(P, d)->dev, P->dst[d], P->host, bytes, e);
}

/* Compares device j's destination with the first bytes of device i's pattern (j is here). */
static void compare_copy(struct p2p *P, int i, int j, size_t bytes, struct kl_result *res,
                         struct kl_err *e)
{
    if (ctx(P, j)->ops->read(ctx(P, j)->dev, P->dst[j], P->host, bytes, e) != KL_OK) {
        res->status = KL_RESULT_FAILED;
        snprintf(res->note, sizeof res->note, "reading the copy back failed: %.400s", e->msg);
        return;
    }
    for (size_t x = 0; x < bytes / 4; x++)
        if (P->host[x] != word(i, x)) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note,
                     "word %zu of %zu arrived as 0x%08x, not 0x%08x: the copy is wrong", x,
                     bytes / 4, (unsigned)P->host[x], (unsigned)word(i, x));
            return;
        }
    res->status = KL_RESULT_VERIFIED;
    snprintf(res->note, sizeof res->note, "all %zu bytes arrived", bytes);
}

/* Checks that device j's destination holds the first bytes of device i's pattern: the
 * process that holds j compares, and with ranks its verdict is every rank's. */
static void check_copy(struct p2p *P, int i, int j, size_t bytes, struct kl_result *res,
                       struct kl_err *e)
{
    if (here(P, j))
        compare_copy(P, i, j, bytes, res, e);
    share_result(P, j, res);
}

/* One timed copy: i's source to j's destination on i's stream, between i's events. */
struct copy {
    struct p2p *P;
    int i, j;
    size_t bytes;
};

static enum kl_status copy_once(void *arg, double *seconds, struct kl_err *e)
{
    struct copy *c = arg;
    struct kl_mdev *a = &c->P->env.dev[c->i], *b = &c->P->env.dev[c->j];
    enum kl_status st;
    *seconds = 0;
    if (!here(c->P, c->i)) /* (with ranks, only i = j: another rank's device) */
        return KL_OK;
    if ((st = c->P->env.ops->make_current(a->kl->dev, e)) != KL_OK ||
        (st = c->P->env.ops->event_record(a->recv[0], a->comp, e)) != KL_OK ||
        (st = c->P->env.ops->copy_async(b->kl->dev, c->P->dst[c->j], 0, a->kl->dev, c->P->src[c->i],
                                        0, c->bytes, a->comp, e)) != KL_OK ||
        (st = c->P->env.ops->event_record(a->recv[1], a->comp, e)) != KL_OK)
        return st;
    return c->P->env.ops->event_elapsed(a->recv[0], a->recv[1], seconds, e);
}

/*
 * One timed NCCL send/receive pair, i to j, host clock to both streams done: the send where
 * i is here, the receive where j is (with ranks, each on its own rank; the others wait).
 */
static enum kl_status nccl_once(void *arg, double *seconds, struct kl_err *e)
{
    struct copy *c = arg;
    const struct kl_menv *env = &c->P->env;
    const struct kl_nccl *n = env->nccl;
    struct kl_mdev *a = &env->dev[c->i], *b = &env->dev[c->j];
    int send = here(c->P, c->i), recv = here(c->P, c->j);
    double t0 = kl_now();
    *seconds = 0;
    if (!send && !recv)
        return KL_OK;
    enum kl_status st = kl_nccl_check(n, n->group_start(), "ncclGroupStart", e), s1 = KL_OK;
    if (st == KL_OK && send)
        s1 = kl_nccl_check(n,
                           n->send((const void *)(uintptr_t)env->ops->device_ptr(c->P->src[c->i]),
                                   c->bytes / 4, KL_NCCL_FLOAT32, c->j, env->comms[c->i], a->comp),
                           "ncclSend", e);
    if (st == KL_OK && s1 == KL_OK && recv)
        s1 = kl_nccl_check(n,
                           n->recv((void *)(uintptr_t)env->ops->device_ptr(c->P->dst[c->j]),
                                   c->bytes / 4, KL_NCCL_FLOAT32, c->i, env->comms[c->j], b->comp),
                           "ncclRecv", e);
    if (st == KL_OK)
        st = kl_nccl_check(n, n->group_end(), "ncclGroupEnd", e);
    st = s1 != KL_OK ? s1 : st;
    if (st == KL_OK && send)
        st = env->ops->stream_sync(a->kl->dev, a->comp, e);
    if (st == KL_OK && recv)
        st = env->ops->stream_sync(b->kl->dev, b->comp, e);
    *seconds = kl_now() - t0;
    return st;
}

/* One timed all-reduce over every device, sources into destinations. */
static enum kl_status allreduce_once(void *arg, double *seconds, struct kl_err *e)
{
    struct p2p *P = arg;
    const struct kl_nccl *n = P->env.nccl;
    double t0 = kl_now();
    enum kl_status st = kl_nccl_check(n, n->group_start(), "ncclGroupStart", e), s1 = KL_OK;
    for (int d = 0; st == KL_OK && s1 == KL_OK && d < P->env.G; d++)
        if (here(P, d))
            s1 = kl_nccl_check(
                n,
                n->all_reduce((const void *)(uintptr_t)P->env.ops->device_ptr(P->src[d]),
                              (void *)(uintptr_t)P->env.ops->device_ptr(P->dst[d]), P->bytes / 4,
                              KL_NCCL_FLOAT32, KL_NCCL_SUM, P->env.comms[d], P->env.dev[d].comp),
                "ncclAllReduce", e);
    if (st == KL_OK)
        st = kl_nccl_check(n, n->group_end(), "ncclGroupEnd", e);
    st = s1 != KL_OK ? s1 : st;
    for (int d = 0; st == KL_OK && d < P->env.G; d++)
        if (here(P, d))
            st = P->env.ops->stream_sync(P->env.dev[d].kl->dev, P->env.dev[d].comp, e);
    *seconds = kl_now() - t0;
    return st;
}

/* A step's status, with ranks every rank's (collective): see kl_ranks_agreed. */
static enum kl_status agreed(const struct p2p *P, enum kl_status st, struct kl_err *e)
{
    return kl_ranks_agreed(P->env.ranks, st, KL_ERR_BACKEND, e);
}

/* A run as the protocol times it: with ranks, every rank's together (see the top). */
struct ranked {
    struct p2p *P;
    kl_launch_fn fn;
    void *arg;
};

static enum kl_status ranked_once(void *arg, double *seconds, struct kl_err *e)
{
    struct ranked *r = arg;
    return kl_ranks_run(r->P->env.ranks, r->fn, r->arg, seconds, e);
}

/* A row: checked after one run, then timed; a failed check keeps no speed. */
static enum kl_status row(struct p2p *P, struct kl_report *rep, const char *name, double bytes,
                          kl_launch_fn fn, void *arg,
                          void (*check)(struct p2p *, void *, struct kl_result *, struct kl_err *),
                          struct kl_err *e)
{
    struct kl_stats stats;
    struct ranked run = {P, fn, arg};
    double dummy;
    struct kl_result *res = kl_report_add(rep, name, NULL);
    enum kl_status st;
    if (!res)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    res->bytes = bytes;
    if ((st = ranked_once(&run, &dummy, e)) != KL_OK)
        return st;
    check(P, arg, res, e);
    if (res->status != KL_RESULT_VERIFIED)
        return KL_OK;
    kl_measure_forget();
    if ((st = kl_measure(NULL, &P->req->protocol, ranked_once, &run, &stats, e)) != KL_OK) {
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->note, sizeof res->note, "not measured: %.480s", e->msg);
        return st;
    }
    kl_result_set_stats(res, &stats);
    kl_result_keep_measured(res);
    return KL_OK;
}

static void check_pair(struct p2p *P, void *arg, struct kl_result *res, struct kl_err *e)
{
    const struct copy *c = arg;
    check_copy(P, c->i, c->j, c->bytes, res, e);
}

/* Every device's destination against the sums of everyone's terms, on a sample of elements. */
static void check_sum(struct p2p *P, void *arg, struct kl_result *res, struct kl_err *e)
{
    size_t words = P->bytes / 4;
    struct kl_rng rng;
    (void)arg;
    kl_rng_seed(&rng, 0xa11ULL);
    res->status = KL_RESULT_VERIFIED;
    for (int d = 0; d < P->env.G && res->status == KL_RESULT_VERIFIED; d++) {
        if (!here(P, d))
            continue;
        if (ctx(P, d)->ops->read(ctx(P, d)->dev, P->dst[d], P->host, P->bytes, e) != KL_OK) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note, "reading the sum back failed: %.400s", e->msg);
            break;
        }
        for (int s = 0; s < 4096; s++) {
            size_t x = s == 0 ? 0 : s == 1 ? words - 1 : (size_t)(kl_rng_next(&rng) % words);
            float want = 0, got;
            for (int i = 0; i < P->env.G; i++)
                want += term(i, x);
            memcpy(&got, &P->host[x], 4);
            if (got != want) {
                res->status = KL_RESULT_FAILED;
                snprintf(res->note, sizeof res->note,
                         "device %d: element %zu of the sum is %g, not %g", d, x, got, want);
                break;
            }
        }
    }
    if (P->env.ranks &&
        !P->env.ranks->agree(res->status == KL_RESULT_VERIFIED, res->note, sizeof res->note))
        res->status = KL_RESULT_FAILED; /* (the note: the first failing rank's) */
    if (res->status == KL_RESULT_VERIFIED)
        snprintf(res->note, sizeof res->note,
                 "4096 sampled elements of the sum on each of %d devices are exact", P->env.G);
}

static void skipped_row(struct kl_report *rep, const char *name, const char *why)
{
    struct kl_result *res = kl_report_add(rep, name, NULL);
    if (res)
        kl_mrow_skip(res, why);
}

/* Appends to the note of the report's last row. */
static void last_note(struct kl_report *rep, const char *text)
{
    struct kl_result *res = &rep->results[rep->count - 1];
    size_t used = strlen(res->note);
    if (res->status == KL_RESULT_VERIFIED && used + 1 < sizeof res->note)
        snprintf(res->note + used, sizeof res->note - used, "; %s", text);
}

/* The copy and latency matrices (with ranks, their diagonals: a peer copy needs one process). */
static enum kl_status copies(struct p2p *P, struct kl_report *rep, int small, struct kl_err *e)
{
    int G = P->env.G;
    enum kl_status st = KL_OK;
    char name[64], text[256];
    for (int i = 0; i < G && st == KL_OK; i++)
        for (int j = 0; j < G && st == KL_OK; j++) {
            struct copy c = {P, i, j, small ? KL_P2P_SMALL : P->bytes};
            if (P->env.ranks && i != j)
                continue;
            snprintf(name, sizeof name, "%s %d>%d", small ? "latency" : "copy", i, j);
            if ((st = agreed(P, poison(P, j, c.bytes, e), e)) != KL_OK ||
                (st = row(P, rep, name, (double)c.bytes, copy_once, &c, check_pair, e)) != KL_OK)
                break;
            if (i == j)
                snprintf(text, sizeof text,
                         "cuMemcpyDtoDAsync within device %d: each byte is read and written, so "
                         "memory moves twice the GB/s",
                         i);
            else
                snprintf(text, sizeof text, "cuMemcpyPeerAsync, %s; CUDA events on device %d",
                         P->peer[i * G + j] ? "peer access on"
                                            : "no peer access (staged by the driver)",
                         i);
            last_note(rep, text);
        }
    return st;
}

/* NCCL's send/receive matrix and the all-reduce. */
static enum kl_status collectives(struct p2p *P, struct kl_report *rep, struct kl_err *e)
{
    int G = P->env.G;
    enum kl_status st = KL_OK;
    char name[64], text[256];
    if (!P->env.nccl) {
        skipped_row(rep, "nccl", P->why_no_nccl);
        skipped_row(rep, "allreduce", P->why_no_nccl);
        return KL_OK;
    }
    if (G == 1)
        skipped_row(rep, "nccl", "one device: NCCL's send/receive needs two");
    for (int i = 0; i < G && st == KL_OK; i++)
        for (int j = 0; j < G && st == KL_OK; j++) {
            struct copy c = {P, i, j, P->bytes};
            if (i == j)
                continue;
            snprintf(name, sizeof name, "nccl %d>%d", i, j);
            if ((st = agreed(P, poison(P, j, c.bytes, e), e)) == KL_OK &&
                (st = row(P, rep, name, (double)c.bytes, nccl_once, &c, check_pair, e)) == KL_OK)
                last_note(rep, "ncclSend/ncclRecv, host clock");
        }
    for (int d = 0; d < G && st == KL_OK; d++)
        if ((st = fill_source(P, d, 1, e)) == KL_OK)
            st = poison(P, d, P->bytes, e);
    st = agreed(P, st, e);
    /* nccl-tests' bus bandwidth: algbw · 2(n-1)/n, what each link carries in a ring. */
    double factor = 2.0 * (G - 1) / G;
    if (st != KL_OK || (st = row(P, rep, "allreduce", (double)P->bytes * factor, allreduce_once, P,
                                 check_sum, e)) != KL_OK)
        return st;
    struct kl_result *res = &rep->results[rep->count - 1];
    snprintf(text, sizeof text,
             "ncclAllReduce sum of %zu bytes of floats over n=%d devices, host clock; GB/s is "
             "the bus bandwidth algbw·2(n-1)/n, algbw %.1f GB/s",
             P->bytes, G, res->median_s > 0 ? P->bytes / res->median_s * 1e-9 : 0.0);
    last_note(rep, text);
    return KL_OK;
}

/* Buffers on every device here, peer access where the hardware has it, the patterns written. */
static enum kl_status prepare(struct p2p *P, struct kl_err *e)
{
    int G = P->env.G;
    enum kl_status st;
    P->src = calloc((size_t)G, sizeof *P->src);
    P->dst = calloc((size_t)G, sizeof *P->dst);
    P->peer = calloc((size_t)G * G, sizeof *P->peer);
    P->host = malloc(P->bytes);
    if (!P->src || !P->dst || !P->peer || !P->host)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for %zu bytes", P->bytes);
    for (int d = 0; d < G; d++) {
        struct kl_context *kl = ctx(P, d);
        if (!here(P, d))
            continue;
        if ((st = kl_device_fits(kl, 2.0 * P->bytes, "the copies' two buffers", e)) != KL_OK ||
            (st = kl->ops->alloc(kl->dev, P->bytes, &P->src[d], e)) != KL_OK ||
            (st = kl->ops->alloc(kl->dev, P->bytes, &P->dst[d], e)) != KL_OK ||
            (st = fill_source(P, d, 0, e)) != KL_OK)
            return st;
        for (int j = 0; j < G; j++)
            if (here(P, j) && (st = P->env.ops->enable_peer(kl->dev, ctx(P, j)->dev,
                                                            &P->peer[d * G + j], e)) != KL_OK)
                return st;
    }
    return KL_OK;
}

/* The report's header: device 0's facts (with ranks, this rank's), the links (collective). */
static void header(struct p2p *P, struct kl_report *rep)
{
    struct kl_context *kl = kl_menv_first(&P->env);
    rep->workload = "p2p";
    rep->type = KL_FLOAT;
    rep->protocol = P->req->protocol;
    rep->device = kl->info;
    rep->backend = kl->ops->name;
    kl_utc_now(rep->date, sizeof rep->date);
    kl_report_provenance(rep, kl);
    snprintf(rep->sizes, sizeof rep->sizes, "bytes=%zu devices=%d", P->bytes, P->env.G);
    snprintf(rep->size_json, sizeof rep->size_json, "\"bytes\": %zu, \"devices\": %d", P->bytes,
             P->env.G);
    snprintf(rep->reference, sizeof rep->reference,
             "every copy read back and compared word by word; the all-reduce's sums on 4096 "
             "sampled elements per device");
    char version[32] = "";
    if (P->env.nccl)
        kl_nccl_version_text(P->env.nccl, version, sizeof version);
    snprintf(rep->ceiling_note, sizeof rep->ceiling_note,
             "links between devices: no single device's roof applies%s%s%s", version[0] ? "; " : "",
             version,
             P->env.ranks && P->env.G > 1
                 ? "; between ranks a peer copy needs one process: the copy and latency rows "
                   "are each device's own, the nccl rows the links"
                 : "");
    kl_menv_note(&P->env, P->req->devices[0], rep->ceiling_note, sizeof rep->ceiling_note);
}

enum kl_status kl_p2p_measure(const struct kl_p2p_request *req, struct kl_report *rep,
                              struct kl_err *e)
{
    struct p2p P = {.req = req, .bytes = req->bytes ? req->bytes : KL_P2P_BYTES};
    enum kl_status st;
    if (P.bytes < KL_P2P_SMALL || P.bytes % 4 != 0)
        return kl_fail(e, KL_ERR_ARG, "the copies' size must be a multiple of 4 bytes, at least %d",
                       KL_P2P_SMALL);
    if (req->ranks)
        kl_stop_hold(1); /* the ranks stop together, at a run they agree on (ranked_once) */
    if ((st = kl_protocol_check(&req->protocol, e)) != KL_OK ||
        (st = kl_menv_open(&P.env, req->devices, req->ndevices, req->ranks, P.why_no_nccl,
                           sizeof P.why_no_nccl, e)) != KL_OK ||
        (st = agreed(&P, prepare(&P, e), e)) != KL_OK)
        goto done;
    header(&P, rep);
    if ((st = copies(&P, rep, 0, e)) == KL_OK && (st = copies(&P, rep, 1, e)) == KL_OK)
        st = collectives(&P, rep, e);
    kl_report_finish(rep);
done:
    if (req->ranks)
        kl_stop_hold(0);
    for (int d = 0; d < P.env.G && P.src && P.env.dev; d++) {
        if (!ctx(&P, d))
            continue;
        ctx(&P, d)->ops->release(P.src[d]);
        ctx(&P, d)->ops->release(P.dst[d]);
    }
    kl_menv_close(&P.env);
    free(P.src);
    free(P.dst);
    free(P.peer);
    free(P.host);
    return st;
}

#else /* no CUDA backend */

enum kl_status kl_p2p_measure(const struct kl_p2p_request *req, struct kl_report *rep,
                              struct kl_err *e)
{
    (void)req, (void)rep;
    return kl_fail(e, KL_ERR_UNSUPPORTED,
                   "kladder peak --p2p measures links between CUDA devices, and this kladder was "
                   "built without the CUDA backend (no CUDA toolkit found, or -DKLADDER_CUDA=OFF)");
}

#endif /* KLADDER_HAVE_CUDA */

/* The value of row "WHAT I>J" of rep (GB/s, or µs for latency); NaN where not timed. */
static double link_value(const struct kl_report *rep, const char *what, int i, int j)
{
    char name[64];
    snprintf(name, sizeof name, "%s %d>%d", what, i, j);
    for (int k = 0; k < rep->count; k++) {
        const struct kl_result *x = &rep->results[k];
        if (strcmp(x->rung, name) == 0 && kl_result_timed(x))
            return strcmp(what, "latency") == 0 ? x->median_s * 1e6 : x->gbps;
    }
    return NAN;
}

void kl_p2p_matrices(const struct kl_report *rep, int ndevices, FILE *out)
{
    static const char *const what[] = {"copy", "latency", "nccl"};
    static const char *const title[] = {
        "peer copies, GB/s (row: from, column: to; the diagonal a copy within the device)",
        "latency of an 8-byte copy, µs", "NCCL send/receive, GB/s"};
    for (int w = 0; w < 3; w++) {
        fprintf(out, "\n%s\n%8s", title[w], "");
        for (int j = 0; j < ndevices; j++)
            fprintf(out, " %9s%d", "to ", j);
        fputc('\n', out);
        for (int i = 0; i < ndevices; i++) {
            fprintf(out, "  from %d", i);
            for (int j = 0; j < ndevices; j++) {
                double v = link_value(rep, what[w], i, j);
                if (isfinite(v))
                    fprintf(out, " %10.4g", v);
                else
                    fprintf(out, " %10s", "-");
            }
            fputc('\n', out);
        }
    }
    fputc('\n', out);
}
