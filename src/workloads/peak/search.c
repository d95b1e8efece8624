/*
 * What every part of `kladder peak` measures with: the search over a
 * family's configurations and the final measurement of the best, the rows
 * they add, the counted launches the stateful kernels run, the grid that
 * fills the device, and the hash the kernels fill their data with.
 */
#include "workloads/peak/parts.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/launch.h"
#include "core/measure.h"

const struct kl_protocol kl_peak_search_protocol = {
    .warmup = 1, .min_repeats = 3, .min_time = 0.01, .max_repeats = 1000};

/* A row's rate: its operations per second where it counts any, else its bytes per second. */
double kl_peak_row_rate(const struct kl_result *r)
{
    return (r->flops > 0 ? r->flops : r->bytes) / r->median_s;
}

/* ---- the search and the final measurement ----------------------------------- */

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
        double lo = rates[0], hi = rates[0], mid;
        for (int i = 1; i < runs; i++)
            lo = rates[i] < lo ? rates[i] : lo, hi = rates[i] > hi ? rates[i] : hi;
        mid = runs == 3 ? rates[0] + rates[1] + rates[2] - lo - hi : 0.5 * (lo + hi);
        res->run_spread = mid > 0 ? (hi - lo) / mid : 0; /* the device's run-to-run spread */
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

/* ---- counted launches, the grid, rows ------------------------------------------ */

/* A kl_launch_fn over a struct kl_peak_counted. */
enum kl_status kl_peak_counted_launch(void *arg, double *seconds, struct kl_err *e)
{
    struct kl_peak_counted *c = arg;
    enum kl_status st = kl_launch_timed(&c->l, seconds, e);
    if (st == KL_OK)
        c->total += (uint64_t)c->l.args[c->loop].v.i;
    return st;
}

/* How long one launch should take: long against its overhead, short for the budget. */
static double launch_target(const struct kl_context *kl)
{
    return kl->info.is_gpu ? 1e-3 : 4e-3;
}

/*
 * Lengthens c's loop count by doubling until one launch takes about the
 * target time (at most max); one launch only when quick. *t: the last time.
 */
enum kl_status kl_peak_calibrate(struct kl_peak_counted *c, int quick, int max, double *t)
{
    int *n = &c->l.args[c->loop].v.i;
    double target = launch_target(c->l.kl);
    enum kl_status st;
    /* A first launch may carry one-time costs (PoCL compiles a kernel for each work-group
     * size at its first launch; memory is touched for the first time): it decides nothing. */
    if (!quick && (st = kl_peak_counted_launch(c, t, &c->l.kl->err)) != KL_OK)
        return st;
    for (;;) {
        if ((st = kl_peak_counted_launch(c, t, &c->l.kl->err)) != KL_OK)
            return st;
        if (quick || *t >= target / 2 || *n >= max)
            return KL_OK;
        /* A launch below the timer's resolution grows sixteenfold at most. */
        double guess = *t > target / 16 ? *t : target / 16;
        while (*n < max && guess < target) {
            *n = *n > max / 2 ? max : *n * 2;
            guess *= 2;
        }
    }
}

/* The largest power of two at most want that the device and, once built, the kernel take. */
size_t kl_peak_fit_wg(struct kl_context *kl, struct kl_kernel *k, size_t want)
{
    size_t cap = kl->info.max_wg, wg = 1;
    if (kl->info.max_item[0] && kl->info.max_item[0] < cap)
        cap = kl->info.max_item[0];
    if (k && kl->ops->kernel_max_wg(k) && kl->ops->kernel_max_wg(k) < cap)
        cap = kl->ops->kernel_max_wg(k);
    while (wg * 2 <= want && wg * 2 <= cap)
        wg *= 2;
    return wg;
}

/* Work-groups for a grid that fills the device: per_cu a compute unit (two a CPU core). */
size_t kl_peak_grid_groups(const struct kl_context *kl, int quick, size_t per_cu)
{
    return quick ? 2 : (size_t)kl->info.compute_units * (kl->info.is_gpu ? per_cu : 2);
}

/* Appends row NAME: its index, or -1 (kl's error says why) when the report cannot grow. */
int kl_peak_add_row(struct kl_context *kl, struct kl_report *rep, const char *name)
{
    if (!kl_report_add(rep, name, NULL)) {
        kl_fail(&kl->err, KL_ERR_NO_MEMORY, "out of host memory");
        return -1;
    }
    return rep->count - 1;
}

/* ---- the data's hash ------------------------------------------------------------ */

uint32_t kl_peak_hash(uint32_t x, uint32_t seed)
{
    x = (x * 0x9E3779B1u) ^ seed;
    x ^= x >> 16;
    x *= 0x7FEB352Du;
    x ^= x >> 15;
    return x;
}
