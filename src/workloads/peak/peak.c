/*
 * `kladder peak`: the device's ceilings, measured with simple kernels and
 * verified, like clpeak and BabelStream measure them, so that every other
 * rung can be reported as a fraction of what this device really does. This
 * file: the FMA units, the search and final measurement the parts share,
 * and the whole measurement; the other parts are named in peak/parts.h.
 */
#include "workloads/peak/peak.h"
#include "workloads/peak/parts.h"

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

const struct kl_protocol kl_peak_search_protocol = {
    .warmup = 1, .min_repeats = 3, .min_time = 0.01, .max_repeats = 1000};

/* A row's rate: its operations per second where it counts any, else its bytes per second. */
double kl_peak_row_rate(const struct kl_result *r)
{
    return (r->flops > 0 ? r->flops : r->bytes) / r->median_s;
}

/* ---- arithmetic rate --------------------------------------------------------- */

#define FMA_WG 256
#define FMA_MAX_ITERS 8192

/*
 * Host replicas of flops.cl for one work-item, one per element type (see
 * the kernel's comment): each chain starts at x = init (a sixteenth of it
 * for floating point) and takes iters fused multiply-adds x = x·a + b;
 * component k sums its chains in chain order (v = x0; v += x1; ...), the
 * result its components left to right (s = v.s0; s += v.s1; ...).
 */
#define FMA_REPLICA(name, T, start, step)                                                          \
    static T name(int gid, int vec, int chains, int iters, T a, T b)                               \
    {                                                                                              \
        T s = 0;                                                                                   \
        for (int k = 0; k < vec; k++) {                                                            \
            T v = 0;                                                                               \
            for (int c = 0; c < chains; c++) {                                                     \
                int init = (gid + 3 * c + k) % 13;                                                 \
                T x = start;                                                                       \
                for (int i = 0; i < iters; i++)                                                    \
                    x = step;                                                                      \
                v = c ? v + x : x;                                                                 \
            }                                                                                      \
            s = k ? s + v : v;                                                                     \
        }                                                                                          \
        return s;                                                                                  \
    }
FMA_REPLICA(replica_f32, float, (float)init * 0.0625f, fmaf(x, a, b))
FMA_REPLICA(replica_f64, double, (double)init * 0.0625, fma(x, a, b))
FMA_REPLICA(replica_i32, uint32_t, (uint32_t)init, (x * a) + b)

