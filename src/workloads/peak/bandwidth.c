/*
 * `kladder peak`'s device-memory bandwidth: copy, read and write kernels
 * (kernels/opencl/peak/bw_*.cl) searched over vector widths, elements per
 * work-item, work-group sizes and, for reads on GPUs, a persistent grid;
 * every result checked on the host, word for word or by its sum.
 */
#include "workloads/peak/parts.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/progress.h"
#include "core/util.h"

enum bw_kind { BW_COPY, BW_READ, BW_WRITE };
static const char *const bw_name[] = {"copy", "read", "write"};
static const char *const bw_file[] = {"opencl/peak/bw_copy.cl", "opencl/peak/bw_read.cl",
                                      "opencl/peak/bw_fill.cl"};
static const char *const bw_entry[] = {"bw_copy", "bw_read", "bw_fill"};

/*
 * The buffers of the bandwidth rows. The source holds kl_peak_hash(i, seed), so
 * a copy's and a fill's results are both expect[]; the destination is
 * poisoned on the device by a fill with another seed, which differs from
 * expect[] in every word (kl_peak_hash is a bijection of its first argument's
 * mix with the seed), so a word not written cannot pass.
 */
struct bw_session {
    struct kl_context *kl;
    size_t words; /* uint elements per buffer */
    uint32_t seed;
    uint32_t *expect;    /* kl_peak_hash(i, seed): the source, and every right result */
    uint32_t *back;      /* results read back (pinned host memory) */
    uint32_t expect_sum; /* sum of expect mod 2^32: the read kernel's result */
    struct kl_buf *dsrc, *ddst, *dpartial, *pinned;
    size_t partial_cap;      /* uints in dpartial */
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
static enum kl_status bw_verify(struct bw_session *s, enum bw_kind k, size_t groups_items, int *ok,
                                char *note, size_t n)
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
 * The grid of configuration c over n vectors: one work-item per EPI
 * vectors, or a persistent grid, whole waves of the most the device holds,
 * each item looping over *chunks chunks.
 */
static void bw_grid(const struct kl_context *kl, struct bw_config c, int n, struct kl_launch *l,
                    int *chunks)
{
    size_t items = ((size_t)n + (size_t)c.epi - 1) / (size_t)c.epi;
    *chunks = 1;
    if (c.persistent) {
        size_t resident = kl->info.threads_per_cu ? kl->info.threads_per_cu : 2048;
        items = (size_t)kl->info.compute_units * resident;
        *chunks = (int)(((size_t)n + items * (size_t)c.epi - 1) / (items * (size_t)c.epi));
    }
    l->local[0] = c.wg;
    l->global[0] = kl_round_up(items, c.wg);
    l->local[1] = l->local[2] = l->global[1] = l->global[2] = 1;
}

/* Configuration c's build options and its description ("uint4 EPI=1 WG=256") into res. */
static void bw_describe(struct bw_config c, struct kl_result *res)
{
    bw_options(c, res->options, sizeof res->options);
    snprintf(res->config, sizeof res->config, "uint%d EPI=%d WG=%zu%s%s", c.vec, c.epi, c.wg,
             c.persistent ? " persistent" : "", c.nv_load ? " ld.nc.L2::256B" : "");
    if (c.vec == 1)
        snprintf(res->config, sizeof res->config, "uint EPI=%d WG=%zu%s", c.epi, c.wg,
                 c.persistent ? " persistent" : "");
}

/* The arguments of kind k's kernel over n vectors of c.vec words, and the bytes it moves. */
static void bw_args(const struct bw_session *s, enum bw_kind k, struct bw_config c, int n,
                    int chunks, struct kl_launch *l, struct kl_result *res)
{
    l->args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = k == BW_WRITE ? s->ddst : s->dsrc}};
    l->nargs = 3;
    switch (k) {
    case BW_COPY:
        l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->ddst}};
        l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = n}};
        res->bytes = 2.0 * (double)n * c.vec * 4;
        break;
    case BW_READ:
        l->args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dpartial}};
        l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = n}};
        l->args[3] = (struct kl_arg){KL_ARG_INT, {.i = chunks}};
        l->nargs = 4;
        res->bytes = (double)n * c.vec * 4 + (double)l->global[0] * 4;
        break;
    case BW_WRITE:
        l->args[1] = (struct kl_arg){KL_ARG_INT, {.i = n}};
        l->args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)s->seed}};
        res->bytes = (double)n * c.vec * 4;
        break;
    }
}

