/*
 * `kladder peak`: the device's ceilings, measured with simple kernels and
 * verified, like clpeak and BabelStream measure them, so that every other
 * rung can be reported as a fraction of what this device really does.
 */
#include "workloads/peak.h"
#include "workloads/peak_parts.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "formats/json.h"
#include "core/params.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/util.h"

const struct kl_protocol kl_peak_search_protocol = {1, 3, 0.01, 1000};

/* A row's rate: its operations per second where it counts any, else its bytes per second. */
static double row_rate(const struct kl_result *r)
{
    return (r->flops > 0 ? r->flops : r->bytes) / r->median_s;
}

/* ---- memory bandwidth ------------------------------------------------------ */

enum bw_kind { BW_COPY, BW_READ, BW_WRITE };
static const char *const bw_name[] = {"copy", "read", "write"};
static const char *const bw_file[] = {"opencl/peak/bw_copy.cl", "opencl/peak/bw_read.cl",
                                      "opencl/peak/bw_fill.cl"};
static const char *const bw_entry[] = {"bw_copy", "bw_read", "bw_fill"};

uint32_t kl_peak_hash(uint32_t x, uint32_t seed)
{
    x = (x * 0x9E3779B1u) ^ seed;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    return x;
}

/*
 * The buffers of the bandwidth rows. The source holds kl_peak_hash(i, seed), so
 * a copy's and a fill's results are both expect[]; the destination is
 * poisoned on the device by a fill with another seed, which differs from
 * expect[] in every word (kl_peak_hash is a bijection of its first argument's
 * mix with the seed), so a word not written cannot pass.
 */
struct bw_session {
    struct kl_context *kl;
    size_t words;       /* uint elements per buffer */
    uint32_t seed;
    uint32_t *expect;   /* kl_peak_hash(i, seed): the source, and every right result */
    uint32_t *back;     /* results read back (pinned host memory) */
    uint32_t expect_sum; /* sum of expect mod 2^32: the read kernel's result */
    struct kl_buf *dsrc, *ddst, *dpartial, *pinned;
    size_t partial_cap; /* uints in dpartial */
    struct kl_launch poison; /* the fill that poisons ddst */
};

static void bw_free(struct bw_session *s)
{
    if (s->kl) {
        s->kl->ops->release(s->dsrc);
        s->kl->ops->release(s->ddst);
        s->kl->ops->release(s->dpartial);
        s->kl->ops->release(s->pinned);
    }
    free(s->expect);
}

static enum kl_status bw_init(struct bw_session *s, struct kl_context *kl, size_t bytes,
                              unsigned long long seed)
{
    struct kl_err *e = &kl->err;
    enum kl_status st;
    double build_s;
    void *host = NULL;
    memset(s, 0, sizeof *s);
    s->kl = kl;
    s->seed = (uint32_t)seed;
    s->words = bytes / 4 / 1024 * 1024; /* whole float16 vectors for every EPI tried */
    s->partial_cap = s->words;          /* at most one work-item per word */
    if (!(s->expect = malloc(s->words * 4)))
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for %zu-byte buffers", bytes);
    for (size_t i = 0; i < s->words; i++) {
        s->expect[i] = kl_peak_hash((uint32_t)i, s->seed);
        s->expect_sum += s->expect[i];
    }
    if ((st = kl->ops->alloc(kl->dev, s->words * 4, &s->dsrc, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, s->words * 4, &s->ddst, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, s->partial_cap * 4, &s->dpartial, e)) != KL_OK ||
        (st = kl->ops->alloc_pinned(kl->dev, s->words * 4, &s->pinned, &host, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, s->dsrc, s->expect, s->words * 4, e)) != KL_OK)
        return st;
    s->back = host;
    /* The poisoning fill: one uint4 per work-item, another seed. */
    struct kl_launch *l = &s->poison;
    *l = (struct kl_launch){.kl = kl, .dims = 1, .nargs = 3};
    l->local[0] = 64;
    l->global[0] = s->words / 4;
    l->local[1] = l->local[2] = l->global[1] = l->global[2] = 1;
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->ddst}};
    l->args[1] = (struct kl_arg){KL_ARG_INT, {.i = (int)(s->words / 4)}};
    l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)~s->seed}};
    return kl_kernel_get(kl, "opencl/peak/bw_fill.cl", "bw_fill", "-DVEC=4 -DEPI=1", &l->kernel,
                         &build_s);
}

/* Checks the result of the last launch of kind k; 1 if right, else a note. */
static enum kl_status bw_verify(struct bw_session *s, enum bw_kind k, size_t groups_items,
                                int *ok, char *note, size_t n)
{
    struct kl_context *kl = s->kl;
    enum kl_status st;
    *ok = 1;
    if (k == BW_READ) {
        uint32_t sum = 0;
        if ((st = kl->ops->read(kl->dev, s->dpartial, s->back, groups_items * 4, &kl->err)) !=
            KL_OK)
            return st;
        for (size_t i = 0; i < groups_items; i++)
            sum += s->back[i];
        if (sum != s->expect_sum) {
            *ok = 0;
            snprintf(note, n, "partial sums add up to 0x%08x, the data to 0x%08x", sum,
                     s->expect_sum);
        }
        return KL_OK;
    }
    if ((st = kl->ops->read(kl->dev, s->ddst, s->back, s->words * 4, &kl->err)) != KL_OK)
        return st;
    if (memcmp(s->back, s->expect, s->words * 4) == 0)
        return KL_OK;
    *ok = 0;
    for (size_t i = 0; i < s->words; i++)
        if (s->back[i] != s->expect[i]) {
            snprintf(note, n, "word %zu: got 0x%08x, want 0x%08x", i, s->back[i], s->expect[i]);
            break;
        }
    return KL_OK;
}

