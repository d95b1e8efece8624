/*
 * Links between GPUs (multi/p2p.h). Each device holds a source buffer of a
 * pattern that names the device and the word, and a destination buffer.
 * Every row checks what arrived after its first, untimed run (the
 * destination poisoned before it), then times by the protocol: copies with
 * CUDA events on the issuing device's stream (one copy, one stream: events
 * see all of it), NCCL with the host clock around a run that ends with every
 * device involved synchronized (events on one device cannot see another's).
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

/* Writes device d's pattern (or its all-reduce terms) into its source buffer. */
static enum kl_status fill_source(struct p2p *P, int d, int terms, struct kl_err *e)
{
    size_t words = P->bytes / 4;
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
    kl_poison(KL_FLOAT, P->host, bytes / 4);
    return ctx(P, d)->ops->write(ctx(P, d)->dev, P->dst[d], P->host, bytes, e);
}

/* Checks that device j's destination holds the first bytes of device i's pattern. */
static void check_copy(struct p2p *P, int i, int j, size_t bytes, struct kl_result *res,
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
    if ((st = c->P->env.ops->make_current(a->kl->dev, e)) != KL_OK ||
        (st = c->P->env.ops->event_record(a->recv[0], a->comp, e)) != KL_OK ||
        (st = c->P->env.ops->copy_async(b->kl->dev, c->P->dst[c->j], 0, a->kl->dev, c->P->src[c->i],
                                        0, c->bytes, a->comp, e)) != KL_OK ||
        (st = c->P->env.ops->event_record(a->recv[1], a->comp, e)) != KL_OK)
        return st;
    return c->P->env.ops->event_elapsed(a->recv[0], a->recv[1], seconds, e);
}

/* One timed NCCL send/receive pair, i to j, host clock to both streams done. */
static enum kl_status nccl_once(void *arg, double *seconds, struct kl_err *e)
{
    struct copy *c = arg;
    const struct kl_menv *env = &c->P->env;
    const struct kl_nccl *n = env->nccl;
    struct kl_mdev *a = &env->dev[c->i], *b = &env->dev[c->j];
    double t0 = kl_now();
    enum kl_status st = kl_nccl_check(n, n->group_start(), "ncclGroupStart", e);
    if (st == KL_OK) {
        enum kl_status s1 = kl_nccl_check(
            n,
            n->send((const void *)(uintptr_t)c->P->env.ops->device_ptr(c->P->src[c->i]),
                    c->bytes / 4, KL_NCCL_FLOAT32, c->j, env->comms[c->i], a->comp),
            "ncclSend", e);
        enum kl_status s2 =
            s1 != KL_OK
                ? s1
                : kl_nccl_check(
                      n,
                      n->recv((void *)(uintptr_t)c->P->env.ops->device_ptr(c->P->dst[c->j]),
                              c->bytes / 4, KL_NCCL_FLOAT32, c->i, env->comms[c->j], b->comp),
                      "ncclRecv", e);
        st = kl_nccl_check(n, n->group_end(), "ncclGroupEnd", e);
        st = s2 != KL_OK ? s2 : st;
    }
    if (st == KL_OK && (st = c->P->env.ops->stream_sync(a->kl->dev, a->comp, e)) == KL_OK)
        st = c->P->env.ops->stream_sync(b->kl->dev, b->comp, e);
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
        s1 = kl_nccl_check(n,
                           n->all_reduce((const void *)(uintptr_t)P->env.ops->device_ptr(P->src[d]),
                                         (void *)(uintptr_t)P->env.ops->device_ptr(P->dst[d]),
                                         P->bytes / 4, KL_NCCL_FLOAT32, KL_NCCL_SUM,
                                         P->env.comms[d], P->env.dev[d].comp),
                           "ncclAllReduce", e);
    if (st == KL_OK)
        st = kl_nccl_check(n, n->group_end(), "ncclGroupEnd", e);
    st = s1 != KL_OK ? s1 : st;
    for (int d = 0; st == KL_OK && d < P->env.G; d++)
        st = P->env.ops->stream_sync(P->env.dev[d].kl->dev, P->env.dev[d].comp, e);
    *seconds = kl_now() - t0;
    return st;
}