/*
 * One launch of l checked: the destination poisoned first (a copy or a
 * write), then the result compared; *ok 0 and res FAILED, with the first
 * difference, where it is wrong.
 */
static enum kl_status bw_check(struct bw_session *s, enum bw_kind k, struct kl_launch *l, int *ok,
                               struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    enum kl_status st;
    double dummy;
    if ((k != BW_READ && (st = kl_launch_timed(&s->poison, &dummy, &kl->err)) != KL_OK) ||
        (st = kl_launch_timed(l, &dummy, &kl->err)) != KL_OK ||
        (st = bw_verify(s, k, l->global[0], ok, res->note, sizeof res->note)) != KL_OK)
        return st;
    if (!*ok)
        res->status = KL_RESULT_FAILED;
    return KL_OK;
}

/* What a timed row's note says it is. */
static const char *bw_note(enum bw_kind k, int verified)
{
    static const char *const checked[] = {"verified: every word copied",
                                          "verified: sum of all words",
                                          "verified: every word written"};
    return verified ? checked[k] : "a candidate, timed unchecked";
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
    int n = (int)(s->words / (size_t)c.vec), chunks, ok = 1;

    bw_grid(kl, c, n, &l, &chunks);
    bw_describe(c, res);
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
    bw_args(s, k, c, n, chunks, &l, res);
    if (verify && ((st = bw_check(s, k, &l, &ok, res)) != KL_OK || !ok))
        return st;
    if ((st = kl_measure(kl, proto, kl_launch_timed, &l, &stats, &kl->err)) != KL_OK)
        return st;
    res->status = verify ? KL_RESULT_VERIFIED : KL_RESULT_MEASURED;
    kl_result_set_stats(res, &stats);
    snprintf(res->note, sizeof res->note, "%s", bw_note(k, verify));
    return KL_OK;
}

struct bw_axes {
    const int *epis;
    int n_epi;
    const size_t *wgs;
    int n_wg;
};

/* The EPIs and work-group sizes a search tries: quick's, brief's, or the full (or wide) ones. */
static struct bw_axes bw_axes_of(const struct kl_peak_request *req, const struct kl_context *kl)
{
    static const int epis_all[] = {1, 2, 4, 8, 16}, epis_quick[] = {1, 3}, epis_brief[] = {1, 4, 8};
    static const size_t wgs_all[] = {64, 128, 256, 512, 1024}, wgs_quick[] = {64},
                        wgs_brief[] = {256, 1024};
    if (req->quick)
        return (struct bw_axes){epis_quick, 2, wgs_quick, 1};
    if (req->brief)
        return (struct bw_axes){epis_brief, 3, wgs_brief, kl->info.is_gpu ? 1 : 2};
    return (struct bw_axes){epis_all, req->wide ? 5 : 4, wgs_all, 5};
}

/*
 * The grids and loads kind k tries at width vec: a persistent grid too for
 * reads on a GPU (not quick), and with it at width 4 on NVIDIA's GPUs loads
 * through PTX. Variant p of the count is persistent p % 2, nv_load p / 2.
 */