/*
 * A configuration: vector width, elements per work-item, work-group size,
 * and (the read kernel) a persistent grid of as many work-items as the
 * device holds at once, each looping over chunks of EPI elements.
 */
struct bw_config {
    int vec, epi;
    size_t wg;
    int persistent;
    int nv_load; /* read, uint4: NVIDIA's read-only loads with an L2 prefetch hint (PTX) */
};

/* The kernel's build options for configuration c. */
static void bw_options(struct bw_config c, char *out, size_t n)
{
    snprintf(out, n, "-DVEC=%d -DEPI=%d%s", c.vec, c.epi, c.nv_load ? " -DNV_LOAD" : "");
}

/*
 * Builds and times one configuration. With verify, the destination is first
 * poisoned, one launch checked (a failure is res FAILED, not timed), then
 * the configuration timed; without, only timed (a candidate of a search,
 * whose best is measured again verified).
 */
static enum kl_status bw_run(struct bw_session *s, enum bw_kind k, struct bw_config c,
                             const struct kl_protocol *proto, int verify, struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    struct kl_launch l = {.kl = kl, .dims = 1};
    struct kl_stats stats;
    enum kl_status st;
    double dummy;
    int ok;
    int n = (int)(s->words / (size_t)c.vec), chunks = 1;
    size_t items = ((size_t)n + (size_t)c.epi - 1) / (size_t)c.epi;

    if (c.persistent) { /* whole waves of the most the device holds, each item looping */
        size_t resident = kl->info.threads_per_cu ? kl->info.threads_per_cu : 2048;
        items = (size_t)kl->info.compute_units * resident;
        chunks = (int)(((size_t)n + items * (size_t)c.epi - 1) / (items * (size_t)c.epi));
    }
    l.local[0] = c.wg;
    l.global[0] = kl_round_up(items, c.wg);
    l.local[1] = l.local[2] = l.global[1] = l.global[2] = 1;
    bw_options(c, res->options, sizeof res->options);
    snprintf(res->config, sizeof res->config, "uint%d EPI=%d WG=%zu%s%s", c.vec, c.epi, c.wg,
             c.persistent ? " persistent" : "", c.nv_load ? " ld.nc.L2::256B" : "");
    if (c.vec == 1)
        snprintf(res->config, sizeof res->config, "uint EPI=%d WG=%zu%s", c.epi, c.wg,
                 c.persistent ? " persistent" : "");
    if (l.global[0] > s->partial_cap) /* a persistent grid on a small --bytes: passed over */
        return kl_fail(&kl->err, KL_ERR_UNSUPPORTED,
                       "%s %s: its %zu work-items outnumber the buffer's %zu words (a larger "
                       "--bytes runs it)",
                       bw_name[k], res->config, l.global[0], s->partial_cap);
    if ((st = kl_launch_check(&l, bw_name[k], &kl->err)) != KL_OK ||
        (st = kl_kernel_get(kl, bw_file[k], bw_entry[k], res->options, &l.kernel, &res->build_s)) !=
            KL_OK ||
        (st = kl_launch_check(&l, bw_name[k], &kl->err)) != KL_OK)
        return st;
    l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = k == BW_WRITE ? s->ddst : s->dsrc}};
    l.nargs = 3;
    switch (k) {
    case BW_COPY:
        l.args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->ddst}};
        l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = n}};
        res->bytes = 2.0 * (double)n * c.vec * 4;
        break;
    case BW_READ:
        l.args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dpartial}};
        l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = n}};
        l.args[3] = (struct kl_arg){KL_ARG_INT, {.i = chunks}};
        l.nargs = 4;
        res->bytes = (double)n * c.vec * 4 + (double)l.global[0] * 4;
        break;
    case BW_WRITE:
        l.args[1] = (struct kl_arg){KL_ARG_INT, {.i = n}};
        l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)s->seed}};
        res->bytes = (double)n * c.vec * 4;
        break;
    }
    if (verify) {
        if ((k != BW_READ && (st = kl_launch_timed(&s->poison, &dummy, &kl->err)) != KL_OK) ||
            (st = kl_launch_timed(&l, &dummy, &kl->err)) != KL_OK ||
            (st = bw_verify(s, k, l.global[0], &ok, res->note, sizeof res->note)) != KL_OK)
            return st;
        if (!ok) {
            res->status = KL_RESULT_FAILED;
            return KL_OK;
        }
    }
    if ((st = kl_measure(kl, proto, kl_launch_timed, &l, &stats, &kl->err)) != KL_OK)
        return st;
    res->status = verify ? KL_RESULT_VERIFIED : KL_RESULT_MEASURED;
    kl_result_set_stats(res, &stats);
    snprintf(res->note, sizeof res->note, "%s",
             !verify        ? "a candidate, timed unchecked"
             : k == BW_READ ? "verified: sum of all words"
             : k == BW_COPY ? "verified: every word copied"
                            : "verified: every word written");
    return KL_OK;
}

/*
 * The search space of kind k at width vec: EPI x work-group size; for reads
 * on a GPU also a persistent grid, and at width 4 on NVIDIA's GPUs loads
 * through PTX with an L2 prefetch hint. The brief space holds what the full
 * one picks on the devices measured (docs/RESULTS.md): EPI 1 on GPUs, 4 or 8
 * on CPUs; 256 work-items a group, and on CPUs 1024 too (fewer groups for
 * PoCL's threads to schedule).
 */