/* A row: checked after one run, then timed; a failed check keeps no speed. */
static enum kl_status row(struct p2p *P, struct kl_report *rep, const char *name, double bytes,
                          kl_launch_fn fn, void *arg,
                          void (*check)(struct p2p *, void *, struct kl_result *, struct kl_err *),
                          struct kl_err *e)
{
    struct kl_stats stats;
    double dummy;
    struct kl_result *res = kl_report_add(rep, name, NULL);
    enum kl_status st;
    if (!res)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    res->bytes = bytes;
    if ((st = fn(arg, &dummy, e)) != KL_OK)
        return st;
    check(P, arg, res, e);
    if (res->status != KL_RESULT_VERIFIED)
        return KL_OK;
    kl_measure_forget();
    if ((st = kl_measure(NULL, &P->req->protocol, fn, arg, &stats, e)) != KL_OK) {
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
    for (int d = 0; d < P->env.G; d++) {
        if (ctx(P, d)->ops->read(ctx(P, d)->dev, P->dst[d], P->host, P->bytes, e) != KL_OK) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note, "reading the sum back failed: %.400s", e->msg);
            return;
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
                return;
            }
        }
    }
    res->status = KL_RESULT_VERIFIED;
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

/* The copy and latency matrices. */
static enum kl_status copies(struct p2p *P, struct kl_report *rep, int small, struct kl_err *e)
{
    int G = P->env.G;
    enum kl_status st = KL_OK;
    char name[64], text[256];
    for (int i = 0; i < G && st == KL_OK; i++)
        for (int j = 0; j < G && st == KL_OK; j++) {
            struct copy c = {P, i, j, small ? KL_P2P_SMALL : P->bytes};
            snprintf(name, sizeof name, "%s %d>%d", small ? "latency" : "copy", i, j);
            if ((st = poison(P, j, c.bytes, e)) != KL_OK ||
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
            if ((st = poison(P, j, c.bytes, e)) == KL_OK &&
                (st = row(P, rep, name, (double)c.bytes, nccl_once, &c, check_pair, e)) == KL_OK)
                last_note(rep, "ncclSend/ncclRecv, host clock");
        }
    for (int d = 0; d < G && st == KL_OK; d++)
        if ((st = fill_source(P, d, 1, e)) == KL_OK)
            st = poison(P, d, P->bytes, e);
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

/* Buffers on every device, peer access where the hardware has it, the patterns written. */
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
        if ((st = kl_device_fits(kl, 2.0 * P->bytes, "the copies' two buffers", e)) != KL_OK ||
            (st = kl->ops->alloc(kl->dev, P->bytes, &P->src[d], e)) != KL_OK ||
            (st = kl->ops->alloc(kl->dev, P->bytes, &P->dst[d], e)) != KL_OK ||
            (st = fill_source(P, d, 0, e)) != KL_OK)
            return st;
        for (int j = 0; j < G; j++)
            if ((st = P->env.ops->enable_peer(kl->dev, ctx(P, j)->dev, &P->peer[d * G + j], e)) !=
                KL_OK)
                return st;
    }
    return KL_OK;
}

static void header(struct p2p *P, struct kl_report *rep)
{
    struct kl_context *kl = ctx(P, 0);
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
    const char *bus[KL_MAX_DEVICES];
    char links[1024];
    for (int d = 0; d < P->env.G; d++)
        bus[d] = ctx(P, d)->info.pci_bus_id;
    kl_links_text(P->env.G, NULL, bus, -1, links, sizeof links);
    snprintf(rep->ceiling_note, sizeof rep->ceiling_note,
             "links between devices: no single device's roof applies%s%s%s%s",
             version[0] ? "; " : "", version, links[0] ? "; links: " : "", links);
}

enum kl_status kl_p2p_measure(const struct kl_p2p_request *req, struct kl_report *rep,
                              struct kl_err *e)
{
    struct p2p P = {.req = req, .bytes = req->bytes ? req->bytes : KL_P2P_BYTES};
    enum kl_status st;
    if (P.bytes < KL_P2P_SMALL || P.bytes % 4 != 0)
        return kl_fail(e, KL_ERR_ARG, "the copies' size must be a multiple of 4 bytes, at least %d",
                       KL_P2P_SMALL);
    if ((st = kl_protocol_check(&req->protocol, e)) != KL_OK ||
        (st = kl_menv_open(&P.env, req->devices, req->ndevices, NULL, P.why_no_nccl,
                           sizeof P.why_no_nccl, e)) != KL_OK ||
        (st = prepare(&P, e)) != KL_OK)
        goto done;
    header(&P, rep);
    if ((st = copies(&P, rep, 0, e)) == KL_OK && (st = copies(&P, rep, 1, e)) == KL_OK)
        st = collectives(&P, rep, e);
    kl_report_finish(rep);
done:
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
