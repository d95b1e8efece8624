/*
 * `kladder peak`: the device's ceilings, measured with simple kernels and
 * verified, like clpeak and BabelStream measure them, so that every other
 * rung can be reported as a fraction of what this device really does.
 */
#include "workloads/peak.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/params.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/util.h"

/* The light protocol that ranks candidate configurations before the winner
 * is measured again with the full one. */
static const struct kl_protocol search_protocol = {1, 3, 0.01, 1000};

/* ---- memory bandwidth ------------------------------------------------------ */

enum bw_kind { BW_COPY, BW_READ, BW_WRITE };
static const char *const bw_name[] = {"copy", "read", "write"};
static const char *const bw_file[] = {"opencl/peak/bw_copy.cl", "opencl/peak/bw_read.cl",
                                      "opencl/peak/bw_fill.cl"};
static const char *const bw_entry[] = {"bw_copy", "bw_read", "bw_fill"};

/* The hash of bw_fill.cl, element by element (see the kernel's comment). */
static uint32_t fill_hash(uint32_t x, uint32_t seed)
{
    x = (x * 0x9E3779B1u) ^ seed;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    return x;
}

struct bw_session {
    struct kl_context *kl;
    size_t words;        /* uint elements per buffer */
    uint32_t *src, *out; /* host copies */
    uint32_t src_sum;    /* sum of src mod 2^32 */
    struct kl_buf *dsrc, *ddst, *dpartial;
    size_t partial_cap; /* uints in dpartial */
};

static void bw_free(struct bw_session *s)
{
    if (s->kl) {
        s->kl->ops->release(s->dsrc);
        s->kl->ops->release(s->ddst);
        s->kl->ops->release(s->dpartial);
    }
    free(s->src);
    free(s->out);
}

static enum kl_status bw_init(struct bw_session *s, struct kl_context *kl, size_t bytes,
                              unsigned long long seed)
{
    struct kl_err *e = &kl->err;
    struct kl_rng rng;
    enum kl_status st;
    memset(s, 0, sizeof *s);
    s->kl = kl;
    s->words = bytes / 4 / 1024 * 1024; /* whole float16 vectors for every EPI tried */
    s->partial_cap = s->words;          /* at most one work-item per word */
    s->src = malloc(s->words * 4);
    s->out = malloc(s->words * 4);
    if (!s->src || !s->out)
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory for %zu-byte buffers", bytes);
    kl_rng_seed(&rng, seed);
    for (size_t i = 0; i < s->words; i++) {
        s->src[i] = (uint32_t)kl_rng_next(&rng);
        s->src_sum += s->src[i];
    }
    if ((st = kl->ops->alloc(kl->dev, s->words * 4, &s->dsrc, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, s->words * 4, &s->ddst, e)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, s->partial_cap * 4, &s->dpartial, e)) != KL_OK ||
        (st = kl->ops->write(kl->dev, s->dsrc, s->src, s->words * 4, e)) != KL_OK)
        return st;
    return KL_OK;
}

/* Checks the result of the last launch of kind k; 1 if right, else a note. */
static enum kl_status bw_verify(struct bw_session *s, enum bw_kind k, size_t groups_items,
                                uint32_t seed, int *ok, char *note, size_t n)
{
    struct kl_context *kl = s->kl;
    enum kl_status st;
    *ok = 1;
    if (k == BW_READ) {
        uint32_t sum = 0;
        if ((st = kl->ops->read(kl->dev, s->dpartial, s->out, groups_items * 4, &kl->err)) != KL_OK)
            return st;
        for (size_t i = 0; i < groups_items; i++)
            sum += s->out[i];
        if (sum != s->src_sum) {
            *ok = 0;
            snprintf(note, n, "partial sums add up to 0x%08x, the data to 0x%08x", sum, s->src_sum);
        }
        return KL_OK;
    }
    if ((st = kl->ops->read(kl->dev, s->ddst, s->out, s->words * 4, &kl->err)) != KL_OK)
        return st;
    for (size_t i = 0; i < s->words && *ok; i++) {
        uint32_t want = k == BW_COPY ? s->src[i] : fill_hash((uint32_t)i, seed);
        if (s->out[i] != want) {
            *ok = 0;
            snprintf(note, n, "word %zu: got 0x%08x, want 0x%08x", i, s->out[i], want);
        }
    }
    return KL_OK;
}

