#include "core/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/context.h"
#include "core/measure.h"
#include "core/util.h"

int kl_result_timed(const struct kl_result *x)
{
    return x->status == KL_RESULT_VERIFIED || x->status == KL_RESULT_MEASURED;
}

int kl_result_has_error(const struct kl_result *x)
{
    return x->status == KL_RESULT_VERIFIED && isfinite(x->error);
}

const char *kl_result_status_name(enum kl_result_status s)
{
    switch (s) {
    case KL_RESULT_VERIFIED: return "verified";
    case KL_RESULT_FAILED: return "failed";
    case KL_RESULT_SKIPPED: return "skipped";
    case KL_RESULT_TIMEOUT: return "timeout";
    case KL_RESULT_MEASURED: return "measured";
    }
    return "?";
}

static const char *const precision_names[] = {NULL,    "fp32",   "tf32",  "3xtf32", "fp64",
                                              "int32", "fp16",   "bf16",  "fp8",    "fp8e5m2",
                                              "int8",  "ozaki8", "3xfp16"};

const char *kl_precision_name(enum kl_precision p)
{
    return (unsigned)p < sizeof precision_names / sizeof *precision_names ? precision_names[p]
                                                                          : NULL;
}

enum kl_precision kl_precision_parse(const char *name)
{
    for (size_t i = 1; name && i < sizeof precision_names / sizeof *precision_names; i++)
        if (strcmp(name, precision_names[i]) == 0)
            return (enum kl_precision)i;
    return KL_PREC_NONE;
}

enum kl_precision kl_precision_of_type(enum kl_type t)
{
    switch (t) {
    case KL_DOUBLE: return KL_PREC_FP64;
    case KL_INT: return KL_PREC_INT32;
    case KL_HALF: return KL_PREC_FP16;
    case KL_BF16: return KL_PREC_BF16;
    case KL_FP8: return KL_PREC_FP8;
    case KL_FP8E5M2: return KL_PREC_FP8E5M2;
    case KL_INT8: return KL_PREC_INT8;
    case KL_UCHAR: return KL_PREC_INT32; /* bytes, counted or summed in uint */
    default: return KL_PREC_FP32;
    }
}

int kl_precision_class(enum kl_precision p)
{
    return p == KL_PREC_3XTF32 || p == KL_PREC_OZAKI8 || p == KL_PREC_3XFP16 ? KL_PREC_FP32
                                                                             : (int)p;
}

int kl_peer_likeness(int rung_span, int peer_span)
{
    return peer_span == rung_span ? 2 : peer_span > rung_span;
}

struct kl_result *kl_report_add(struct kl_report *r, const char *rung, const char *summary)
{
    if (r->count == r->capacity) {
        int cap = r->capacity ? 2 * r->capacity : 16;
        struct kl_result *more = realloc(r->results, (size_t)cap * sizeof *more);
        if (!more)
            return NULL;
        r->results = more;
        r->capacity = cap;
    }
    struct kl_result *res = &r->results[r->count++];
    memset(res, 0, sizeof *res);
    snprintf(res->rung, sizeof res->rung, "%s", rung);
    /* Until a run says otherwise: a row is never a result by default. */
    res->status = KL_RESULT_FAILED;
    snprintf(res->note, sizeof res->note, "not run");
    res->summary = summary;
    res->error = NAN;
    res->noise = NAN;
    return res;
}

void kl_result_set_stats(struct kl_result *x, const struct kl_stats *s)
{
    x->median_s = s->median;
    x->min_s = s->min;
    x->max_s = s->max;
    x->repeats = s->n;
    x->noise = s->noise;
    x->machine = s->machine;
    x->has_machine = 1;
}

void kl_result_keep_measured(struct kl_result *x)
{
    const double *s;
    struct kl_machine m;
    int n = kl_measure_last(&s, &m);
    if (n <= 0 || n != x->repeats)
        return;
    x->machine = m;
    x->has_machine = 1;
    const double *clocks = kl_measure_last_clocks();
    free(x->samples);
    free(x->clocks);
    x->samples = malloc((size_t)n * sizeof *x->samples);
    x->clocks = clocks ? malloc((size_t)n * sizeof *x->clocks) : NULL;
    x->nsamples = x->samples ? n : 0;
    if (x->samples)
        memcpy(x->samples, s, (size_t)n * sizeof *s);
    if (isnan(x->noise) && n >= 2) /* workloads that hand over a timing, not the stats (gemm) */
        x->noise = kl_median_noise(s, n);
    if (x->clocks)
        memcpy(x->clocks, clocks, (size_t)n * sizeof *clocks);
}