static int bw_space(enum bw_kind k, int vec, const struct kl_peak_request *req,
                    const struct kl_context *kl, struct bw_config *out)
{
    static const int epis_all[] = {1, 2, 4, 8, 16}, epis_quick[] = {1, 3}, epis_brief[] = {1, 4, 8};
    static const size_t wgs_all[] = {64, 128, 256, 512, 1024}, wgs_quick[] = {64},
                        wgs_brief[] = {256, 1024};
    const int *epis = req->quick ? epis_quick : req->brief ? epis_brief : epis_all;
    const size_t *wgs = req->quick ? wgs_quick : req->brief ? wgs_brief : wgs_all;
    int n_epi = req->quick ? 2 : req->brief ? 3 : req->wide ? 5 : 4;
    int n_wg = req->quick ? 1 : req->brief ? (kl->info.is_gpu ? 1 : 2) : 5;
    int n = 0, grids = k == BW_READ && kl->info.is_gpu && !req->quick ? 2 : 1;
    int loads = grids == 2 && vec == 4 && kl_contains_nocase(kl->info.vendor, "nvidia") ? 2 : 1;
    for (int i = 0; i < n_epi; i++)
        for (int j = 0; j < n_wg; j++)
            for (int p = 0; p < grids * loads; p++) {
                size_t wg = wgs[j] < kl->info.max_wg ? wgs[j] : kl->info.max_wg;
                out[n++] = (struct bw_config){vec, epis[i], wg, p % 2, p / 2};
            }
    return n;
}

/* bw_run as a kl_peak_rate_fn, for kl_peak_final: one kind and configuration, verified. */
struct bw_final {
    struct bw_session *s;
    enum bw_kind k;
    struct bw_config c;
};
static enum kl_status bw_final_run(struct kl_context *kl, const void *cfg, int quick,
                                   const struct kl_protocol *proto, struct kl_result *res)
{
    const struct bw_final *f = cfg;
    (void)kl, (void)quick;
    return bw_run(f->s, f->k, f->c, proto, 1, res);
}

/*
 * For kind k, times every configuration of the spaces of the vector widths
 * in mask (bit w for width w) with the light protocol (each verified too
 * when quick), then verifies the fastest and measures it with the full
 * protocol (kl_peak_final) into a new report row: "copy_v4" for one width,
 * "copy" for several. A check that fails makes the row failed, with the
 * configuration that failed.
 */
static enum kl_status bw_search(struct bw_session *s, enum bw_kind k, unsigned mask, int quick,
                                const struct kl_peak_request *req, struct kl_report *rep,
                                struct kl_result **best_row)
{
    struct bw_config space[160], best = {0, 0, 0, 0, 0};
    struct kl_context *kl = s->kl;
    int n = 0, widths = 0;
    double best_rate = 0;
    char name[32];
    enum kl_status st;

    for (int vec = 1; vec <= 16; vec *= 2)
        if (mask & (unsigned)vec) {
            snprintf(name, sizeof name, "%s_v%d", bw_name[k], vec);
            n += bw_space(k, vec, req, kl, space + n); /* at most 100 a width: brief's 3 fit */
            widths++;
        }
    if (widths > 1)
        snprintf(name, sizeof name, "%s", bw_name[k]);
    for (int i = 0; i < n; i++) {
        struct kl_result trial;
        memset(&trial, 0, sizeof trial);
        st = bw_run(s, k, space[i], &kl_peak_search_protocol, quick, &trial);
        if (st == KL_ERR_UNSUPPORTED || (st == KL_ERR_BUILD && space[i].nv_load))
            continue; /* this work-group does not fit, or the compiler takes no PTX: the next */
        if (st != KL_OK)
            return st;
        if (trial.status == KL_RESULT_FAILED) {
            struct kl_result *bad = kl_report_add(rep, name, "failed candidate");
            if (!bad)
                return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
            *bad = trial;
            snprintf(bad->rung, sizeof bad->rung, "%s", name);
            return KL_OK;
        }
        if (!best.vec || row_rate(&trial) > best_rate) {
            best = space[i];
            best_rate = row_rate(&trial);
        }
    }
    if (!best.vec)
        return kl_fail(&kl->err, KL_ERR_UNSUPPORTED, "no work-group size fits %s", name);
    struct kl_result *res = kl_report_add(rep, name, NULL);
    const struct bw_final final = {s, k, best};
    if (!res)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if ((st = kl_peak_final(kl, bw_final_run, &final, quick, req, res)) != KL_OK)
        return st;
    *best_row = res;
    return KL_OK;
}

/* Builds every bandwidth kernel the widths of mask will try, at once where that is faster. */
static void bw_prefetch(struct kl_context *kl, const struct kl_peak_request *req, unsigned mask)
{
    struct kl_kernel_want want[3 * 5 * 5 * 2];
    struct bw_config space[128];
    int n = 0;
    for (int k = BW_COPY; k <= BW_WRITE; k++)
        for (int vec = 1; vec <= 16; vec *= 2) {
            if (!(mask & (unsigned)vec))
                continue;
            int m = bw_space((enum bw_kind)k, vec, req, kl, space);
            for (int i = 0; i < m; i++) {
                if (space[i].wg != space[0].wg || space[i].persistent)
                    continue; /* one build per EPI and kind of load */
                want[n] = (struct kl_kernel_want){bw_file[k], bw_entry[k], ""};
                bw_options(space[i], want[n].options, sizeof want[n].options);
                n++;
            }
        }
    kl_kernel_prefetch(kl, want, n);
}

/* ---- arithmetic rate --------------------------------------------------------- */

#define FMA_WG 256
#define FMA_MAX_ITERS 8192

