/*
 * `kladder peak`'s memory hierarchy, every figure from a kernel whose result
 * the host checked:
 *  - local (shared) memory bandwidth (kernels/opencl/peak/local_bw.cl);
 *  - a read sweep over working sets from 4 KiB up (cache_bw.cl): its curve,
 *    each cache level's plateau and where the level ends;
 *  - the latency of each level by a dependent pointer chase (chase.cl);
 *  - atomic adds to one address, to many, and in local memory (atomics.cl,
 *    peak/atomics.c).
 * Rows in this order: local_bw, cache_sweep (one per working set), l1_bw,
 * l2_bw, chase (one per working set), l1_latency, l2_latency, mem_latency,
 * atomic_one, atomic_spread, atomic_local.
 */
#include "workloads/peak/curves.h"
#include "workloads/peak/parts.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/measure.h"
#include "core/util.h"

/* "4 KiB", "256 MiB", "1.5 GiB". */
static void size_text(char *out, size_t n, double bytes)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB"};
    int u = 0;
    while (u < 3 && bytes >= 1024) {
        bytes /= 1024;
        u++;
    }
    snprintf(out, n, "%.*f %s", bytes == (double)(long long)bytes ? 0 : 1, bytes, unit[u]);
}

/* The work-items whose results are checked: the first, the last and 14 spread between. */
#define SAMPLES 16
static size_t sample_gid(size_t global, int i)
{
    return i == SAMPLES - 1 ? global - 1 : global / (SAMPLES - 1) * (size_t)i;
}

/* ---- 1. local memory bandwidth ----------------------------------------------------- */

#define LOCAL_WORDS 4096 /* local_bw.cl's LWORDS: 16 KiB a work-group */

struct local_cfg {
    int vec;
    size_t wg;
};

/* out[gid] of local_bw.cl (see the kernel's comment). */
static uint32_t local_expected(int vec, size_t wg, size_t gid, int iters, uint32_t seed)
{
    const uint32_t nv = LOCAL_WORDS / (uint32_t)vec, base = (uint32_t)(gid / wg) * LOCAL_WORDS;
    uint32_t r = (uint32_t)(gid % wg), sum = 0;
    for (long k = 0; k < 4L * iters; k++, r += (uint32_t)wg) {
        uint32_t w = base + (r & (nv - 1)) * (uint32_t)vec;
        for (int c = 0; c < vec; c++)
            sum += kl_peak_hash(w + (uint32_t)c, seed); /* local_bw.cl's lw_hash */
    }
    return sum;
}

/* One local_bw configuration: calibrated, timed by proto, sampled work-items checked. */
static enum kl_status local_measure(struct kl_context *kl, const void *cfgp, int quick,
                                    const struct kl_protocol *proto, struct kl_result *res)
{
    const struct local_cfg *cfg = cfgp;
    const uint32_t seed = 0x5EEDu + (uint32_t)cfg->vec;
    struct kl_peak_counted c = {.l = {.kl = kl, .dims = 1, .nargs = 3}, .loop = 1};
    struct kl_buf *out = NULL;
    uint32_t *host = NULL;
    struct kl_stats stats;
    enum kl_status st;
    double t;
    size_t groups = kl_peak_grid_groups(kl, quick, 2048 / cfg->wg), global = groups * cfg->wg;

    c.l.local[0] = cfg->wg;
    c.l.global[0] = global;
    c.l.local[1] = c.l.local[2] = c.l.global[1] = c.l.global[2] = 1;
    snprintf(res->options, sizeof res->options, "-DVEC=%d -DLWORDS=%d", cfg->vec, LOCAL_WORDS);
    if (cfg->vec == 1)
        snprintf(res->config, sizeof res->config, "uint WG=%zu", cfg->wg);
    else
        snprintf(res->config, sizeof res->config, "uint%d WG=%zu", cfg->vec, cfg->wg);
    if ((st = kl_launch_check(&c.l, "local_bw", &kl->err)) != KL_OK ||
        (st = kl_kernel_get(kl, "opencl/peak/local_bw.cl", "local_bw", res->options, &c.l.kernel,
                            &res->build_s)) != KL_OK ||
        (st = kl_launch_check(&c.l, "local_bw", &kl->err)) != KL_OK)
        return st;
    if (!(host = malloc(global * 4))) {
        st = kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
        goto done;
    }
    memset(host, 0xA5, global * 4); /* poison: a work-item that writes nothing fails */
    if ((st = kl->ops->alloc(kl->dev, global * 4, &out, &kl->err)) != KL_OK ||
        (st = kl->ops->write(kl->dev, out, host, global * 4, &kl->err)) != KL_OK)
        goto done;
    c.l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = out}};
    c.l.args[1] = (struct kl_arg){KL_ARG_INT, {.i = quick ? 8 : 16}};
    c.l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)seed}};
    /* At most 2^16 trips (4 x that many reads a work-item): the host's replica stays quick. */
    if ((st = kl_peak_calibrate(&c, quick, 1 << 16, &t)) != KL_OK ||
        (st = kl_measure(kl, proto, kl_peak_counted_launch, &c, &stats, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, out, host, global * 4, &kl->err)) != KL_OK)
        goto done;
    const int iters = c.l.args[1].v.i;
    res->status = KL_RESULT_VERIFIED;
    for (int i = 0; i < SAMPLES; i++) {
        size_t gid = sample_gid(global, i);
        uint32_t want = local_expected(cfg->vec, cfg->wg, gid, iters, seed);
        if (host[gid] != want) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note, "work-item %zu: got 0x%08x, want 0x%08x", gid,
                     host[gid], want);
            goto done;
        }
    }
    kl_result_set_stats(res, &stats);
    res->bytes = (double)global * 4.0 * iters * cfg->vec * 4;
    snprintf(res->note, sizeof res->note,
             "verified: %d work-items' sums reproduced exactly; %zu groups of %zu, each "
             "work-item reading %d words of its group's 16 KiB array",
             SAMPLES, groups, cfg->wg, 4 * iters);
