/*
 * `kladder peak`: the device's ceilings, measured with simple kernels and
 * verified, like clpeak and BabelStream measure them, so that every other
 * rung can be reported as a fraction of what this device really does. This
 * file: the whole measurement, each part in its turn, and the cached
 * figures' printer; the parts are named in peak/parts.h.
 */
#include "workloads/peak/peak.h"
#include "workloads/peak/parts.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "formats/json.h"
#include "core/measure.h"
#include "core/progress.h"
#include "core/util.h"

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
    char size[32];
    kl_bytes_text((double)bytes, size, sizeof size);
    snprintf(rep->sizes, sizeof rep->sizes, "buffers of %s", size);
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
    kl_progress_step(15, 17,
                     req->brief ? "peak: FMA rate (FP32); the tensor cores (TF32)"
                                : "peak: FMA rate, FP32, FP64 and INT32; the tensor cores; "
                                  "FP16x2");
    if ((st = kl_peak_fma(kl, req, rep, c)) != KL_OK)
        return st;
    if (!req->brief && (st = kl_peak_packed_half(kl, req, rep, c)) != KL_OK)
        return st;
    return kl_peak_tensor(kl, req, rep, c);
}

/* 1 for a device-memory bandwidth row: copy, read or write, at one vector width or the best. */
static int bandwidth_row(const char *name)
{
    static const char *const kinds[] = {"copy", "read", "write"};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(kinds[k]);
        if (strncmp(name, kinds[k], n) == 0 && (name[n] == '\0' || strncmp(name + n, "_v", 2) == 0))
            return 1;
    }
    return 0;
}

/*
 * The run-to-run spread of each kind of row: the largest final-runs spread
 * (kl_peak_final) among the verified rows of that kind, as a percentage.
 */
static void spreads(const struct kl_report *rep, struct kl_ceilings *c)
{
    for (int i = 0; i < rep->count; i++) {
        const struct kl_result *x = &rep->results[i];
        double pct = 100 * x->run_spread, *into;
        if (x->status != KL_RESULT_VERIFIED || !(pct > 0))
            continue;
        into = x->tensor                   ? &c->spread_tensor_pct
               : x->flops > 0              ? &c->spread_fma_pct
               : bandwidth_row(x->rung)    ? &c->spread_memory_pct
                                           : NULL;
        if (into && pct > *into)
            *into = pct;
    }
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
        char upto[32];
        kl_bytes_text((double)bytes, upto, sizeof upto);
        snprintf(rep->sizes, sizeof rep->sizes, "transfers from 4 KiB to %s", upto);
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

    /* Memory: every kind × vector width (brief: the copy); the best of each kind is its
     * ceiling. */
    if ((st = kl_peak_bandwidth(kl, req, bytes, vec_mask, rep, c)) != KL_OK ||
        (st = measure_arithmetic(kl, req, rep, c)) != KL_OK)
        return st;
    if (!req->brief) { /* no row of the main job is judged by these */
        kl_progress_step(16, 17, "peak: the memory hierarchy");
        if ((st = kl_peak_memory(kl, req, rep, c)) != KL_OK)
            return st;
        kl_progress_step(16, 17, "peak: launch latency and transfers");
        if ((st = kl_peak_launches(kl, req, bytes, rep, c)) != KL_OK)
            return st;
        spreads(rep, c); /* the brief search's finals, short and back to back, understate it */
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
        kl_bytes_text(v, out, n);
    else
        snprintf(out, n, "%.*f %s", v >= 100 ? 1 : 2, v, d->unit);
}

void kl_ceilings_print(const struct kl_ceilings *c, const struct kl_device_info *dev, int format,
                       FILE *out)
{
    static const char *const kinds[] = {"device memory",  "FMA units", "tensor cores",
                                        "on-chip memory", "latency",   "atomics",
                                        "launches",       "transfers", "run-to-run spread"};
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