/* Host replica of flops.cl for one work-item (see the kernel's comment). */
static double fma_expected(enum kl_type t, int gid, int vec, int chains, int iters, double a,
                           double b)
{
    float fs = 0.0f;
    double ds = 0.0;
    uint32_t us = 0;
    for (int k = 0; k < vec; k++) {
        float fv = 0.0f;
        double dv = 0.0;
        uint32_t uv = 0;
        for (int c = 0; c < chains; c++) {
            int init = (gid + 3 * c + k) % 13;
            /* v = x0; v += x1; ...: component k of the chain sum, in chain order. */
            if (t == KL_FLOAT) {
                float x = (float)init * 0.0625f;
                for (int i = 0; i < iters; i++)
                    x = fmaf(x, (float)a, (float)b);
                fv = c ? fv + x : x;
            } else if (t == KL_DOUBLE) {
                double x = (double)init * 0.0625;
                for (int i = 0; i < iters; i++)
                    x = fma(x, a, b);
                dv = c ? dv + x : x;
            } else {
                uint32_t x = (uint32_t)init;
                for (int i = 0; i < iters; i++)
                    x = x * (uint32_t)(int32_t)a + (uint32_t)(int32_t)b;
                uv = c ? uv + x : x;
            }
        }
        /* s = v.s0; s += v.s1; ...: components left to right. */
        fs = k ? fs + fv : fv;
        ds = k ? ds + dv : dv;
        us = k ? us + uv : uv;
    }
    return t == KL_FLOAT ? (double)fs : t == KL_DOUBLE ? ds : (double)(int32_t)us;
}

struct fma_run {
    enum kl_type type;
    int vec, chains;
};

/* flops.cl's build options for f. */
static void fma_options(const struct fma_run *f, char *out, size_t n)
{
    kl_params_options(NULL, NULL, f->type, out, n);
    size_t used = strlen(out);
    snprintf(out + used, n - used, " -DVEC=%d -DCHAINS=%d", f->vec, f->chains);
}

/*
 * Builds flops.cl for f and doubles its loop length (an argument: no
 * rebuild) until one launch of l takes ~20 ms (once only when quick), so
 * that ramp-up, tail and launch overhead vanish; *iters is the length chosen.
 */
static enum kl_status fma_calibrate(struct kl_context *kl, const struct fma_run *f, int quick,
                                    struct kl_launch *l, int *iters, struct kl_result *res)
{
    double t1 = 0;
    enum kl_status st;
    fma_options(f, res->options, sizeof res->options);
    if ((st = kl_kernel_get(kl, "opencl/peak/flops.cl", "flops", res->options, &l->kernel,
                            &res->build_s)) != KL_OK ||
        (st = kl_launch_check(l, "flops", &kl->err)) != KL_OK)
        return st;
    for (;;) {
        l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = *iters}};
        if ((st = kl_launch_timed(l, &t1, &kl->err)) != KL_OK)
            return st;
        if (quick || t1 >= 0.01 || *iters >= FMA_MAX_ITERS)
            return KL_OK;
        while (*iters < FMA_MAX_ITERS && t1 < 0.02)
            *iters *= 2, t1 *= 2;
    }
}

/*
 * Checks sampled work-items of out (first, last, and some spread between)
 * bit for bit against the host's replica; res FAILED with the first that
 * differs, else VERIFIED with what was checked.
 */
static enum kl_status fma_verify(struct kl_context *kl, const struct fma_run *f, struct kl_buf *out,
                                 size_t global, int iters, double a, double b,
                                 struct kl_result *res)
{
    const int samples = 16;
    size_t es = kl_type_size(f->type);
    void *host = malloc(global * es);
    enum kl_status st;
    if (!host)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if ((st = kl->ops->read(kl->dev, out, host, global * es, &kl->err)) != KL_OK) {
        free(host);
        return st;
    }
    res->status = KL_RESULT_VERIFIED;
    snprintf(res->note, sizeof res->note,
             "verified: %d work-items' chains reproduced bit for bit; %zu work-items, %d "
             "iterations",
             samples, global, iters);
    for (int i = 0; i < samples; i++) {
        int gid = (int)(i == samples - 1 ? global - 1 : global / (samples - 1) * (size_t)i);
        double want = fma_expected(f->type, gid, f->vec, f->chains, iters, a, b);
        double got = f->type == KL_FLOAT    ? ((float *)host)[gid]
                     : f->type == KL_DOUBLE ? ((double *)host)[gid]
                                            : ((int32_t *)host)[gid];
        if (got != want) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note, "work-item %d: got %.17g, want %.17g", gid, got,
                     want);
            break;
        }
    }
    free(host);
    return KL_OK;
}

/*
 * One FMA configuration: a fixed grid of whole waves (a multiple of 2048
 * work-items per compute unit, the most a GPU multiprocessor holds), the
 * loop length calibrated, sampled work-items checked bit for bit against
 * the host, then the configuration timed by proto.
 */