done:
    free(host);
    kl->ops->release(out);
    return st;
}

static enum kl_status measure_local(struct kl_context *kl, const struct kl_peak_request *req,
                                    struct kl_report *rep, struct kl_ceilings *c)
{
    static const struct local_cfg all[] = {{1, 256},  {2, 256},  {4, 256},
                                           {1, 1024}, {2, 1024}, {4, 1024}},
                                  some[] = {{1, 64}, {4, 64}};
    enum kl_status st;
    if (kl->info.local_mem < LOCAL_WORDS * 4)
        return kl_peak_skip(
            kl, rep, "local_bw",
            "the kernel's 16 KiB array does not fit the device's %llu bytes of local "
            "memory",
            (unsigned long long)kl->info.local_mem);
    st = kl_peak_rate_search(kl, "local_bw", local_measure, req->quick ? some : all, sizeof *all,
                             req->quick ? 2 : 6, req->quick, req, rep, &c->shared_gbps);
    c->shared_cu_gbps = c->shared_gbps / (kl->info.compute_units ? kl->info.compute_units : 1);
    return st;
}

/* ---- the working sets of the sweeps ------------------------------------------------ */

/*
 * The largest working set of the sweeps: on GPUs past every cache (4 x the
 * last level's size, 256 MiB at least), on CPUs 64 MiB, 64 KiB when quick;
 * no more than --bytes where given; within a quarter of the largest
 * allocation and an eighth of the memory; a power of two.
 */
static size_t sweep_max(const struct kl_device_info *d, const struct kl_peak_request *req)
{
    int quick = req->quick;
    uint64_t want = quick ? 65536 : !d->is_gpu ? (uint64_t)64 << 20 : (uint64_t)256 << 20;
    uint64_t cap = d->max_alloc / 4 < d->global_mem / 8 ? d->max_alloc / 4 : d->global_mem / 8;
    size_t w = 4096;
    if (!quick && d->is_gpu && 4 * d->global_cache > want)
        want = 4 * d->global_cache;
    if (req->bytes && req->bytes < want) /* --bytes bounds every buffer of the run */
        want = req->bytes > 4096 ? req->bytes : 4096;
    while ((uint64_t)w * 2 <= want && (uint64_t)w * 2 <= cap)
        w *= 2;
    return w;
}

/*
 * Which levels of a sweep are caches. The last of several is device memory
 * when the sweep reached twice the device's cache (or, for latency, when
 * there are three or more); *mem is its index, else -1. Returns how many
 * levels, from the first, are caches.
 */
static int cache_levels(int nlevels, size_t w_max, const struct kl_device_info *d, int latency,
                        int *mem)
{
    int past = d->global_cache && w_max >= 2 * d->global_cache;
    *mem = nlevels >= 2 && (past || (latency && nlevels >= 3)) ? nlevels - 1 : -1;
    return *mem >= 0 ? nlevels - 1 : nlevels;
}

/* ---- 2. cache bandwidth: the read sweep ---------------------------------------------- */

struct sweep {
    struct kl_context *kl;
    uint32_t *src, *out; /* host copies: the largest working set, the sums */
    struct kl_buf *dsrc, *dout;
    size_t wg, groups; /* the grid at its widest */
};