/* Appends n values of b to *a (a run's samples or clocks after the runs before); 0 or -1. */
static int append(double **a, int have, const double *b, int n)
{
    double *more = realloc(*a, (size_t)(have + n) * sizeof *more);
    if (!more)
        return -1;
    memcpy(more + have, b, (size_t)n * sizeof *b);
    *a = more;
    return 0;
}

int kl_result_add_run(struct kl_result *row, int first_seq, const struct kl_result *run, int seq)
{
    if (row->nruns == 0) { /* the row's own measurement is run 0 */
        row->run_n[0] = row->nsamples;
        row->run_median[0] = row->median_s;
        row->run_seq[0] = first_seq;
        row->nruns = 1;
    }
    if (row->nruns == KL_MAX_RUNS)
        return 0;
    /* Clocks only where every run kept them, so that they stay beside their launches. */
    if (row->clocks && (!run->clocks || append(&row->clocks, row->nsamples, run->clocks,
                                               run->nsamples) != 0)) {
        free(row->clocks);
        row->clocks = NULL;
    }
    if (append(&row->samples, row->nsamples, run->samples, run->nsamples) != 0)
        return -1;
    row->nsamples += run->nsamples;
    row->run_n[row->nruns] = run->nsamples;
    row->run_median[row->nruns] = run->median_s;
    row->run_seq[row->nruns] = seq;
    row->nruns++;
    row->min_s = run->min_s < row->min_s ? run->min_s : row->min_s;
    row->max_s = run->max_s > row->max_s ? run->max_s : row->max_s;
    return 0;
}

void kl_result_close_runs(struct kl_result *row)
{
    double m[KL_MAX_RUNS], lo, hi;
    struct kl_stats s;
    if (row->nruns < 2)
        return;
    memcpy(m, row->run_median, (size_t)row->nruns * sizeof *m);
    kl_stats_compute(m, row->nruns, &s);
    lo = s.min, hi = s.max;
    row->median_s = s.median;
    row->repeats = row->nsamples;
    row->run_spread = s.median > 0 ? (hi - lo) / s.median : 0;
}

void kl_report_provenance(struct kl_report *r, struct kl_context *kl)
{
    kl_machine_host(r->host, sizeof r->host, r->cpu, sizeof r->cpu, r->os, sizeof r->os);
    r->start_sm_mhz = r->start_mem_mhz = -1;
    r->end_temperature_c = -1;
    memset(&r->conditions, 0, sizeof r->conditions);
    snprintf(r->conditions.why, sizeof r->conditions.why, "timed on the host");
    if (kl) {
        kl_machine_clocks(kl, &r->start_sm_mhz, &r->start_mem_mhz);
        kl_machine_conditions(kl, &r->conditions);
    }
}

void kl_report_conditions_end(struct kl_report *r, struct kl_context *kl)
{
    struct kl_conditions now;
    if (kl)
        r->cold_flushes = kl->cold.flushes;
    if (!kl || !r->conditions.known)
        return;
    kl_machine_conditions(kl, &now);
    r->end_temperature_c = now.temperature_c;
}

void kl_report_inputs(struct kl_report *r, const char *what, enum kl_type t)
{
    const char *how = t == KL_INT                       ? "integers uniform in [-8, 8]"
                      : t == KL_INT8                    ? "integers uniform in [-128, 127]"
                      : t == KL_FLOAT || t == KL_DOUBLE ? "uniform in [-1, 1)"
                                                        : "uniform in [-1, 1), rounded to the type";
    snprintf(r->inputs, sizeof r->inputs, "%s %s, seed %llu", what, how, r->seed);
}

static void free_build_logs(struct kl_report *r)
{
    for (int i = 0; i < r->nbuild_logs; i++) {
        free(r->build_logs[i].kernel);
        free(r->build_logs[i].options);
        free(r->build_logs[i].log);
    }
    free(r->build_logs);
    r->build_logs = NULL;
    r->nbuild_logs = 0;
}

/* kl_kernel_logs' callback: one build's messages appended to the report (arg). */
static void add_build_log(void *arg, const char *file, const char *entry, const char *options,
                          const char *log)
{
    struct kl_report *r = arg;
    struct kl_build_log *grown =
        realloc(r->build_logs, (size_t)(r->nbuild_logs + 1) * sizeof *grown);
    if (!grown)
        return;
    r->build_logs = grown;
    struct kl_build_log *b = &grown[r->nbuild_logs];
    size_t n = strlen(file) + strlen(entry) + 2;
    if ((b->kernel = malloc(n)))
        snprintf(b->kernel, n, "%s %s", file, entry);
    b->options = kl_strdup(options);
    b->log = kl_strdup(log);
    if (b->kernel && b->options && b->log)
        r->nbuild_logs++;
    else
        free(b->kernel), free(b->options), free(b->log);
}