static enum kl_status fma_measure(struct kl_context *kl, const void *cfg, int quick,
                                  const struct kl_protocol *proto, struct kl_result *res)
{
    const struct fma_run f = *(const struct fma_run *)cfg;
    struct kl_launch l = {.kl = kl, .dims = 1, .nargs = 4};
    struct kl_stats stats;
    struct kl_buf *out = NULL;
    enum kl_status st;
    size_t wg = quick ? 64 : FMA_WG;
    wg = wg < kl->info.max_wg ? wg : kl->info.max_wg;
    size_t global = quick             ? wg /* one work-group: small enough for a simulator */
                    : kl->info.is_gpu ? (size_t)kl->info.compute_units * 2048 * 4
                                      : (size_t)kl->info.compute_units * wg * 16;
    int iters = 256;
    /* a < 1 and b small keep every chain finite and normal (it converges to b/(1-a)). */
    double a = f.type == KL_INT ? 3.0 : 0.999, b = f.type == KL_INT ? 1.0 : 0.001;

    global = kl_round_up(global, wg);
    l.local[0] = wg;
    l.global[0] = global;
    l.local[1] = l.local[2] = l.global[1] = l.global[2] = 1;
    snprintf(res->config, sizeof res->config, "VEC=%d CHAINS=%d", f.vec, f.chains);
    if ((st = kl->ops->alloc(kl->dev, global * kl_type_size(f.type), &out, &kl->err)) != KL_OK)
        return st;
    l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = out}};
    if (f.type == KL_INT) {
        l.args[1] = (struct kl_arg){KL_ARG_INT, {.i = (int)a}};
        l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)b}};
    } else {
        l.args[1] = kl_arg_scalar(f.type, a);
        l.args[2] = kl_arg_scalar(f.type, b);
    }
    if ((st = fma_calibrate(kl, &f, quick, &l, &iters, res)) == KL_OK &&
        (st = fma_verify(kl, &f, out, global, iters, a, b, res)) == KL_OK &&
        res->status == KL_RESULT_VERIFIED &&
        (st = kl_measure(kl, proto, kl_launch_timed, &l, &stats, &kl->err)) == KL_OK) {
        res->flops = 2.0 * f.vec * f.chains * iters * (double)global;
        kl_result_set_stats(res, &stats);
    }
    kl->ops->release(out);
    return st;
}

enum kl_status kl_peak_skip(struct kl_context *kl, struct kl_report *rep, const char *name,
                            const char *why_fmt, ...)
{
    struct kl_result *res = kl_report_add(rep, name, NULL);
    va_list ap;
    if (!res)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    res->status = KL_RESULT_SKIPPED;
    va_start(ap, why_fmt);
    vsnprintf(res->note, sizeof res->note, why_fmt, ap);
    va_end(ap);
    return KL_OK;
}

enum kl_status kl_peak_final(struct kl_context *kl, kl_peak_rate_fn measure, const void *cfg,
                             int quick, const struct kl_peak_request *req, struct kl_result *res)
{
    const struct kl_result blank = *res; /* the row as added: its name */
    const int runs = quick ? 1 : KL_PEAK_FINALS;
    double rates[KL_PEAK_FINALS]; /* G a second */
    for (int i = 0; i < runs; i++) {
        struct kl_result run = blank;
        enum kl_status st = measure(kl, cfg, quick, &req->protocol, &run);
        if (st != KL_OK)
            return st;
        rates[i] = row_rate(&run) * 1e-9;
        int failed = run.status == KL_RESULT_FAILED;
        if (i == 0 || failed || row_rate(&run) > row_rate(res)) {
            if (i > 0)
                free(res->samples); /* the run it replaces (none keeps samples today) */
            *res = run;
        } else {
            free(run.samples);
        }
        if (failed)
            return KL_OK;
    }
    if (runs > 1 && res->status == KL_RESULT_VERIFIED) { /* the row says what it was chosen from */
        size_t used = strlen(res->note);
        snprintf(res->note + used, sizeof res->note - used, "; the fastest of %d runs (", runs);
        for (int i = 0; i < runs; i++) {
            used = strlen(res->note);
            snprintf(res->note + used, sizeof res->note - used, "%s%.6g", i ? ", " : "", rates[i]);
        }
        used = strlen(res->note);
        snprintf(res->note + used, sizeof res->note - used, " %s)",
                 res->flops > 0 ? "GFLOP/s" : "GB/s");
    }
    return KL_OK;
}

enum kl_status kl_peak_rate_search(struct kl_context *kl, const char *name, kl_peak_rate_fn measure,
                                   const void *cfgs, size_t size, int n, int quick,
                                   const struct kl_peak_request *req, struct kl_report *rep,
                                   double *gflops)
{
    const char *cfg = cfgs, *best = n == 1 ? cfg : NULL;
    double best_rate = 0;
    char why[256] = "";
    enum kl_status st;
    *gflops = 0;
    for (int i = 0; i < n && n > 1; i++) { /* one configuration needs no search */
        struct kl_result trial;
        memset(&trial, 0, sizeof trial);
        st = measure(kl, cfg + (size_t)i * size, quick, &kl_peak_search_protocol, &trial);
        if (st == KL_ERR_UNSUPPORTED) { /* cannot run here (kl->err says why): the next */
            snprintf(why, sizeof why, "%.255s", kl->err.msg);
            continue;
        }
        if (st != KL_OK)
            return st;
        if (trial.status == KL_RESULT_FAILED) {
            struct kl_result *bad = kl_report_add(rep, name, NULL);
            if (!bad)
                return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
            *bad = trial;
            snprintf(bad->rung, sizeof bad->rung, "%s", name);
            return KL_OK;
        }
        if (!best || row_rate(&trial) > best_rate) {
            best_rate = row_rate(&trial);
            best = cfg + (size_t)i * size;
        }
    }
    if (!best)
        return kl_peak_skip(kl, rep, name, "%s", why);
    struct kl_result *res = kl_report_add(rep, name, NULL);
    if (!res)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    st = kl_peak_final(kl, measure, best, quick, req, res);
    if (st == KL_ERR_UNSUPPORTED) { /* the one configuration, found unable to run */
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->note, sizeof res->note, "%.511s", kl->err.msg);
        return KL_OK;
    }
    if (st != KL_OK)
        return st;
    *gflops = res->status == KL_RESULT_VERIFIED ? row_rate(res) * 1e-9 : 0;
    return KL_OK;
}