/* out[gid] of cache_bw.cl over n vectors (see the kernel's comment). */
static uint32_t sweep_expected(const uint32_t *src, uint32_t n, uint32_t wg, size_t gid, int passes)
{
    const uint32_t lid = (uint32_t)(gid % wg), g = (uint32_t)(gid / wg), chunks = n / wg;
    uint32_t sum = 0;
    for (int p = 0; p < passes; p++) {
        uint32_t c = g;
        for (uint32_t j = 0; j < chunks; j++, c += 2 * g + 1) {
            const uint32_t *v =
                src + 4 * (size_t)(((c & (chunks - 1)) * wg + lid + 8u * p) & (n - 1));
            sum += v[0] + v[1] + v[2] + v[3];
        }
    }
    return sum;
}

/* One working set of W bytes: calibrated, timed by proto, sampled sums checked, into res. */
static enum kl_status sweep_point(struct sweep *s, size_t w, int quick,
                                  const struct kl_protocol *proto, struct kl_result *res)
{
    struct kl_context *kl = s->kl;
    struct kl_peak_counted c = {.l = {.kl = kl, .dims = 1, .nargs = 4}, .loop = 3};
    struct kl_stats stats;
    enum kl_status st;
    char wtext[32];
    double t;
    const uint32_t n = (uint32_t)(w / 16);
    const size_t wg = s->wg < n ? s->wg : n, global = s->groups * wg;

    size_text(wtext, sizeof wtext, (double)w);
    snprintf(res->config, sizeof res->config, "W = %s", wtext);
    res->x = (double)w;
    c.l.local[0] = wg;
    c.l.global[0] = global;
    c.l.local[1] = c.l.local[2] = c.l.global[1] = c.l.global[2] = 1;
    if ((st = kl_kernel_get(kl, "opencl/peak/cache_bw.cl", "cache_bw", "", &c.l.kernel,
                            &res->build_s)) != KL_OK ||
        (st = kl_launch_check(&c.l, "cache_sweep", &kl->err)) != KL_OK)
        return st;
    memset(s->out, 0xA5, global * 4); /* poison */
    if ((st = kl->ops->write(kl->dev, s->dout, s->out, global * 4, &kl->err)) != KL_OK)
        return st;
    c.l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dsrc}};
    c.l.args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = s->dout}};
    c.l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = (int)n}};
    c.l.args[3] = (struct kl_arg){KL_ARG_INT, {.i = 1}};
    /* At most 2^20 passes: the host's replica of a sampled work-item stays quick. */
    if ((st = kl_peak_calibrate(&c, quick, 1 << 20, &t)) != KL_OK ||
        (st = kl_measure(kl, proto, kl_peak_counted_launch, &c, &stats, &kl->err)) != KL_OK ||
        (st = kl->ops->read(kl->dev, s->dout, s->out, global * 4, &kl->err)) != KL_OK)
        return st;
    const int passes = c.l.args[3].v.i;
    res->status = KL_RESULT_VERIFIED;
    for (int i = 0; i < SAMPLES; i++) {
        size_t gid = sample_gid(global, i);
        uint32_t want = sweep_expected(s->src, n, (uint32_t)wg, gid, passes);
        if (s->out[gid] != want) {
            res->status = KL_RESULT_FAILED;
            snprintf(res->note, sizeof res->note, "W = %s, work-item %zu: got 0x%08x, want 0x%08x",
                     wtext, gid, s->out[gid], want);
            return KL_OK;
        }
    }
    kl_result_set_stats(res, &stats);
    res->bytes = (double)s->groups * passes * (double)w;
    snprintf(res->note, sizeof res->note,
             "verified: %d work-items' sums reproduced exactly; each of %zu groups of %zu reads "
             "all of W, %d pass%s",
             SAMPLES, s->groups, wg, passes, passes == 1 ? "" : "es");
    return KL_OK;
}

static void sweep_free(struct sweep *s)
{
    s->kl->ops->release(s->dsrc);
    s->kl->ops->release(s->dout);
    free(s->src);
    free(s->out);
}

/*
 * The summary row NAME of one level of a sweep: its plateau's working set
 * measured again by req's protocol (copied from the sweep row when quick),
 * the level's end in the configuration, why that point (why) in the note.
 * *row is the new row's index.
 */