struct bw_config {
    int vec, epi;
    size_t wg;
};

/* Builds and launches one configuration once, verified; then times it. */
static enum kl_status bw_run(struct bw_session *s, enum bw_kind k, struct bw_config c,
                             const struct kl_protocol *proto, uint32_t seed, struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    struct kl_launch l = {.kl = kl, .dims = 1};
    struct kl_stats stats;
    enum kl_status st;
    double dummy;
    int ok;
    int n = (int)(s->words / (size_t)c.vec);
    size_t items = ((size_t)n + (size_t)c.epi - 1) / (size_t)c.epi;

    l.local[0] = c.wg;
    l.global[0] = kl_round_up(items, c.wg);
    l.local[1] = l.local[2] = l.global[1] = l.global[2] = 1;
    snprintf(res->options, sizeof res->options, "-DVEC=%d -DEPI=%d", c.vec, c.epi);
    snprintf(res->config, sizeof res->config, "uint%d EPI=%d WG=%zu", c.vec, c.epi, c.wg);
    if (c.vec == 1)
        snprintf(res->config, sizeof res->config, "uint EPI=%d WG=%zu", c.epi, c.wg);
    if (l.global[0] > s->partial_cap)
        return kl_fail(&kl->err, KL_ERR_ARG, "buffer too small for WG=%zu", c.wg);
    if ((st = kl_launch_check(&l, bw_name[k], &kl->err)) != KL_OK ||
        (st = kl_kernel_get(kl, bw_file[k], bw_entry[k], res->options, &l.kernel, &res->build_s)) !=
            KL_OK ||
        (st = kl_launch_check(&l, bw_name[k], &kl->err)) != KL_OK)
        return st;
    l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = k == BW_WRITE ? s->ddst : s->dsrc}};
    switch (k) {
    case BW_COPY:
        l.args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->ddst}};
        l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = n}};
        l.nargs = 3;
        res->bytes = 2.0 * (double)n * c.vec * 4;
        break;
    case BW_READ:
        l.args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dpartial}};
        l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = n}};
        l.nargs = 3;
        res->bytes = (double)n * c.vec * 4 + (double)l.global[0] * 4;
        break;
    case BW_WRITE:
        l.args[1] = (struct kl_arg){KL_ARG_INT, {.i = n}};
        l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)seed}};
        l.nargs = 3;
        res->bytes = (double)n * c.vec * 4;
        break;
    }
    /* Poison what the kernel writes so a skipped store cannot pass. */
    if (k != BW_READ) {
        for (size_t i = 0; i < s->words; i++)
            s->out[i] = ~(k == BW_COPY ? s->src[i] : fill_hash((uint32_t)i, seed));
        if ((st = kl->ops->write(kl->dev, s->ddst, s->out, s->words * 4, &kl->err)) != KL_OK)
            return st;
    }
    if ((st = kl_launch_timed(&l, &dummy, &kl->err)) != KL_OK ||
        (st = bw_verify(s, k, l.global[0], seed, &ok, res->note, sizeof res->note)) != KL_OK)
        return st;
    if (!ok) {
        res->status = KL_RESULT_FAILED;
        return KL_OK;
    }
    if ((st = kl_measure(kl, proto, kl_launch_timed, &l, &stats, &kl->err)) != KL_OK)
        return st;
    res->status = KL_RESULT_VERIFIED;
    kl_result_set_stats(res, &stats);
    snprintf(res->note, sizeof res->note, "verified: %s",
             k == BW_READ   ? "sum of all words"
             : k == BW_COPY ? "every word copied"
                            : "every word written");
    return KL_OK;
}

/*
 * For kind k and width vec, tries every EPI × work-group size with the
 * light protocol, then measures the best one with the full protocol into a
 * new report row. A candidate that fails verification is a failed row.
 */
static enum kl_status bw_search(struct bw_session *s, enum bw_kind k, int vec, int quick,
                                const struct kl_peak_request *req, struct kl_report *rep,
                                struct kl_result **best_row)
{
    static const int epis_all[] = {1, 2, 4, 8}, epis_quick[] = {1, 3};
    static const size_t wgs_all[] = {64, 128, 256, 512, 1024}, wgs_quick[] = {64};
    const int *epis = quick ? epis_quick : epis_all;
    const size_t *wgs = quick ? wgs_quick : wgs_all;
    int nepi = quick ? 2 : 4, nwg = quick ? 1 : 5;
    struct kl_context *kl = s->kl;
    struct bw_config best = {0, 0, 0};
    double best_time = 0;
    char name[32];
    enum kl_status st;