/*
 * The configurations the FMA search tries (VEC, CHAINS): n of them into runs
 * of type t; a wide search adds five more. The brief space holds what the
 * full one picks on the devices measured: 16x4 and 1x16 on the H100, 8x8,
 * 4x8 and 16x4 on a CPU.
 */
static int fma_space(enum kl_type t, const struct kl_peak_request *req, struct fma_run *runs)
{
    static const struct fma_shape {
        int vec, chains;
    } all[] = {{1, 8},  {1, 16}, {2, 8}, {4, 4},  {4, 8}, {4, 16}, {8, 8},
               {16, 4}, {16, 8}, {2, 4}, {2, 16}, {8, 4}, {8, 16}, {16, 16}},
      some[] = {{1, 8}, {4, 4}}, brief[] = {{1, 16}, {4, 8}, {8, 8}, {16, 4}};
    const struct fma_shape *space = req->quick ? some : req->brief ? brief : all;
    int n = req->quick ? 2 : req->brief ? 4 : req->wide ? 14 : 9;
    for (int i = 0; i < n; i++)
        runs[i] = (struct fma_run){t, space[i].vec, space[i].chains};
    return n;
}

/* Builds every FMA kernel the searches of FP32, FP64 (where the device has it) and INT32 try. */
static void fma_prefetch(struct kl_context *kl, const struct kl_peak_request *req)
{
    struct kl_kernel_want want[3 * 14];
    struct fma_run runs[14];
    int n = 0;
    for (int t = 0; t < 3; t++) {
        enum kl_type type = t == 0 ? KL_FLOAT : t == 1 ? KL_DOUBLE : KL_INT;
        if (type == KL_DOUBLE && !kl->info.fp64)
            continue;
        for (int i = 0, m = fma_space(type, req, runs); i < m; i++, n++) {
            want[n] = (struct kl_kernel_want){"opencl/peak/flops.cl", "flops", ""};
            fma_options(&runs[i], want[n].options, sizeof want[n].options);
        }
    }
    kl_kernel_prefetch(kl, want, n);
}

/* Tries vector widths and chain counts for one type; the best is a report row. */
static enum kl_status fma_search(struct kl_context *kl, enum kl_type t, int quick,
                                 const struct kl_peak_request *req, struct kl_report *rep,
                                 double *gflops)
{
    struct fma_run runs[14];
    int n = fma_space(t, req, runs);
    char name[32];
    snprintf(name, sizeof name, "fma_%s", t == KL_FLOAT ? "f32" : t == KL_DOUBLE ? "f64" : "i32");
    return kl_peak_rate_search(kl, name, fma_measure, runs, sizeof *runs, n, quick, req, rep,
                               gflops);
}

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

enum xfer_kind { X_WRITE, X_READ, X_MAP, X_UNMAP };

struct xfer {
    struct kl_context *kl;
    enum xfer_kind kind;
    struct kl_buf *dev;
    void *host;
    size_t bytes;
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
    res->bytes = (double)x->bytes;
    snprintf(res->config, sizeof res->config, "%s", config);
    snprintf(res->note, sizeof res->note,
             "host clock around the blocking call; a write and read-back was checked byte "
             "for byte first");
    *gbps = (double)x->bytes / s.median * 1e-9;
    return KL_OK;
}

static enum kl_status measure_transfers(struct kl_context *kl, size_t bytes,
                                        const struct kl_peak_request *req, struct kl_report *rep,
                                        struct kl_ceilings *c)
{
    struct xfer x = {.kl = kl, .bytes = bytes};
    struct kl_buf *pinned = NULL;
    /* Page-aligned, as a careful application's buffers would be. */
    unsigned char *pageable = aligned_alloc(4096, kl_round_up(bytes, 4096)), *back = malloc(bytes);
    void *pinned_host = NULL;
    struct kl_rng rng;
    enum kl_status st;
    struct kl_protocol p = req->protocol;
    p.warmup = p.warmup < 1 ? 1 : p.warmup;
    if (!pageable || !back) {
        st = kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
        goto done;
    }
    kl_rng_seed(&rng, req->seed);
    for (size_t i = 0; i < bytes; i++)
        pageable[i] = (unsigned char)kl_rng_next(&rng);
    if ((st = kl->ops->alloc(kl->dev, bytes, &x.dev, &kl->err)) != KL_OK ||
        (st = kl->ops->alloc_pinned(kl->dev, bytes, &pinned, &pinned_host, &kl->err)) != KL_OK)
        goto done;
    /* One round trip checked byte for byte, so the timed copies move real data. */
    if ((st = kl->ops->write(kl->dev, x.dev, pageable, bytes, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, x.dev, back, bytes, &kl->err)) != KL_OK)
        goto done;
    if (memcmp(pageable, back, bytes) != 0) {
        struct kl_result *bad = kl_report_add(rep, "write_pageable", NULL);
        if (bad) {
            bad->status = KL_RESULT_FAILED;
            snprintf(bad->note, sizeof bad->note,
                     "a write then read of %zu bytes came back "
                     "different",
                     bytes);
        }
        goto done;
    }
    memcpy(pinned_host, pageable, bytes);
    x.host = pageable;
    x.kind = X_WRITE;
    if ((st = xfer_row(&x, "write_pageable", "malloc'd host memory", &p, rep, &c->h2d_pageable)))
        goto done;
    x.kind = X_READ;
    if ((st = xfer_row(&x, "read_pageable", "malloc'd host memory", &p, rep, &c->d2h_pageable)))
        goto done;
    x.host = pinned_host;
    x.kind = X_WRITE;
    if ((st = xfer_row(&x, "write_pinned", kl->ops->pinned_what, &p, rep, &c->h2d_pinned)))
        goto done;
    x.kind = X_READ;
    if ((st = xfer_row(&x, "read_pinned", kl->ops->pinned_what, &p, rep, &c->d2h_pinned)))
        goto done;
    x.kind = X_MAP;
    if ((st = xfer_row(&x, "map_read", "map a device buffer for reading", &p, rep, &c->map_gbps)))
        goto done;
    x.kind = X_UNMAP;
    if ((st = xfer_row(&x, "unmap_write", "unmap a device buffer mapped for writing", &p, rep,
                       &c->unmap_gbps)))
        goto done;
    /* Far faster than any real copy: the "mapping" moved no data (shared memory). */
    double real = c->h2d_pinned > c->d2h_pinned ? c->h2d_pinned : c->d2h_pinned;
    for (int i = rep->count - 2; i < rep->count; i++)
        if (rep->results[i].bytes / rep->results[i].median_s * 1e-9 > 5 * real)
            snprintf(rep->results[i].note, sizeof rep->results[i].note,
                     "zero-copy: over 5x the pinned transfer rate, so no data moved");
done:
    kl->ops->release(x.dev);
    kl->ops->release(pinned);
    free(pageable);
    free(back);
    return st;
}