/* What flops.cl leaves for work-item gid in type t, as a double. */
static double fma_expected(enum kl_type t, int gid, int vec, int chains, int iters, double a,
                           double b)
{
    switch (t) {
    case KL_FLOAT: return replica_f32(gid, vec, chains, iters, (float)a, (float)b);
    case KL_DOUBLE: return replica_f64(gid, vec, chains, iters, a, b);
    default:
        return (double)(int32_t)replica_i32(gid, vec, chains, iters, (uint32_t)(int32_t)a,
                                            (uint32_t)(int32_t)b);
    }
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

/* ---- the search and the final measurement, shared by every part ----------- */

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

enum kl_status kl_peak_failed_row(struct kl_context *kl, struct kl_report *rep, const char *name,
                                  const struct kl_result *trial)
{
    struct kl_result *bad = kl_report_add(rep, name, NULL);
    if (!bad)
        return kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
    *bad = *trial;
    snprintf(bad->rung, sizeof bad->rung, "%s", name);
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
        rates[i] = kl_peak_row_rate(&run) * 1e-9;
        int failed = run.status == KL_RESULT_FAILED;
        if (i == 0 || failed || kl_peak_row_rate(&run) > kl_peak_row_rate(res)) {
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
        if (trial.status == KL_RESULT_FAILED)
            return kl_peak_failed_row(kl, rep, name, &trial);
        if (!best || kl_peak_row_rate(&trial) > best_rate) {
            best_rate = kl_peak_row_rate(&trial);
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
    *gflops = res->status == KL_RESULT_VERIFIED ? kl_peak_row_rate(res) * 1e-9 : 0;
    return KL_OK;
}

/* ---- the FMA search ---------------------------------------------------------- */

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

/* A request peak can take: a valid protocol, vector widths of 1 to 16, buffers of bytes. */
static enum kl_status check_request(struct kl_context *kl, const struct kl_peak_request *req,
                                    size_t bytes)
{
    enum kl_status st;
    if ((st = kl_protocol_check(&req->protocol, &kl->err)) != KL_OK)
        return st;
    if (req->vec_mask & ~0x1fu || (req->vec_mask & ~(1u | 2u | 4u | 8u | 16u)))
        return kl_fail(&kl->err, KL_ERR_ARG, "vector widths are 1, 2, 4, 8 and 16");
    if (bytes < 65536 || bytes > kl->info.max_alloc || bytes / 4 > (size_t)INT32_MAX / 2)
        return kl_fail(&kl->err, KL_ERR_ARG,
                       "--bytes %zu: buffers must be between 64 KiB and the device's largest "
                       "allocation (%llu bytes), and under 4 GiB",
                       bytes, (unsigned long long)kl->info.max_alloc);
    return KL_OK;
}

/* The report's head (workload, sizes, device, provenance) and the ceilings' date and source. */
static void report_head(struct kl_context *kl, const struct kl_peak_request *req, size_t bytes,
                        struct kl_report *rep, struct kl_ceilings *c)
{
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
}

/* Arithmetic: FP32, FP64 where the device has it, INT32; FP16x2 (not brief); the tensor cores. */
static enum kl_status measure_arithmetic(struct kl_context *kl, const struct kl_peak_request *req,
                                         struct kl_report *rep, struct kl_ceilings *c)
{
    enum kl_status st;
    kl_progress_step(15, 17, "peak: FMA rate, FP32, FP64 and INT32; the tensor cores; FP16x2");
    fma_prefetch(kl, req);
    if ((st = fma_search(kl, KL_FLOAT, req->quick, req, rep, &c->f32_gflops)) != KL_OK ||
        (kl->info.fp64 &&
         (st = fma_search(kl, KL_DOUBLE, req->quick, req, rep, &c->f64_gflops)) != KL_OK) ||
        (st = fma_search(kl, KL_INT, req->quick, req, rep, &c->i32_giops)) != KL_OK)
        return st;
    if (!req->brief && (st = kl_peak_packed_half(kl, req, rep, c)) != KL_OK)
        return st;
    return kl_peak_tensor(kl, req, rep, c);
}

enum kl_status kl_peak_measure(struct kl_context *kl, const struct kl_peak_request *req,
                               struct kl_report *rep, struct kl_ceilings *c)
{
    size_t bytes = req->bytes ? req->bytes : default_bytes(&kl->info);
    enum kl_status st;

    memset(c, 0, sizeof *c);
    if ((st = check_request(kl, req, bytes)) != KL_OK)
        return st;
    report_head(kl, req, bytes, rep, c);
    if (req->transfers) { /* a sweep of its own: no roofs measured, nothing to cache */
        snprintf(rep->sizes, sizeof rep->sizes, "transfers from 4 KiB to %.1f MiB",
                 bytes / 1048576.0);
        snprintf(rep->reference, sizeof rep->reference,
                 "at every size, a write and read-back of random bytes compared byte for byte "
                 "before the timed copies");
        snprintf(rep->size_json, sizeof rep->size_json,
                 "\"bytes\": %zu, \"transfers\": true, \"sweep\": true", bytes);
        if ((st = kl_peak_transfer_sweep(kl, req, bytes, rep)) == KL_OK)
            kl_report_finish(rep);
        return st;
    }
    /* Brief: the widths where devices peak (4 words: GPUs' 16-byte accesses; 8 and 16: CPUs'
     * 32- and 64-byte vectors). */
    unsigned vec_mask = req->vec_mask ? req->vec_mask : req->brief ? 4 | 8 | 16 : 0x1f;

    /* Memory: every kind × vector width; the best of each kind is its ceiling. */
    if ((st = kl_peak_bandwidth(kl, req, bytes, vec_mask, rep, c)) != KL_OK ||
        (st = measure_arithmetic(kl, req, rep, c)) != KL_OK)
        return st;
    kl_progress_step(16, 17, "peak: the memory hierarchy");
    if ((st = kl_peak_memory(kl, req, rep, c)) != KL_OK)
        return st;
    if (!req->brief) { /* the main job's report needs neither */
        kl_progress_step(16, 17, "peak: launch latency and transfers");
        if ((st = kl_peak_launches(kl, req, bytes, rep, c)) != KL_OK)
            return st;
    }
    kl_report_finish(rep);
    /* The run's JSON carries what it measured, as other runs carry the roofs they used
     * (after finish: peak's rows are not judged against themselves). */
    rep->ceilings = *c;
    rep->have_ceilings = 1;
    snprintf(rep->ceiling_note, sizeof rep->ceiling_note, "measured by this run");
    return KL_OK;
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
    static const char *const kinds[] = {"device memory",  "FMA units", "tensor cores",
                                        "on-chip memory", "latency",   "atomics",
                                        "launches",       "transfers"};
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