    snprintf(name, sizeof name, "%s_v%d", bw_name[k], vec);
    for (int i = 0; i < nepi; i++)
        for (int j = 0; j < nwg; j++) {
            struct bw_config c = {vec, epis[i],
                                  wgs[j] < kl->info.max_wg ? wgs[j] : kl->info.max_wg};
            struct kl_result trial;
            memset(&trial, 0, sizeof trial);
            st = bw_run(s, k, c, &search_protocol, (uint32_t)req->seed, &trial);
            if (st == KL_ERR_UNSUPPORTED)
                continue; /* this work-group does not fit the kernel: try the next */
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
            if (!best.vec || trial.median_s < best_time) {
                best = c;
                best_time = trial.median_s;
            }
        }
    if (!best.vec)
        return kl_fail(&kl->err, KL_ERR_UNSUPPORTED, "no work-group size fits %s", name);
    struct kl_result *res = kl_report_add(rep, name, NULL);
    if (!res)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if ((st = bw_run(s, k, best, &req->protocol, (uint32_t)req->seed, res)) != KL_OK)
        return st;
    *best_row = res;
    return KL_OK;
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

/*
 * Builds flops.cl for f and doubles its loop length until one launch of l
 * takes ~20 ms (once only when quick), so that ramp-up, tail and launch
 * overhead vanish; *iters is the length chosen.
 */
static enum kl_status fma_calibrate(struct kl_context *kl, const struct fma_run *f, int quick,
                                    struct kl_launch *l, int *iters, struct kl_result *res)
{
    double t1 = 0;
    enum kl_status st;
    for (;;) {
        kl_params_options(NULL, NULL, f->type, res->options, sizeof res->options);
        size_t used = strlen(res->options);
        snprintf(res->options + used, sizeof res->options - used,
                 " -DVEC=%d -DCHAINS=%d -DITERS=%d", f->vec, f->chains, *iters);
        if ((st = kl_kernel_get(kl, "opencl/peak/flops.cl", "flops", res->options, &l->kernel,
                                &res->build_s)) != KL_OK ||
            (st = kl_launch_check(l, "flops", &kl->err)) != KL_OK ||
            (st = kl_launch_timed(l, &t1, &kl->err)) != KL_OK)
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
    struct kl_launch l = {.kl = kl, .dims = 1, .nargs = 3};
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

/* One configuration (cfg) of an arithmetic-rate kernel, checked, then timed by proto. */
typedef enum kl_status (*rate_measure)(struct kl_context *kl, const void *cfg, int quick,
                                       const struct kl_protocol *proto, struct kl_result *res);

/*
 * The n configurations at cfgs (size bytes apart) each timed by the search
 * protocol; the fastest measured again by req's as the report row NAME, its
 * rate in *gflops (0 unless verified). A configuration that fails its check
 * is the row instead.
 */
static enum kl_status rate_search(struct kl_context *kl, const char *name, rate_measure measure,
                                  const void *cfgs, size_t size, int n, int quick,
                                  const struct kl_peak_request *req, struct kl_report *rep,
                                  double *gflops)
{
    const char *cfg = cfgs, *best = cfgs;
    double best_rate = 0;
    enum kl_status st;
    *gflops = 0;
    for (int i = 0; i < n; i++) {
        struct kl_result trial;
        memset(&trial, 0, sizeof trial);
        if ((st = measure(kl, cfg + (size_t)i * size, quick, &search_protocol, &trial)) != KL_OK)
            return st;
        if (trial.status == KL_RESULT_FAILED) {
            struct kl_result *bad = kl_report_add(rep, name, NULL);
            if (!bad)
                return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
            *bad = trial;
            snprintf(bad->rung, sizeof bad->rung, "%s", name);
            return KL_OK;
        }
        double rate = trial.flops / trial.median_s;
        if (rate > best_rate) {
            best_rate = rate;
            best = cfg + (size_t)i * size;
        }
    }
    struct kl_result *res = kl_report_add(rep, name, NULL);
    if (!res)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if ((st = measure(kl, best, quick, &req->protocol, res)) != KL_OK)
        return st;
    *gflops = res->status == KL_RESULT_VERIFIED ? res->flops / res->median_s * 1e-9 : 0;
    return KL_OK;
}

/* Tries vector widths and chain counts for one type; the best is a report row. */
static enum kl_status fma_search(struct kl_context *kl, enum kl_type t, int quick,
                                 const struct kl_peak_request *req, struct kl_report *rep,
                                 double *gflops)
{
    static const struct {
        int vec, chains;
    } all[] = {{1, 8}, {1, 16}, {2, 8}, {4, 4}, {4, 8}, {4, 16}, {8, 8}, {16, 4}, {16, 8}},
      some[] = {{1, 8}, {4, 4}};
    struct fma_run runs[sizeof all / sizeof *all];
    int n = quick ? 2 : (int)(sizeof all / sizeof *all);
    char name[32];
    snprintf(name, sizeof name, "fma_%s", t == KL_FLOAT ? "f32" : t == KL_DOUBLE ? "f64" : "i32");
    for (int i = 0; i < n; i++)
        runs[i] = (struct fma_run){t, quick ? some[i].vec : all[i].vec,
                                   quick ? some[i].chains : all[i].chains};
    return rate_search(kl, name, fma_measure, runs, sizeof *runs, n, quick, req, rep, gflops);
}

/* ---- tensor cores and packed halves: kernels whose every output is exact ------ */

/*
 * A rate kernel of inline PTX whose outputs the host computes exactly:
 * mma_tf32.cl (TF32 products on the tensor cores) and hfma2.cl (packed-half
 * FMAs). Each is built with -DCHAINS and -DITERS and writes one float per
 * work-item.
 */
struct exact_kernel {
    const char *row, *file, *entry;
    enum kl_precision precision;
    int iters, quick_iters, max_iters; /* the loop lengthens until ~10 ms, up to max_iters */
    size_t grid_per_cu;                /* work-items per compute unit */
    double flops_per_step;             /* operations per work-item, chain and iteration */
    double (*expected)(int gid, int chains, int iters);
    const char *what; /* what a verified sample reproduced */
};

/* out[gid] of mma_tf32.cl, computed exactly (see the kernel's comment). */
static double mma_expected(int gid, int chains, int iters)
{
    int w = gid / 32, lane = gid % 32, g = lane / 4, t = lane % 4;
    double s = 0;
    for (int ch = 0; ch < chains; ch++)
        for (int r = 0; r < 4; r++) {
            int m = g + r / 2 * 8, n = 2 * t + r % 2;
            double ad = 0; /* (A·D)[m][n] */
            for (int k = 0; k < 8; k++)
                ad +=
                    ((131 * w + 3 * m + 5 * k) % 17 - 8) / 8.0 * (((w + k + 2 * n) % 3 - 1) / 8.0);
            s += ((w + 5 * ch + 3 * m + n) % 64 - 32) / 8.0 + iters / 2 * ad;
        }
    return s;
}

/* out[gid] of hfma2.cl: both lanes of every chain, each grown by one per step. */
static double hfma2_expected(int gid, int chains, int iters)
{
    double s = 0;
    for (int c = 0; c < chains; c++)
        s += (gid + 3 * c) % 13 + (gid + 3 * c + 1) % 13 + 2.0 * iters;
    return s;
}

/* 2·16·8·8 operations per mma.m16n8k8, one per 32 work-items. */
static const struct exact_kernel mma_tf32 = {"mma_tf32",
                                             "opencl/peak/mma_tf32.cl",
                                             "mma_tf32",
                                             KL_PREC_TF32,
                                             256,
                                             16,
                                             4096,
                                             2048 * 4,
                                             2.0 * 16 * 8 * 8 / 32,
                                             mma_expected,
                                             "sums of mma chains"};
static const struct exact_kernel fma_f16x2 = {"fma_f16x2",
                                              "opencl/peak/hfma2.cl",
                                              "hfma2",
                                              KL_PREC_FP16,
                                              2016,
                                              16,
                                              2016,
                                              2048 * 16,
                                              2.0 * 2,
                                              hfma2_expected,
                                              "sums of packed-half FMA chains"};

struct exact_run {
    const struct exact_kernel *k;
    int chains;
};

/*
 * One configuration of an exact kernel: whole waves of work-items, the loop
 * lengthened until a launch takes ~10 ms (or the exactness limit), sampled
 * work-items checked bit for bit, then timed by proto.
 */
static enum kl_status exact_measure(struct kl_context *kl, const void *cfg, int quick,
                                    const struct kl_protocol *proto, struct kl_result *res)
{
    const struct exact_kernel *k = ((const struct exact_run *)cfg)->k;
    const int chains = ((const struct exact_run *)cfg)->chains;
    struct kl_launch l = {.kl = kl, .dims = 1, .nargs = 1};
    struct kl_stats stats;
    struct kl_buf *out = NULL;
    float *host = NULL;
    enum kl_status st;
    double t1 = 0;
    size_t wg = quick ? 64 : 256;
    size_t global = quick ? wg : (size_t)kl->info.compute_units * k->grid_per_cu;
    int iters = quick ? k->quick_iters : k->iters;

    l.local[0] = wg;
    l.global[0] = global = kl_round_up(global, wg);
    l.local[1] = l.local[2] = l.global[1] = l.global[2] = 1;
    snprintf(res->config, sizeof res->config, "CHAINS=%d", chains);
    res->precision = k->precision;
    if ((st = kl->ops->alloc(kl->dev, global * sizeof *host, &out, &kl->err)) != KL_OK)
        goto done;
    l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = out}};
    for (;;) {
        snprintf(res->options, sizeof res->options, "-DCHAINS=%d -DITERS=%d", chains, iters);
        if ((st = kl_kernel_get(kl, k->file, k->entry, res->options, &l.kernel, &res->build_s)) !=
                KL_OK ||
            (st = kl_launch_check(&l, k->row, &kl->err)) != KL_OK ||
            (st = kl_launch_timed(&l, &t1, &kl->err)) != KL_OK)
            goto done;
        if (quick || t1 >= 0.01 || iters >= k->max_iters)
            break;
        while (iters < k->max_iters && t1 < 0.01)
            iters *= 2, t1 *= 2;
    }
    if (!(host = malloc(global * sizeof *host))) {
        st = kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
        goto done;
    }
    if ((st = kl->ops->read(kl->dev, out, host, global * sizeof *host, &kl->err)) != KL_OK)
        goto done;
    res->status = KL_RESULT_VERIFIED;
    const int samples = 16;
    for (int i = 0; i < samples; i++) {
        int gid = (int)(i == samples - 1 ? global - 1 : global / (samples - 1) * (size_t)i);
        double want = k->expected(gid, chains, iters);
        if (host[gid] != want) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note, "work-item %d: got %.9g, want %.9g", gid,
                     host[gid], want);
            goto done;
        }
    }
    snprintf(res->note, sizeof res->note,
             "verified: %d work-items' %s reproduced exactly (%d chains); %zu work-items, "
             "%d iterations",
             samples, k->what, chains, global, iters);
    if ((st = kl_measure(kl, proto, kl_launch_timed, &l, &stats, &kl->err)) != KL_OK)
        goto done;
    res->flops = k->flops_per_step * chains * iters * (double)global;
    kl_result_set_stats(res, &stats);