/* ---- the whole measurement ------------------------------------------------------ */

static size_t default_bytes(const struct kl_device_info *d)
{
    /* Far past every cache (the H100's L2 is 50 MB) and long enough per launch that its
     * start-up does not count; within allocation limits. CPUs: smaller, so the host-side
     * verification stays quick (their caches may hold part of it: --bytes raises it). */
    size_t want = d->is_gpu ? (size_t)1 << 30 : (size_t)64 << 20;
    size_t cap = (size_t)(d->max_alloc / 2) < (size_t)(d->global_mem / 8)
                     ? (size_t)(d->max_alloc / 2)
                     : (size_t)(d->global_mem / 8);
    return want < cap ? want : cap;
}

static void ceiling_cfg(char *out, size_t n, const struct kl_result *r)
{
    snprintf(out, n, "%s", r ? r->config : "");
}

enum kl_status kl_peak_measure(struct kl_context *kl, const struct kl_peak_request *req,
                               struct kl_report *rep, struct kl_ceilings *c)
{
    static const int widths[] = {1, 2, 4, 8, 16};
    struct bw_session s;
    size_t bytes = req->bytes ? req->bytes : default_bytes(&kl->info);
    enum kl_status st;

    memset(c, 0, sizeof *c);
    if ((st = kl_protocol_check(&req->protocol, &kl->err)) != KL_OK)
        return st;
    if (req->vec_mask & ~0x1fu || (req->vec_mask & ~(1u | 2u | 4u | 8u | 16u)))
        return kl_fail(&kl->err, KL_ERR_ARG, "vector widths are 1, 2, 4, 8 and 16");
    if (bytes < 65536 || bytes > kl->info.max_alloc || bytes / 4 > (size_t)INT32_MAX / 2)
        return kl_fail(&kl->err, KL_ERR_ARG,
                       "--bytes %zu: buffers must be between 64 KiB and the device's largest "
                       "allocation (%llu bytes), and under 4 GiB",
                       bytes, (unsigned long long)kl->info.max_alloc);

    rep->workload = "peak";
    snprintf(rep->sizes, sizeof rep->sizes, "buffers of %.1f MiB", bytes / 1048576.0);
    snprintf(rep->size_json, sizeof rep->size_json, "\"bytes\": %zu, \"quick\": %s, \"brief\": %s",
             bytes, req->quick ? "true" : "false", req->brief ? "true" : "false");
    rep->type = KL_FLOAT;
    rep->seed = req->seed;
    snprintf(rep->reference, sizeof rep->reference,
             "copies, sums, hashes and FMA chains recomputed on the host, bit for bit");
    rep->protocol = req->protocol;
    rep->device = kl->info;
    rep->backend = kl->ops->name;
    rep->show_config = 1;
    kl_utc_now(rep->date, sizeof rep->date);
    kl_report_provenance(rep, kl);
    snprintf(c->date, sizeof c->date, "%s", rep->date);
    snprintf(c->source, sizeof c->source, "%s", req->brief ? KL_CEILINGS_BRIEF : KL_CEILINGS_FULL);
    /* Brief: the widths where devices peak (4 words: GPUs' 16-byte accesses; 8 and 16: CPUs'
     * 32- and 64-byte vectors). */
    unsigned vec_mask = req->vec_mask ? req->vec_mask : req->brief ? 4 | 8 | 16 : 0x1f;