static enum kl_status level_row(struct kl_context *kl, struct kl_report *rep, const char *name,
                                int point_row, size_t w, size_t w_end, const char *why, int quick,
                                enum kl_status (*again)(void *ctx, size_t w, struct kl_result *res),
                                void *ctx, int *row)
{
    enum kl_status st;
    struct kl_result *r;
    char a[32], b[32];
    if ((*row = kl_peak_add_row(kl, rep, name)) < 0)
        return KL_ERR_NO_MEMORY;
    if (quick) {
        rep->results[*row] = rep->results[point_row];
        rep->results[*row].samples = NULL;
        rep->results[*row].nsamples = 0;
    } else if ((st = again(ctx, w, &rep->results[*row])) != KL_OK) {
        return st;
    }
    r = &rep->results[*row];
    snprintf(r->rung, sizeof r->rung, "%s", name);
    size_text(a, sizeof a, (double)w);
    size_text(b, sizeof b, (double)w_end);
    snprintf(r->config, sizeof r->config, "W = %s; the level ends at %s", a, b);
    size_t used = strlen(r->note);
    snprintf(r->note + used, sizeof r->note - used, "; %s", why);
    return KL_OK;
}

/* Why a level's row stands at its point (kl_levels_find's rule), for its note. */
static void plateau_text(char *out, size_t n, const struct kl_level *l, int index, const char *what)
{
    int count = l->last - l->first + 1;
    if (count == 1)
        snprintf(out, n, "the level's one point");
    else
        snprintf(out, n, "the %s %s of the level's %d points", index == 0 ? "best" : "median", what,
                 count);
}

/* The verified points of a curve against the working set W, at most 32. */
struct curve {
    int n;
    int rows[32];  /* each point's row in the report */
    int steps[32]; /* the chase's S there (0 for the sweep) */
    double wd[32], y[32];
    size_t ws[32];
};

static void curve_add(struct curve *cv, int row, size_t w, double y, int steps)
{
    if (cv->n >= 32)
        return;
    cv->rows[cv->n] = row;
    cv->steps[cv->n] = steps;
    cv->wd[cv->n] = (double)w;
    cv->ws[cv->n] = w;
    cv->y[cv->n++] = y;
}

struct again_sweep {
    struct sweep *s;
    const struct kl_protocol *proto;
};

static enum kl_status sweep_again(void *ctx, size_t w, struct kl_result *res)
{
    struct again_sweep *a = ctx;
    return sweep_point(a->s, w, 0, a->proto, res);
}

/* The sweep's rows, one per working set from 4 KiB to w_max, the verified ones into cv. */
static enum kl_status sweep_points(struct sweep *s, const struct kl_peak_request *req, size_t w_max,
                                   struct kl_report *rep, struct curve *cv)
{
    const struct kl_protocol *proto = req->quick ? &req->protocol : &kl_peak_search_protocol;
    enum kl_status st;
    for (size_t w = 4096; w <= w_max; w *= req->quick ? 4 : 2) {
        int i = kl_peak_add_row(s->kl, rep, "cache_sweep");
        if (i < 0)
            return KL_ERR_NO_MEMORY;
        if ((st = sweep_point(s, w, req->quick, proto, &rep->results[i])) != KL_OK)
            return st;
        const struct kl_result *r = &rep->results[i];
        if (r->status == KL_RESULT_VERIFIED)
            curve_add(cv, i, w, r->bytes / r->median_s * 1e-9, 0);
    }
    return KL_OK;
}

/*
 * Bandwidth row k (l1_bw, l2_bw) skipped where the sweep found no cache
 * level for it: no point verified, device memory's curve past the first
 * level (mem == k), or too few levels.
 */
static enum kl_status sweep_skip(struct kl_context *kl, struct kl_report *rep, const char *name,
                                 int k, const struct curve *cv, const struct kl_level *lev,
                                 int nlev, int mem, size_t w_max)
{
    char text[32], from[32];
    size_text(text, sizeof text, (double)w_max);
    size_text(from, sizeof from, mem == k ? (double)cv->ws[lev[k].first] : 0);
    if (cv->n == 0)
        return kl_peak_skip(kl, rep, name, "no point of the sweep was verified");
    if (mem == k)
        return kl_peak_skip(kl, rep, name,
                            "past the first level the curve is device memory's (from W = %s; "
                            "the sweep reached %s, twice the device's cache)",
                            from, text);
    return kl_peak_skip(kl, rep, name, "the sweep up to W = %s found %d level%s of bandwidth", text,
                        nlev, nlev == 1 ? "" : "s");
}

static enum kl_status sweep_rows(struct sweep *s, const struct kl_peak_request *req,
                                 struct kl_report *rep, struct kl_ceilings *c)
{
    struct kl_context *kl = s->kl;
    const size_t w_max = sweep_max(&kl->info, req);
    struct curve cv = {0};
    struct kl_level lev[32];
    struct again_sweep again = {s, &req->protocol};
    double *gbps[] = {&c->l1_gbps, &c->l2_gbps}, *bytes[] = {&c->l1_bytes, &c->l2_bytes};
    const char *name[] = {"l1_bw", "l2_bw"};
    int nlev, mem, ncache, row;
    enum kl_status st;

