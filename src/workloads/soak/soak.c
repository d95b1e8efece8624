/*
 * kladder soak (workloads/soak/soak.h): the GEMM rung and the copy rung run in
 * turn until the time is up, each iteration a whole verified run of its
 * ladder, folded into two rows and a trace.
 */
#include "workloads/soak/soak.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ladder.h"
#include "core/measure.h"
#include "core/nvml.h"
#include "core/progress.h"
#include "core/stop.h"
#include "core/util.h"

/* One rung's iterations so far. */
struct soak_row {
    double *medians; /* each verified iteration's median time */
    int n, cap;
    int iterations, wrong;
    int first_wrong;        /* its iteration (from 1) */
    double error;           /* the largest error measured (NaN: none) */
    char sizes[64];         /* the ladder's sizes, for the row's config */
    double first_wrong_t;   /* seconds into the soak */
    struct kl_result model; /* the first iteration's row: name, config, work, precision */
    struct kl_machine machine;
    char wrong_note[384];
};

/* Appends v to the row's medians; 0 out of memory. */
static int add_median(struct soak_row *s, double v)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 64;
        double *more = realloc(s->medians, (size_t)cap * sizeof *more);
        if (!more)
            return 0;
        s->medians = more;
        s->cap = cap;
    }
    s->medians[s->n++] = v;
    return 1;
}

/* What the machine did over every iteration: the last one's, its events and lowest clock. */
static void fold_machine(struct kl_machine *into, const struct kl_result *x, int first)
{
    unsigned long long reasons = first ? 0 : into->reasons;
    double lowest = first ? x->machine.sm_mhz_min : into->sm_mhz_min;
    if (!x->has_machine)
        return;
    *into = x->machine;
    into->reasons |= reasons;
    into->capped = (into->reasons & KL_NVML_CAPPED) != 0;
    if (x->machine.samples && x->machine.sm_mhz_min < lowest)
        lowest = x->machine.sm_mhz_min;
    into->sm_mhz_min = lowest;
}

/*
 * Iteration k's row x of one rung into s: its median, or the wrong result it gave.
 * KL_ERR_UNSUPPORTED where the rung could not run here at all.
 */
static enum kl_status fold(struct soak_row *s, const struct kl_result *x, int k, double t,
                           struct kl_err *e)
{
    if (x->status == KL_RESULT_SKIPPED)
        return kl_fail(e, KL_ERR_UNSUPPORTED, "soak: %s cannot run here: %s", x->rung, x->note);
    if (!s->iterations)
        s->model = *x, s->model.samples = NULL, s->model.clocks = NULL, s->error = NAN;
    if (isfinite(x->error) && !(x->error <= s->error))
        s->error = x->error;
    fold_machine(&s->machine, x, !s->iterations);
    s->iterations++;
    if (x->status == KL_RESULT_VERIFIED || x->status == KL_RESULT_MEASURED)
        return add_median(s, x->median_s) ? KL_OK
                                           : kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    if (!s->wrong++) {
        s->first_wrong = k;
        s->first_wrong_t = t;
        snprintf(s->wrong_note, sizeof s->wrong_note, "%.380s", x->note);
    }
    return KL_OK;
}

/* The rung's row of one iteration's report into *x; KL_ERR_BACKEND where it made none. */
static enum kl_status only_row(const struct kl_report *it, const struct kl_result **x,
                               struct kl_err *e)
{
    *x = it->count >= 1 ? &it->results[0] : NULL;
    return *x ? KL_OK : kl_fail(e, KL_ERR_BACKEND, "soak: an iteration gave no row");
}

/* A trace point for iteration k at t seconds from the two rows it gave. */
static void trace(struct kl_report *rep, double t, const struct kl_result *g,
                  const struct kl_result *c)
{
    struct kl_trace_point p = {.t = t, .gemm_s = NAN, .copy_s = NAN, .sm_mhz = -1,
                               .temperature_c = -1, .watts = -1};
    if (g->status == KL_RESULT_VERIFIED)
        p.gemm_s = g->median_s;
    if (c->status == KL_RESULT_VERIFIED)
        p.copy_s = c->median_s;
    p.wrong = g->status == KL_RESULT_FAILED || c->status == KL_RESULT_FAILED;
    for (int k = 0; k < 2; k++) {
        const struct kl_machine *m = k ? &c->machine : &g->machine;
        if ((k ? c : g)->has_machine && m->samples) {
            p.sm_mhz = p.sm_mhz < 0 ? m->sm_mhz : fmin(p.sm_mhz, m->sm_mhz);
            p.watts = fmax(p.watts, m->watts);
            p.reasons |= m->reasons;
        }
        if ((k ? c : g)->has_machine && m->temperature_c > p.temperature_c)
            p.temperature_c = m->temperature_c;
    }
    kl_report_trace(rep, &p);
}