    /* Memory: every kind × vector width; the best of each kind is its ceiling. */
    kl_progress_step(0, 17, "peak: building the bandwidth kernels");
    bw_prefetch(kl, req, vec_mask);
    if ((st = bw_init(&s, kl, bytes, req->seed)) != KL_OK)
        goto done;
    double *gbps[] = {&c->copy_gbps, &c->read_gbps, &c->write_gbps};
    char *cfg[] = {c->copy_cfg, c->read_cfg, c->write_cfg};
    for (int k = BW_COPY; k <= BW_WRITE; k++) {
        for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
            struct kl_result *row = NULL;
            unsigned bit = (unsigned)widths[w];
            if (!(vec_mask & bit) || (req->brief && (vec_mask & (bit - 1))))
                continue; /* brief: one search over every width, at the first */
            unsigned search = req->brief ? vec_mask : bit;
            kl_progress_step(k * 5 + (int)w, 17, "peak: bandwidth, vectors of %d", widths[w]);
            if ((st = bw_search(&s, (enum bw_kind)k, search, req->quick, req, rep, &row)) != KL_OK)
                goto done;
            if (row && row->status == KL_RESULT_VERIFIED) {
                double rate = row->bytes / row->median_s * 1e-9;
                if (rate > *gbps[k]) {
                    *gbps[k] = rate;
                    ceiling_cfg(cfg[k], sizeof c->copy_cfg, row);
                }
            }
        }
    }
    bw_free(&s);
    s.kl = NULL;

    /* Arithmetic: FP32, FP64 where the device has it, INT32; TF32 on tensor cores, FP16x2. */
    kl_progress_step(15, 17, "peak: FMA rate, FP32, FP64 and INT32; the tensor cores; FP16x2");
    fma_prefetch(kl, req);
    if ((st = fma_search(kl, KL_FLOAT, req->quick, req, rep, &c->f32_gflops)) != KL_OK ||
        (kl->info.fp64 &&
         (st = fma_search(kl, KL_DOUBLE, req->quick, req, rep, &c->f64_gflops)) != KL_OK) ||
        (st = fma_search(kl, KL_INT, req->quick, req, rep, &c->i32_giops)) != KL_OK ||
        (!req->brief && (st = kl_peak_packed_half(kl, req, rep, c)) != KL_OK) ||
        (st = kl_peak_tensor(kl, req, rep, c)) != KL_OK)
        goto done;
    kl_progress_step(16, 17, "peak: the memory hierarchy");
    if ((st = kl_peak_memory(kl, req, rep, c)) != KL_OK)
        goto done;

    if (!req->brief) { /* the main job's report needs neither */
        kl_progress_step(16, 17, "peak: launch latency and transfers");
        if ((st = measure_latency(kl, req, rep, c)) != KL_OK ||
            (st = measure_transfers(kl, bytes < XFER_BYTES ? bytes : XFER_BYTES, req, rep, c)) !=
                KL_OK)
            goto done;
    }
    kl_report_finish(rep);
    /* The run's JSON carries what it measured, as other runs carry the roofs they used
     * (after finish: peak's rows are not judged against themselves). */
    rep->ceilings = *c;
    rep->have_ceilings = 1;
    snprintf(rep->ceiling_note, sizeof rep->ceiling_note, "measured by this run");
done:
    if (s.kl)
        bw_free(&s);
    return st;
}

/* A figure's value for a table: sizes in KiB or MiB, the rest as measured. */
static void figure_text(const struct kl_ceiling_def *d, double v, char *out, size_t n)
{
    if (strcmp(d->unit, "bytes") == 0)
        snprintf(out, n, v >= 1048576 ? "%.1f MiB" : "%.0f KiB",
                 v >= 1048576 ? v / 1048576 : v / 1024);
    else
        snprintf(out, n, "%.*f %s", v >= 100 ? 1 : 2, v, d->unit);
}

void kl_ceilings_print(const struct kl_ceilings *c, const struct kl_device_info *dev, int format,
                       FILE *out)
{
    static const char *const kinds[] = {"device memory", "FMA units",  "tensor cores",
                                        "on-chip memory", "latency",   "atomics",
                                        "launches",      "transfers"};
    char basis[256], text[64];
    if (format == 2) {
        fprintf(out, "figure,value,unit,specification\n");
        for (int i = 0; i < kl_ceiling_count; i++) {
            const struct kl_ceiling_def *d = &kl_ceiling_defs[i];
            double spec = kl_ceiling_spec(d, dev, basis, sizeof basis);
            fprintf(out, "%s,%.6g,%s,", d->key, kl_ceiling_value(c, d), d->unit);
            if (spec > 0)
                fprintf(out, "%.6g", spec);
            fputc('\n', out);
        }
        return;
    }
    if (format == 1) {
        fprintf(out, "{\"workload\": \"peak\", \"cached\": true, \"device\": ");
        kl_json_write_string(out, dev->name);
        fputs(", \"driver\": ", out);
        kl_json_write_string(out, dev->driver_version);
        fputs(", \"date\": ", out);
        kl_json_write_string(out, c->date);
        fputs(", \"source\": ", out);
        kl_json_write_string(out, kl_ceilings_source(c));
        for (int i = 0; i < kl_ceiling_count; i++)
            fprintf(out, ",\n \"%s\": %.6g", kl_ceiling_defs[i].key,
                    kl_ceiling_value(c, &kl_ceiling_defs[i]));
        fputs("}\n", out);
        return;
    }
    fprintf(out, "kladder peak  %s (driver %s), measured %s by %s\n", dev->name,
            dev->driver_version, c->date, kl_ceilings_source(c));
    for (int i = 0; i < kl_ceiling_count; i++) {
        const struct kl_ceiling_def *d = &kl_ceiling_defs[i];
        double v = kl_ceiling_value(c, d), spec = kl_ceiling_spec(d, dev, basis, sizeof basis);
        if (i == 0 || d->kind != kl_ceiling_defs[i - 1].kind)
            fprintf(out, "\n  %s\n", kinds[d->kind]);
        if (!(v > 0)) {
            fprintf(out, "    %-34s %14s\n", d->label, "-");
            continue;
        }
        figure_text(d, v, text, sizeof text);
        fprintf(out, "    %-34s %14s", d->label, text);
        if (spec > 0)
            fprintf(out, "   %3.0f%% of %.1f, %s", 100 * v / spec, spec, basis);
        else if (d->key == kl_ceiling_defs[0].key && c->copy_cfg[0])
            fprintf(out, "   (%s)", c->copy_cfg);
        fputc('\n', out);
    }
    fputs("\n  -: not measured, or not on this device (`kladder peak --refresh` says why)\n", out);
}