void kl_report_build_logs(struct kl_report *r, const struct kl_context *kl)
{
    free_build_logs(r);
    if (kl)
        kl_kernel_logs(kl, add_build_log, r);
}

void kl_report_trace(struct kl_report *r, const struct kl_trace_point *p)
{
    if (r->ntrace == r->trace_cap) {
        int cap = r->trace_cap ? 2 * r->trace_cap : 64;
        struct kl_trace_point *more = realloc(r->trace, (size_t)cap * sizeof *more);
        if (!more)
            return;
        r->trace = more;
        r->trace_cap = cap;
    }
    r->trace[r->ntrace++] = *p;
}

void kl_report_free(struct kl_report *r)
{
    free(r->trace);
    r->trace = NULL;
    r->ntrace = r->trace_cap = 0;
    for (int i = 0; i < r->count; i++) {
        free(r->results[i].samples);
        free(r->results[i].clocks);
    }
    free(r->results);
    r->results = NULL;
    r->count = r->capacity = 0;
    free_build_logs(r);
}

double kl_result_flops(const struct kl_report *r, const struct kl_result *x)
{
    return x->flops > 0 || x->bytes > 0 ? x->flops : r->flops;
}

double kl_result_bytes(const struct kl_report *r, const struct kl_result *x)
{
    return x->flops > 0 || x->bytes > 0 ? x->bytes : r->bytes;
}

int kl_precision_tensor_only(enum kl_precision p)
{
    return p == KL_PREC_TF32 || p == KL_PREC_3XTF32 || p == KL_PREC_BF16 || p == KL_PREC_FP8 ||
           p == KL_PREC_FP8E5M2 || p == KL_PREC_INT8 || p == KL_PREC_OZAKI8 || p == KL_PREC_3XFP16;
}

double kl_precision_peak(const struct kl_ceilings *c, enum kl_precision p, int tensor)
{
    switch (p) {
    case KL_PREC_TF32: return c->tf32_gflops;
    case KL_PREC_3XTF32: return c->tf32_gflops / 3;
    case KL_PREC_FP64: return tensor ? c->f64_tc_gflops : c->f64_gflops;
    case KL_PREC_INT32: return c->i32_giops;
    case KL_PREC_FP16: return tensor ? c->f16_tc_gflops : c->f16_gflops;
    case KL_PREC_3XFP16: return c->f16_tc_gflops / 3;
    case KL_PREC_BF16: return c->bf16_gflops;
    case KL_PREC_FP8: return c->fp8_gflops;
    case KL_PREC_FP8E5M2: return c->fp8e5m2_gflops;
    case KL_PREC_INT8:
    case KL_PREC_OZAKI8: return c->i8_giops; /* its products' rate, MODULI per product */
    default: return c->f32_gflops;
    }
}

/* The compute roof of a row: its precision's, else the report type's; 0 when unknown. */
static double compute_peak(const struct kl_report *r, const struct kl_result *x)
{
    enum kl_precision p =
        x->precision != KL_PREC_NONE ? x->precision : kl_precision_of_type(r->type);
    if (x->fma) /* widened for the FMA units */
        p = p == KL_PREC_INT8 ? KL_PREC_INT32 : KL_PREC_FP32;
    return kl_precision_peak(&r->ceilings, p, x->tensor);
}

/* The memory roof: the copy bandwidth, or the read bandwidth for a workload that only reads. */
static double memory_roof(const struct kl_report *r)
{
    return r->read_roof && r->ceilings.read_gbps > 0 ? r->ceilings.read_gbps
                                                     : r->ceilings.copy_gbps;
}

static double roof(const struct kl_report *r, const struct kl_result *x, double flops, double bytes)
{
    if (!r->have_ceilings || r->ceilings.copy_gbps <= 0)
        return 0.0;
    double bw = memory_roof(r), peak = compute_peak(r, x);
    if (flops <= 0)
        return bw;
    if (bytes <= 0 || peak <= 0)
        return peak;
    double memory_bound = flops / bytes * bw;
    return memory_bound < peak ? memory_bound : peak;
}