    if ((st = sweep_points(s, req, w_max, rep, &cv)) != KL_OK)
        return st;
    nlev = kl_levels_find(cv.wd, cv.y, cv.n, 0, KL_LEVEL_BW_TOL, lev);
    ncache = cache_levels(nlev, w_max, &kl->info, 0, &mem);
    for (int k = 0; k < 2; k++) {
        if (k >= ncache) {
            if ((st = sweep_skip(kl, rep, name[k], k, &cv, lev, nlev, mem, w_max)) != KL_OK)
                return st;
            continue;
        }
        const struct kl_level *l = &lev[k];
        char why[96];
        plateau_text(why, sizeof why, l, k, "bandwidth");
        if ((st = level_row(kl, rep, name[k], cv.rows[l->plateau], cv.ws[l->plateau],
                            cv.ws[l->last], why, req->quick, sweep_again, &again, &row)) != KL_OK)
            return st;
        const struct kl_result *r = &rep->results[row];
        if (r->status == KL_RESULT_VERIFIED) {
            *gbps[k] = r->bytes / r->median_s * 1e-9;
            *bytes[k] = (double)cv.ws[l->last];
        }
    }
    return KL_OK;
}

static enum kl_status measure_caches(struct kl_context *kl, const struct kl_peak_request *req,
                                     struct kl_report *rep, struct kl_ceilings *c)
{
    struct sweep s = {.kl = kl};
    struct kl_rng rng;
    enum kl_status st;
    const size_t w_max = sweep_max(&kl->info, req);
    struct kl_kernel *k;
    double build_s;

    if ((st = kl_kernel_get(kl, "opencl/peak/cache_bw.cl", "cache_bw", "", &k, &build_s)) != KL_OK)
        return st;
    /* About 1024 work-items a compute unit, in as few groups as the kernel allows: one group
     * a unit reads its working set in one cycle (cache_bw.cl); more share it in part. */
    s.wg = kl_peak_fit_wg(kl, k, req->quick ? 64 : 1024);
    s.groups = req->quick || !kl->info.compute_units
                   ? 2
                   : (size_t)kl->info.compute_units * (s.wg < 1024 ? 1024 / s.wg : 1);
    s.src = malloc(w_max);
    s.out = malloc(s.groups * s.wg * 4);
    if (!s.src || !s.out) {
        st = kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory for a %zu-byte working set",
                     w_max);
        goto done;
    }
    kl_rng_seed(&rng, req->seed);
    for (size_t i = 0; i < w_max / 4; i += 2) {
        uint64_t r = kl_rng_next(&rng);
        s.src[i] = (uint32_t)r;
        s.src[i + 1] = (uint32_t)(r >> 32);
    }
    if ((st = kl->ops->alloc(kl->dev, w_max, &s.dsrc, &kl->err)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, s.groups * s.wg * 4, &s.dout, &kl->err)) != KL_OK ||
        (st = kl->ops->write(kl->dev, s.dsrc, s.src, w_max, &kl->err)) != KL_OK)
        goto done;
    st = sweep_rows(&s, req, rep, c);
done:
    sweep_free(&s);
    return st;
}

/* ---- 3. latency: the pointer chase -------------------------------------------------- */

struct chase {
    struct kl_context *kl;
    uint32_t line;                 /* bytes from one node to the next */
    uint32_t *image;               /* the largest buffer as the host writes it */
    uint32_t *next, *order, *rank; /* the cycle, for the largest buffer */
    struct kl_buf *dnodes, *dstate;
    unsigned long long seed;
};

/* Cycles of a latency at the SM clock its row saw, else the device's highest clock. */
static double latency_cycles(const struct kl_context *kl, const struct kl_result *r, double *mhz)
{
    *mhz = r->has_machine && r->machine.sm_mhz > 0 ? r->machine.sm_mhz : kl->info.max_clock_mhz;
    return r->median_s * 1e6 * *mhz;
}

/*
 * The chase's cycle over W bytes (nodes of ch->line bytes), linked into
 * the nodes' first words and written to the device with the state zeroed;
 * res gets its description.
 */
static enum kl_status chase_link(struct chase *ch, size_t w, struct kl_result *res)
{
    struct kl_context *kl = ch->kl;
    const uint32_t nodes = (uint32_t)(w / ch->line), wpn = ch->line / 4, zero = 0;
    enum kl_status st;
    char wtext[32];
    size_text(wtext, sizeof wtext, (double)w);
    snprintf(res->config, sizeof res->config, "W = %s, %u-byte nodes", wtext, ch->line);
    res->x = (double)w;
    kl_chase_cycle(ch->next, nodes, ch->seed + w);
    if (!kl_chase_order(ch->next, nodes, ch->order, ch->rank))
        return kl_fail(&kl->err, KL_ERR_ARG, "the chase's links are not one cycle");
    for (uint32_t i = 0; i < nodes; i++)
        ch->image[(size_t)i * wpn] = ch->next[i] * wpn;
    if ((st = kl->ops->write(kl->dev, ch->dnodes, ch->image, w, &kl->err)) != KL_OK)
        return st;
    return kl->ops->write(kl->dev, ch->dstate, &zero, 4, &kl->err);
}