done:
    free(host);
    kl->ops->release(out);
    return st;
}

/*
 * The TF32 roof (row mma_tf32) and the packed-half roof (row fma_f16x2): the
 * better of a few chain counts, or, on a device without them, a skipped row
 * saying why.
 */
static enum kl_status exact_search(struct kl_context *kl, const struct exact_kernel *k, int quick,
                                   const struct kl_peak_request *req, struct kl_report *rep,
                                   double *gflops)
{
    const struct exact_run all[] = {{k, 2}, {k, 4}, {k, 8}}, some[] = {{k, 4}};
    char why[256];
    *gflops = 0;
    if (!(k == &mma_tf32 ? kl_tensor_tf32 : kl_packed_half)(&kl->info, why, sizeof why)) {
        struct kl_result *res = kl_report_add(rep, k->row, NULL);
        if (!res)
            return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
        res->status = KL_RESULT_SKIPPED;
        res->precision = k->precision;
        snprintf(res->note, sizeof res->note, "%s", why);
        return KL_OK;
    }
    return rate_search(kl, k->row, exact_measure, quick ? some : all, sizeof *all, quick ? 1 : 3,
                       quick, req, rep, gflops);
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
    double qmean = 0;
    for (int i = 0; i < n; i++)
        qmean += q[i] / n;
    if (n > 0 && q[0] < 0) {
        /* CUDA events are recorded on the stream: none sees the launch being queued. */
        struct kl_result *res = kl_report_add(rep, "launch_latency", NULL);
        if (res) {
            res->status = KL_RESULT_SKIPPED;
            snprintf(res->note, sizeof res->note,
                     "the %s backend's events cannot see when a launch is queued; "
                     "launch_host and empty_kernel below are its view",
                     kl->ops->name);
        }
        c->launch_us = 0;
    } else {
        latency_row(rep, "launch_latency",
                    "queued to start, from events (clpeak's figure is the mean)", q, n);
        c->launch_us = qmean * 1e6;
    }
    latency_row(rep, "launch_host", "enqueue to completion as the host sees it", h, n);
    c->launch_host_us = rep->results[rep->count - 1].median_s * 1e6;
    latency_row(rep, "empty_kernel", "an empty kernel's own run time, start to end", r, n);
    c->empty_us = rep->results[rep->count - 1].median_s * 1e6;
done:
    kl->ops->release(dummy);
    free(x.queue);
    free(x.run);
    free(x.host);
    return st;
}