/*
 * What bounds a timed row: the roof it comes closest to, memory (its bytes
 * against the memory roof) or compute (its FLOPs against its precision's
 * peak), where it reaches half of it; latency where it reaches neither half
 * (launch, dependency or occupancy stalls, not a pipe or the memory, hold it).
 * NULL where no roof is known.
 */
static const char *bound_by(const struct kl_report *r, const struct kl_result *x, double flops,
                            double bytes)
{
    double peak = compute_peak(r, x), bw = memory_roof(r);
    if (!r->have_ceilings || !(bw > 0))
        return NULL;
    double mem = bytes > 0 ? bytes / x->median_s * 1e-9 / bw : 0;
    double comp = flops > 0 && peak > 0 ? flops / x->median_s * 1e-9 / peak : 0;
    double best = mem > comp ? mem : comp;
    return best < 0.5 ? "latency" : mem >= comp ? "memory" : "compute";
}

/* 1 when x has a time to compute metrics from. */
static int has_time(const struct kl_result *x)
{
    return kl_result_timed(x) && x->median_s > 0;
}

/* The times speed-ups are measured from: the first device row's, the fastest host row's. */
static void base_times(const struct kl_report *r, double *first, double *host)
{
    *first = *host = 0.0;
    for (int i = 0; i < r->count; i++) {
        const struct kl_result *x = &r->results[i];
        if (!has_time(x))
            continue;
        if (x->on_host && (*host == 0.0 || x->median_s < *host))
            *host = x->median_s;
        if (!x->on_host && *first == 0.0)
            *first = x->median_s;
    }
}

/* x's rates, share of its roof, what bounds it, energy rates and speed-ups. */
static void row_metrics(const struct kl_report *r, struct kl_result *x, double first, double host)
{
    double flops = kl_result_flops(r, x), bytes = kl_result_bytes(r, x),
           top = roof(r, x, flops, bytes);
    x->gflops = flops / x->median_s * 1e-9;
    x->mitems = r->items / x->median_s * 1e-6;
    x->gbps = bytes / x->median_s * 1e-9;
    if (top > 0)
        x->pct_ceiling = 100.0 * (flops > 0 ? x->gflops : x->gbps) / top;
    x->bound = bound_by(r, x, flops, bytes);
    x->gflops_per_j = x->gbps_per_j = 0.0;
    if (x->has_machine && x->machine.joules > 0) {
        x->gflops_per_j = flops * 1e-9 / x->machine.joules;
        x->gbps_per_j = bytes * 1e-9 / x->machine.joules;
    }
    if (r->ladder && !x->on_host && first > 0)
        x->speedup_first = first / x->median_s;
    if (r->ladder && host > 0)
        x->speedup_host = host / x->median_s;
}

void kl_report_finish(struct kl_report *r)
{
    double first, host;
    base_times(r, &first, &host);
    for (int i = 0; i < r->count; i++) {
        struct kl_result *x = &r->results[i];
        x->gflops = x->gbps = x->speedup_first = x->speedup_host = x->pct_ceiling = 0.0;
        if (has_time(x))
            row_metrics(r, x, first, host);
    }
}

double kl_report_roof(const struct kl_report *r, const struct kl_result *x, double *work)
{
    double flops = kl_result_flops(r, x), bytes = kl_result_bytes(r, x);
    *work = flops > 0 ? flops : bytes;
    return roof(r, x, flops, bytes) * 1e9;
}

void kl_report_load_ceilings(struct kl_report *r)
{
    char warn[512], from[512];
    int got = kl_ceilings_load(&r->device, r->backend, &r->ceilings, warn, sizeof warn);
    /* Each roof the device's best of its kind, whatever backend measured it. */
    int others = kl_ceilings_best(&r->device, r->backend, &r->ceilings, from, sizeof from);
    char roofs[640];
    r->have_ceilings = got == 1 || others > 0;
    kl_ceilings_summary(&r->ceilings, roofs, sizeof roofs);
    if (got == 1 || others > 0)
        snprintf(r->ceiling_note, sizeof r->ceiling_note, "%s (%s, %s%s%s)", roofs,
                 got == 1 ? kl_ceilings_source(&r->ceilings) : "none through this backend",
                 r->ceilings.date, others ? "; " : "", from);
    else
        snprintf(r->ceiling_note, sizeof r->ceiling_note,
                 "%s%snone measured for this device: `kladder peak` measures them",
                 got < 0 ? warn : "", got < 0 ? "; " : "");
}

int kl_report_failed(const struct kl_report *r)
{
    for (int i = 0; i < r->count; i++)
        if (r->results[i].status == KL_RESULT_FAILED)
            return 1;
    return 0;
}