/*
 * The chase's launch c, steps calibrated (from *steps: a smaller W is
 * faster; *steps gets S), one lap to warm the caches where it fits the
 * time, then t(S) into s1 and t(2S) into s2 by proto.
 */
static enum kl_status chase_times(struct chase *ch, struct kl_peak_counted *c, uint32_t nodes,
                                  int quick, const struct kl_protocol *proto, int *steps,
                                  struct kl_stats *s1, struct kl_stats *s2)
{
    struct kl_context *kl = ch->kl;
    enum kl_status st;
    double t;
    c->l.args[0] = (struct kl_arg){KL_ARG_BUF, {.buf = ch->dnodes}};
    c->l.args[1] = (struct kl_arg){KL_ARG_BUF, {.buf = ch->dstate}};
    c->l.args[2] = (struct kl_arg){KL_ARG_INT, {.i = quick ? 1024 : *steps}};
    if ((st = kl_peak_calibrate(c, quick, 1 << 26, &t)) != KL_OK)
        return st;
    const int S = *steps = c->l.args[2].v.i;
    if (!quick && S < (int)nodes) {
        /* A lap (up to 32 launches' worth) so that a buffer that fits a cache is in it. */
        c->l.args[2].v.i = nodes / (uint32_t)S > 32 ? 32 * S : (int)nodes;
        if ((st = kl_peak_counted_launch(c, &t, &kl->err)) != KL_OK)
            return st;
    }
    c->l.args[2].v.i = S;
    if ((st = kl_measure(kl, proto, kl_peak_counted_launch, c, s1, &kl->err)) != KL_OK)
        return st;
    c->l.args[2].v.i = 2 * S;
    return kl_measure(kl, proto, kl_peak_counted_launch, c, s2, &kl->err);
}

/*
 * Where the chase ended, checked against where c->total steps from node 0
 * lead; res FAILED, and *ok 0, where it ended elsewhere.
 */
static enum kl_status chase_check_end(struct chase *ch, struct kl_peak_counted *c, size_t w,
                                      int *ok, struct kl_result *res)
{
    struct kl_context *kl = ch->kl;
    const uint32_t nodes = (uint32_t)(w / ch->line), wpn = ch->line / 4;
    enum kl_status st;
    uint32_t end;
    char wtext[32];
    double t;
    *ok = 0;
    /* Whole laps so far would end the chase at node 0, where one that never moved ends too:
     * half a lap more, so that the check below can tell them apart. */
    if (c->total % nodes == 0) {
        c->l.args[2].v.i = (int)(nodes / 2 + 1);
        if ((st = kl_peak_counted_launch(c, &t, &kl->err)) != KL_OK)
            return st;
    }
    if ((st = kl->ops->read(kl->dev, ch->dstate, &end, 4, &kl->err)) != KL_OK)
        return st;
    uint32_t want = kl_chase_after(ch->order, ch->rank, nodes, 0, c->total);
    if (end != want * wpn) {
        res->status = KL_RESULT_FAILED;
        size_text(wtext, sizeof wtext, (double)w);
        snprintf(res->note, sizeof res->note,
                 "W = %s: after %llu steps from node 0 the chase stopped at word %u, not at node "
                 "%u (word %u)",
                 wtext, (unsigned long long)c->total, end, want, want * wpn);
        return KL_OK;
    }
    *ok = 1;
    return KL_OK;
}

/*
 * The latency from t(S) and t(2S): the median (t(2S) - t(S)) / S; min and
 * max the 2S launches' extremes less the launch overhead 2 t(S) - t(2S),
 * over 2S (in proportion to the median where noise makes that
 * meaningless). Skipped, with both times, where t(2S) is not above t(S).
 */