/* ---- host <-> device transfers ------------------------------------------------ */

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
    if ((st = xfer_row(&x, "write_pinned", "CL_MEM_ALLOC_HOST_PTR, mapped", &p, rep,
                       &c->h2d_pinned)))
        goto done;
    x.kind = X_READ;
    if ((st =
             xfer_row(&x, "read_pinned", "CL_MEM_ALLOC_HOST_PTR, mapped", &p, rep, &c->d2h_pinned)))
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
    snprintf(rep->size_json, sizeof rep->size_json, "\"bytes\": %zu, \"quick\": %s", bytes,
             req->quick ? "true" : "false");
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

    /* Memory: every kind × vector width; the best of each kind is its ceiling. */
    if ((st = bw_init(&s, kl, bytes, req->seed)) != KL_OK)
        goto done;
    double *gbps[] = {&c->copy_gbps, &c->read_gbps, &c->write_gbps};
    char *cfg[] = {c->copy_cfg, c->read_cfg, c->write_cfg};
    for (int k = BW_COPY; k <= BW_WRITE; k++) {
        for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
            struct kl_result *row = NULL;
            if (req->vec_mask && !(req->vec_mask & (unsigned)widths[w]))
                continue;
            kl_progress_step(k * 5 + (int)w, 17, "peak: bandwidth, vectors of %d", widths[w]);
            if ((st = bw_search(&s, (enum bw_kind)k, widths[w], req->quick, req, rep, &row)) !=
                KL_OK)
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
    kl_progress_step(15, 17, "peak: FMA rate, FP32, FP64 and INT32; TF32 tensor cores, FP16x2");
    if ((st = fma_search(kl, KL_FLOAT, req->quick, req, rep, &c->f32_gflops)) != KL_OK ||
        (kl->info.fp64 &&
         (st = fma_search(kl, KL_DOUBLE, req->quick, req, rep, &c->f64_gflops)) != KL_OK) ||
        (st = fma_search(kl, KL_INT, req->quick, req, rep, &c->i32_giops)) != KL_OK ||
        (st = exact_search(kl, &mma_tf32, req->quick, req, rep, &c->tf32_gflops)) != KL_OK ||
        (st = exact_search(kl, &fma_f16x2, req->quick, req, rep, &c->f16_gflops)) != KL_OK)
        goto done;

    kl_progress_step(16, 17, "peak: launch latency and transfers");
    if ((st = measure_latency(kl, req, rep, c)) != KL_OK ||
        (st = measure_transfers(kl, bytes, req, rep, c)) != KL_OK)
        goto done;
    kl_report_finish(rep);
done:
    if (s.kl)
        bw_free(&s);
    return st;
}