static int bw_variants(enum bw_kind k, int vec, const struct kl_peak_request *req,
                       const struct kl_context *kl)
{
    int grids = k == BW_READ && kl->info.is_gpu && !req->quick ? 2 : 1;
    int loads = grids == 2 && vec == 4 && kl_contains_nocase(kl->info.vendor, "nvidia") ? 2 : 1;
    return grids * loads;
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
    const struct bw_axes ax = bw_axes_of(req, kl);
    int n = 0, variants = bw_variants(k, vec, req, kl);
    for (int i = 0; i < ax.n_epi; i++)
        for (int j = 0; j < ax.n_wg; j++)
            for (int p = 0; p < variants; p++) {
                size_t wg = ax.wgs[j] < kl->info.max_wg ? ax.wgs[j] : kl->info.max_wg;
                out[n++] = (struct bw_config){vec, ax.epis[i], wg, p % 2, p / 2};
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

/* The row NAME: the best configuration c of kind k measured again, verified (kl_peak_final). */
static enum kl_status bw_final_row(struct bw_session *s, enum bw_kind k, struct bw_config c,
                                   int quick, const struct kl_peak_request *req,
                                   struct kl_report *rep, const char *name, struct kl_result **row)
{
    struct kl_result *res = kl_report_add(rep, name, NULL);
    const struct bw_final final = {s, k, c};
    enum kl_status st;
    if (!res)
        return kl_fail(&s->kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    if ((st = kl_peak_final(s->kl, bw_final_run, &final, quick, req, res)) != KL_OK)
        return st;
    *row = res;
    return KL_OK;
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
        if (trial.status == KL_RESULT_FAILED)
            return kl_peak_failed_row(kl, rep, name, &trial);
        if (!best.vec || kl_peak_row_rate(&trial) > best_rate) {
            best = space[i];
            best_rate = kl_peak_row_rate(&trial);
        }
    }
    if (!best.vec)
        return kl_fail(&kl->err, KL_ERR_UNSUPPORTED, "no work-group size fits %s", name);
    return bw_final_row(s, k, best, quick, req, rep, name, best_row);
}

/* Builds every bandwidth kernel the widths of mask will try, at once where that is faster. */
static void bw_prefetch(struct kl_context *kl, const struct kl_peak_request *req, unsigned mask)
{
    struct kl_kernel_want want[3 * 5 * 5 * 2];
    struct bw_config space[128];
    int n = 0;
    for (int k = BW_COPY; k <= (req->brief ? BW_COPY : BW_WRITE); k++)
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

/* Rows of kind k: one search per vector width of vec_mask (brief: one over them all). */
static enum kl_status bw_kind_rows(struct bw_session *s, enum bw_kind k, unsigned vec_mask,
                                   const struct kl_peak_request *req, struct kl_report *rep,
                                   double *gbps, char *cfg, size_t cfg_n)
{
    static const int widths[] = {1, 2, 4, 8, 16};
    enum kl_status st;
    for (size_t w = 0; w < sizeof widths / sizeof *widths; w++) {
        struct kl_result *row = NULL;
        unsigned bit = (unsigned)widths[w];
        if (!(vec_mask & bit) || (req->brief && (vec_mask & (bit - 1))))
            continue; /* brief: one search over every width, at the first */
        unsigned search = req->brief ? vec_mask : bit;
        kl_progress_step(k * 5 + (int)w, 17, "peak: bandwidth, vectors of %d", widths[w]);
        if ((st = bw_search(s, k, search, req->quick, req, rep, &row)) != KL_OK)
            return st;
        if (row && row->status == KL_RESULT_VERIFIED) {
            double rate = row->bytes / row->median_s * 1e-9;
            if (rate > *gbps) {
                *gbps = rate;
                snprintf(cfg, cfg_n, "%s", row->config);
            }
        }
    }
    return KL_OK;
}

enum kl_status kl_peak_bandwidth(struct kl_context *kl, const struct kl_peak_request *req,
                                 size_t bytes, unsigned vec_mask, struct kl_report *rep,
                                 struct kl_ceilings *c)
{
    double *gbps[] = {&c->copy_gbps, &c->read_gbps, &c->write_gbps};
    char *cfg[] = {c->copy_cfg, c->read_cfg, c->write_cfg};
    struct bw_session s;
    enum kl_status st;
    kl_progress_step(0, 17, "peak: building the bandwidth kernels");
    bw_prefetch(kl, req, vec_mask);
    st = bw_init(&s, kl, bytes, req->seed);
    for (int k = BW_COPY; k <= (req->brief ? BW_COPY : BW_WRITE) && st == KL_OK; k++)
        st = bw_kind_rows(&s, (enum bw_kind)k, vec_mask, req, rep, gbps[k], cfg[k],
                          sizeof c->copy_cfg);
    bw_free(&s);
    return st;
}