static void chase_latency(struct kl_context *kl, const struct kl_stats *s1,
                          const struct kl_stats *s2, int S, unsigned long long total,
                          struct kl_result *res)
{
    double over = 2 * s1->median - s2->median, lat = (s2->median - s1->median) / S, mhz;
    if (!(lat > 0)) { /* a latency of zero or less is no figure: the row says why */
        res->status = KL_RESULT_SKIPPED;
        snprintf(res->note, sizeof res->note,
                 "the chase ended where it should after %llu steps, but t(2S) = %.3g s was not "
                 "above t(S) = %.3g s (S = %d): the launches' noise exceeds S steps' latency",
                 total, s2->median, s1->median, S);
        return;
    }
    res->status = KL_RESULT_VERIFIED;
    kl_result_set_stats(res, s2);
    res->median_s = lat;
    /* The 2S launches' extremes less the launch overhead, over 2S; where noise takes the
     * overhead past an extreme, the extreme in proportion to the median instead. */
    res->min_s = (s2->min - over) / (2.0 * S);
    if (!(res->min_s > 0) || res->min_s > lat)
        res->min_s = lat * s2->min / s2->median;
    res->max_s = (s2->max - over) / (2.0 * S);
    if (res->max_s < lat)
        res->max_s = lat * s2->max / s2->median;
    double cycles = latency_cycles(kl, res, &mhz);
    char clock[64] = "no clock known for cycles";
    if (mhz > 0)
        snprintf(clock, sizeof clock, "%.0f cycles at %.0f MHz", cycles, mhz);
    snprintf(res->note, sizeof res->note,
             "verified: ended %llu steps along the cycle from node 0; %.2f ns (%s) per dependent "
             "load: (t(2S) - t(S)) / S, S = %d",
             total, res->median_s * 1e9, clock, S);
}

/*
 * The chase over W bytes: linked, steps calibrated (from *steps: a smaller
 * W is faster), one lap to warm the caches where it fits the time, then
 * t(S) and t(2S) by proto; the end checked. The row's median is (t(2S) -
 * t(S)) / S; min and max are the 2S launches' extremes less the launch
 * overhead 2 t(S) - t(2S), over 2S (in proportion to the median where noise
 * makes that meaningless). Where t(2S) is not above t(S) (noise on
 * a busy host) the row is skipped with both times: no latency is shown.
 */
static enum kl_status chase_point(struct chase *ch, size_t w, int quick,
                                  const struct kl_protocol *proto, int *steps,
                                  struct kl_result *res)
{
    struct kl_context *kl = ch->kl;
    struct kl_peak_counted c = {.l = {.kl = kl, .dims = 1, .nargs = 3}, .loop = 2};
    struct kl_stats s1, s2;
    enum kl_status st;
    int ok;

    for (int d = 0; d < 3; d++)
        c.l.global[d] = c.l.local[d] = 1;
    if ((st = chase_link(ch, w, res)) != KL_OK ||
        (st = kl_kernel_get(kl, "opencl/peak/chase.cl", "chase", "", &c.l.kernel, &res->build_s)) !=
            KL_OK ||
        (st = chase_times(ch, &c, (uint32_t)(w / ch->line), quick, proto, steps, &s1, &s2)) !=
            KL_OK ||
        (st = chase_check_end(ch, &c, w, &ok, res)) != KL_OK || !ok)
        return st;
    chase_latency(kl, &s1, &s2, *steps, (unsigned long long)c.total, res);
    return KL_OK;
}

static void chase_free(struct chase *ch)
{
    ch->kl->ops->release(ch->dnodes);
    ch->kl->ops->release(ch->dstate);
    free(ch->image);
    free(ch->next);
    free(ch->order);
    free(ch->rank);
}

struct again_chase {
    struct chase *ch;
    const struct kl_protocol *proto;
    int steps;
};

static enum kl_status chase_again(void *ctx, size_t w, struct kl_result *res)
{
    struct again_chase *a = ctx;
    return chase_point(a->ch, w, 0, a->proto, &a->steps, res);
}

/* The chase's rows, one per working set from 4 KiB to w_max, the verified ones into cv. */
static enum kl_status chase_points(struct chase *ch, const struct kl_peak_request *req,
                                   size_t w_max, struct kl_report *rep, struct curve *cv)
{
    const struct kl_protocol *proto = req->quick ? &req->protocol : &kl_peak_search_protocol;
    int steps = 64;
    enum kl_status st;
    for (size_t w = 4096; w <= w_max; w *= 4) {
        int i = kl_peak_add_row(ch->kl, rep, "chase");
        if (i < 0)
            return KL_ERR_NO_MEMORY;
        steps = steps / 4 > 64 ? steps / 4 : 64; /* a larger W is slower: S shrinks */
        if ((st = chase_point(ch, w, req->quick, proto, &steps, &rep->results[i])) != KL_OK)
            return st;
        /* Latencies below the timer's resolution say nothing of the levels. */
        const struct kl_result *r = &rep->results[i];
        if (r->status == KL_RESULT_VERIFIED && r->median_s > 0)
            curve_add(cv, i, w, r->median_s, steps);
    }
    return KL_OK;
}