/* One iteration: a verified run of each ladder, folded into the rows and the trace. */
static enum kl_status iteration(struct kl_context *kl, const struct kl_soak_request *req,
                                struct soak_row rows[2], int k, double t, struct kl_report *rep,
                                struct kl_err *e)
{
    struct kl_report it[2];
    const struct kl_result *x[2];
    enum kl_status st;
    memset(it, 0, sizeof it);
    st = kl_gemm_ladder(kl, &req->gemm, &it[0]);
    if (st == KL_OK)
        st = kl_copy_ladder(kl, &req->copy, &it[1]);
    if (st != KL_OK && e != &kl->err)
        *e = kl->err;
    for (int g = 0; g < 2 && st == KL_OK; g++) {
        if ((st = only_row(&it[g], &x[g], e)) != KL_OK ||
            (st = fold(&rows[g], x[g], k, t, e)) != KL_OK)
            break;
        if (!rows[g].model.flops && !rows[g].model.bytes) /* the ladder's work, as a row's */
            rows[g].model.flops = it[g].flops, rows[g].model.bytes = it[g].bytes;
        if (k == 1)
            snprintf(rows[g].sizes, sizeof rows[g].sizes, "%s", it[g].sizes);
    }
    if (st == KL_OK)
        trace(rep, t, x[0], x[1]);
    if (st == KL_OK && k == 1) { /* the header's words: the work and how it is checked */
        snprintf(rep->sizes, sizeof rep->sizes, "gemm %.50s, copy %.30s, %g s", it[0].sizes,
                 it[1].sizes, req->seconds);
        snprintf(rep->reference, sizeof rep->reference,
                 "each iteration: the GEMM %.200s; the copy %.200s", it[0].reference,
                 it[1].reference);
        snprintf(rep->inputs, sizeof rep->inputs, "%s", it[0].inputs);
        snprintf(rep->size_json, sizeof rep->size_json,
                 "\"M\": %d, \"N\": %d, \"K\": %d, \"copy_n\": %ld, \"seconds\": %g",
                 req->gemm.M, req->gemm.N, req->gemm.K, req->copy.n, req->seconds);
    }
    kl_report_free(&it[0]);
    kl_report_free(&it[1]);
    return st;
}

/* The row of one rung's iterations: their medians as its samples, failed if any was wrong. */
static enum kl_status row_of(struct kl_report *rep, const char *what, struct soak_row *s,
                             struct kl_err *e)
{
    struct kl_result *res = kl_report_add(rep, s->model.rung, s->model.summary);
    struct kl_stats stats;
    double *sorted = s->n ? malloc((size_t)s->n * sizeof *sorted) : NULL;
    if (!res || (s->n && !sorted)) {
        free(sorted);
        return kl_fail(e, KL_ERR_NO_MEMORY, "out of host memory");
    }
    /* gemm's sizes and values, or the copy's own config (which holds N) */
    snprintf(res->config, sizeof res->config, "%s %.60s%s%.60s", what,
             s->model.config[0] ? s->model.config : s->sizes,
             s->model.config[0] && strcmp(what, "gemm") == 0 ? " " : "",
             s->model.config[0] && strcmp(what, "gemm") == 0 ? s->sizes : "");
    res->precision = s->model.precision;
    res->error = s->error;
    res->tensor = s->model.tensor;
    res->flops = s->model.flops;
    res->bytes = s->model.bytes;
    res->build_s = s->model.build_s;
    snprintf(res->options, sizeof res->options, "%s", s->model.options);
    if (s->n) {
        memcpy(sorted, s->medians, (size_t)s->n * sizeof *sorted);
        kl_stats_compute(sorted, s->n, &stats);
        stats.machine = s->machine;
        kl_result_set_stats(res, &stats);
        res->samples = s->medians; /* the report owns them now */
        res->nsamples = s->n;
        s->medians = NULL;
    }
    free(sorted);
    res->status = s->wrong ? KL_RESULT_FAILED : KL_RESULT_VERIFIED;
    if (s->wrong)
        snprintf(res->note, sizeof res->note,
                 "%d of %d iterations wrong, the first at iteration %d (%.1f s in): %s", s->wrong,
                 s->iterations, s->first_wrong, s->first_wrong_t, s->wrong_note);
    else
        snprintf(res->note, sizeof res->note,
                 "%d iterations, every one verified; the samples are their medians",
                 s->iterations);
    return KL_OK;
}

/* Heat or the hardware slowing the GPU during the soak: the report's health line says when. */
static void health(struct kl_report *rep)
{
    for (int i = 0; i < rep->ntrace; i++) {
        unsigned long long ev = rep->trace[i].reasons & KL_SOAK_EVENTS;
        char names[256];
        if (!ev)
            continue;
        kl_nvml_reason_names(ev, names, sizeof names);
        snprintf(rep->health, sizeof rep->health,
                 "clock event at %.1f s (iteration %d): %.180s", rep->trace[i].t, i + 1, names);
        return;
    }
}

enum kl_status kl_soak(struct kl_context *kl, const struct kl_soak_request *req,
                       struct kl_report *rep)
{
    struct kl_err *e = &kl->err;
    struct soak_row rows[2];
    enum kl_status st = KL_OK;
    memset(rows, 0, sizeof rows);
    if (!(req->seconds > 0))
        return kl_fail(e, KL_ERR_ARG, "soak: the time must be above 0 s (got %g)", req->seconds);
    if (req->gemm.nrungs != 1 || req->copy.nrungs != 1 || req->gemm.npeers)
        return kl_fail(e, KL_ERR_ARG, "soak: one GEMM rung and one copy rung, no peers");
    kl_ladder_report(rep, kl, "soak", req->gemm.type, req->gemm.seed, &req->gemm.protocol);
    rep->ladder = 0;
    rep->show_config = 1;
    double t0 = kl_now();
    for (int k = 1; st == KL_OK && (k == 1 || kl_now() - t0 < req->seconds); k++) {
        if (kl_stop_requested()) {
            st = kl_stop_fail(e);
            break;
        }
        kl_progress_step(0, 1, "soak: iteration %d, %.0f of %g s", k, kl_now() - t0,
                         req->seconds);
        st = iteration(kl, req, rows, k, kl_now() - t0, rep, e);
    }
    enum kl_status rows_st = KL_OK;
    for (int g = 0; g < 2 && rows[g].iterations && rows_st == KL_OK; g++)
        rows_st = row_of(rep, g ? "copy" : "gemm", &rows[g], e);
    for (int g = 0; g < 2; g++)
        free(rows[g].medians);
    health(rep);
    kl_report_finish(rep);
    return st != KL_OK ? st : rows_st;
}