void kl_ceilings_print(const struct kl_ceilings *c, const struct kl_device_info *dev, int format,
                       FILE *out)
{
    if (format == 2) {
        fprintf(out, "figure,value,unit\n");
        fprintf(out, "copy,%.6g,GB/s\nread,%.6g,GB/s\nwrite,%.6g,GB/s\n", c->copy_gbps,
                c->read_gbps, c->write_gbps);
        fprintf(out, "fp32,%.6g,GFLOP/s\nfp64,%.6g,GFLOP/s\nint32,%.6g,GIOP/s\n", c->f32_gflops,
                c->f64_gflops, c->i32_giops);
        fprintf(out, "tf32,%.6g,GFLOP/s\nfp16x2,%.6g,GFLOP/s\n", c->tf32_gflops, c->f16_gflops);
        fprintf(out, "launch_latency,%.4g,us\nlaunch_host,%.4g,us\nempty_kernel,%.4g,us\n",
                c->launch_us, c->launch_host_us, c->empty_us);
        fprintf(out, "write_pageable,%.4g,GB/s\nread_pageable,%.4g,GB/s\n", c->h2d_pageable,
                c->d2h_pageable);
        fprintf(out, "write_pinned,%.4g,GB/s\nread_pinned,%.4g,GB/s\n", c->h2d_pinned,
                c->d2h_pinned);
        fprintf(out, "map_read,%.4g,GB/s\nunmap_write,%.4g,GB/s\n", c->map_gbps, c->unmap_gbps);
        return;
    }
    if (format == 1) {
        fprintf(out,
                "{\"workload\": \"peak\", \"cached\": true, \"device\": \"%s\", \"driver\": "
                "\"%s\", \"date\": \"%s\",\n \"copy_gbps\": %.6g, \"read_gbps\": %.6g, "
                "\"write_gbps\": %.6g, \"f32_gflops\": %.6g, \"f64_gflops\": %.6g, "
                "\"i32_giops\": %.6g, \"tf32_gflops\": %.6g, \"f16_gflops\": %.6g,\n \"launch_us\": "
                "%.4g, "
                "\"launch_host_us\": %.4g, "
                "\"empty_us\": %.4g,\n \"h2d_pageable_gbps\": %.4g, \"d2h_pageable_gbps\": "
                "%.4g, \"h2d_pinned_gbps\": %.4g, \"d2h_pinned_gbps\": %.4g, \"map_gbps\": "
                "%.4g, \"unmap_gbps\": %.4g}\n",
                dev->name, dev->driver_version, c->date, c->copy_gbps, c->read_gbps, c->write_gbps,
                c->f32_gflops, c->f64_gflops, c->i32_giops, c->tf32_gflops, c->f16_gflops, c->launch_us,
                c->launch_host_us, c->empty_us, c->h2d_pageable, c->d2h_pageable, c->h2d_pinned,
                c->d2h_pinned, c->map_gbps, c->unmap_gbps);
        return;
    }
    fprintf(out, "kladder peak  %s (driver %s), measured %s\n\n", dev->name, dev->driver_version,
            c->date);
    fprintf(out, "  memory copy      %10.1f GB/s   (%s)\n", c->copy_gbps, c->copy_cfg);
    fprintf(out, "  memory read      %10.1f GB/s   (%s)\n", c->read_gbps, c->read_cfg);
    fprintf(out, "  memory write     %10.1f GB/s   (%s)\n", c->write_gbps, c->write_cfg);
    fprintf(out, "  FP32 FMA         %10.1f GFLOP/s\n", c->f32_gflops);
    if (c->f64_gflops > 0)
        fprintf(out, "  FP64 FMA         %10.1f GFLOP/s\n", c->f64_gflops);
    fprintf(out, "  INT32 mul-add    %10.1f GIOP/s\n", c->i32_giops);
    if (c->tf32_gflops > 0)
        fprintf(out, "  TF32 tensor mma  %10.1f GFLOP/s\n", c->tf32_gflops);
    else
        fprintf(out, "  TF32 tensor mma           - (no tensor cores)\n");
    if (c->f16_gflops > 0)
        fprintf(out, "  FP16x2 FMA       %10.1f GFLOP/s\n", c->f16_gflops);
    else
        fprintf(out, "  FP16x2 FMA                - (not measured on this device)\n");
    fprintf(out,
            "  launch latency   %10.2f us queued->start (mean), %.2f us host round trip, "
            "%.2f us empty kernel\n",
            c->launch_us, c->launch_host_us, c->empty_us);
    fprintf(out, "  transfers        %10.2f / %.2f GB/s write/read pageable, %.2f / %.2f pinned\n",
            c->h2d_pageable, c->d2h_pageable, c->h2d_pinned, c->d2h_pinned);
    fprintf(out, "  map / unmap      %10.2f / %.2f GB/s\n", c->map_gbps, c->unmap_gbps);
}