/* Latency row k (l1, l2, mem) skipped where the chase found no level for it. */
static enum kl_status chase_skip(struct kl_context *kl, struct kl_report *rep, const char *name,
                                 int k, const struct curve *cv, int ncache, size_t w_max)
{
    char text[32];
    size_text(text, sizeof text, (double)w_max);
    if (cv->n == 0)
        return kl_peak_skip(kl, rep, name,
                            "no point of the chase was verified with a latency above the "
                            "timer's resolution");
    if (k < 2)
        return kl_peak_skip(kl, rep, name, "the chase up to W = %s found %d cache level%s", text,
                            ncache, ncache == 1 ? "" : "s");
    return kl_peak_skip(kl, rep, name, "the chase up to W = %s did not go past the second level",
                        text);
}

static enum kl_status chase_rows(struct chase *ch, const struct kl_peak_request *req,
                                 struct kl_report *rep, struct kl_ceilings *c)
{
    struct kl_context *kl = ch->kl;
    const size_t w_max = sweep_max(&kl->info, req);
    struct curve cv = {0};
    struct kl_level lev[32];
    double *ns[] = {&c->l1_ns, &c->l2_ns, &c->mem_ns};
    double *cyc[] = {&c->l1_cycles, &c->l2_cycles, &c->mem_cycles};
    const char *name[] = {"l1_latency", "l2_latency", "mem_latency"};
    int mem, ncache, row;
    enum kl_status st;

    if ((st = chase_points(ch, req, w_max, rep, &cv)) != KL_OK)
        return st;
    ncache = cache_levels(kl_levels_find(cv.wd, cv.y, cv.n, 1, KL_LEVEL_LAT_TOL, lev), w_max,
                          &kl->info, 1, &mem);
    for (int k = 0; k < 3; k++) {
        int level = k < 2 ? (k < ncache ? k : -1) : mem;
        if (level < 0) {
            if ((st = chase_skip(kl, rep, name[k], k, &cv, ncache, w_max)) != KL_OK)
                return st;
            continue;
        }
        const struct kl_level *l = &lev[level];
        struct again_chase again = {ch, &req->protocol, cv.steps[l->plateau]};
        char why[96];
        plateau_text(why, sizeof why, l, level, "latency");
        if ((st = level_row(kl, rep, name[k], cv.rows[l->plateau], cv.ws[l->plateau],
                            cv.ws[l->last], why, req->quick, chase_again, &again, &row)) != KL_OK)
            return st;
        const struct kl_result *r = &rep->results[row];
        if (r->status == KL_RESULT_VERIFIED && r->median_s > 0) {
            double mhz;
            *ns[k] = r->median_s * 1e9;
            *cyc[k] = latency_cycles(kl, r, &mhz);
        }
    }
    return KL_OK;
}

static enum kl_status measure_latency(struct kl_context *kl, const struct kl_peak_request *req,
                                      struct kl_report *rep, struct kl_ceilings *c)
{
    const size_t w_max = sweep_max(&kl->info, req);
    uint64_t line = kl->info.global_cacheline;
    struct chase ch = {.kl = kl, .seed = req->seed};
    enum kl_status st;

    /* The device's cache line where it says (a power of two, 32 .. 1024 bytes), else 128 on
     * GPUs, 64 on CPUs. */
    if (line < 32 || line > 1024 || (line & (line - 1)))
        line = kl->info.is_gpu ? 128 : 64;
    ch.line = (uint32_t)line;
    const size_t nodes = w_max / line;
    ch.image = calloc(w_max / 4, 4);
    ch.next = malloc(nodes * 4);
    ch.order = malloc(nodes * 4);
    ch.rank = malloc(nodes * 4);
    if (!ch.image || !ch.next || !ch.order || !ch.rank) {
        st = kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory for a %zu-byte chase", w_max);
        goto done;
    }
    if ((st = kl->ops->alloc(kl->dev, w_max, &ch.dnodes, &kl->err)) != KL_OK ||
        (st = kl->ops->alloc(kl->dev, 4, &ch.dstate, &kl->err)) != KL_OK)
        goto done;
    st = chase_rows(&ch, req, rep, c);
done:
    chase_free(&ch);
    return st;
}

/* ---- the whole hierarchy ------------------------------------------------------------------ */

enum kl_status kl_peak_memory(struct kl_context *kl, const struct kl_peak_request *req,
                              struct kl_report *rep, struct kl_ceilings *c)
{
    enum kl_status st;
    if ((st = measure_local(kl, req, rep, c)) != KL_OK ||
        (st = measure_caches(kl, req, rep, c)) != KL_OK ||
        (st = measure_latency(kl, req, rep, c)) != KL_OK ||
        (st = kl_peak_atomics(kl, req, rep, c)) != KL_OK)
        return st;
    return KL_OK;
}
