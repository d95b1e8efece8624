/*
 * A run's JSON report with its provenance (docs/kladder-run.schema.json):
 * every row's figures, launch times, machine and inputs.
 */
#include "report/write.h"

#include <math.h>
#include <string.h>

#include "formats/json.h"
#include "core/measure.h"
#include "core/nvml.h"
#include "report/fields.h"

#define json_str kl_json_write_string /* formats/json.h */

/* JSON has no NaN or infinity: such values become null. */
static void json_num(FILE *out, double v, int show)
{
    kl_json_write_number(out, show ? v : NAN);
}

static void json_kv(FILE *out, const char *indent, const char *key, const char *value,
                    const char *end)
{
    fprintf(out, "%s\"%s\": ", indent, key);
    json_str(out, value);
    fputs(end, out);
}

/* , "key": v, or null unless show (v finite). */
static void json_field(FILE *out, const char *key, double v, int show)
{
    fprintf(out, ", \"%s\": ", key);
    json_num(out, v, show);
}

/* A kernel's resources (report/fields.h): what the API told, null where unknown (< 0). */
static void json_resources(FILE *out, const struct kl_resources *q)
{
    for (int i = 0; i < kl_kernel_field_count; i++) {
        const struct kl_kernel_field *f = &kl_kernel_fields[i];
        double v = kl_slot_get(q, f->res);
        fprintf(out, "%s\"%s\": ", i ? ", " : "", f->key);
        if (f->res.type == KL_SLOT_REAL)
            json_num(out, v, v >= 0);
        else if (kl_kernel_res_known(f, q))
            fprintf(out, "%.0f", v);
        else
            fputs("null", out);
    }
}

/* {"sm_mhz", "sm_mhz_min" (where >= 0), "mem_mhz"} in MHz, or null when not shown. */
static void json_clocks(FILE *out, int show, double sm, double sm_min, double mem)
{
    if (!show) {
        fputs("null", out);
        return;
    }
    fputs("{\"sm_mhz\": ", out);
    json_num(out, sm, 1);
    if (sm_min >= 0) {
        json_field(out, "sm_mhz_min", sm_min, 1);
    }
    json_field(out, "mem_mhz", mem, mem >= 0);
    fputc('}', out);
}

/*
 * The roofs the run used: "ceiling_values", every figure of the ceilings
 * table by key (null where not measured), and "ceiling_figures", the same
 * figures with their unit, kind, label and method, and the device's
 * specification where kladder knows it.
 */
static void json_ceilings(FILE *out, const struct kl_report *r)
{
    static const char *const kinds[] = {"memory",  "fma",    "tensor",   "cache", "latency",
                                        "atomic",  "launch", "transfer", "spread"};
    const struct kl_ceilings *c = &r->ceilings;
    fputs("  \"ceiling_values\": {", out);
    for (int i = 0; i < kl_ceiling_count; i++) {
        double v = kl_ceiling_value(c, &kl_ceiling_defs[i]);
        fprintf(out, "\"%s\": ", kl_ceiling_defs[i].key);
        json_num(out, v, v > 0);
        fputs(", ", out);
    }
    json_kv(out, "", "date", c->date, ", ");
    json_kv(out, "", "source", kl_ceilings_source(c), "},\n");
    fputs("  \"ceiling_figures\": [\n", out);
    for (int i = 0; i < kl_ceiling_count; i++) {
        const struct kl_ceiling_def *d = &kl_ceiling_defs[i];
        char basis[256];
        double v = kl_ceiling_value(c, d);
        double spec = kl_ceiling_spec(d, &r->device, basis, sizeof basis);
        fputs("    {", out);
        json_kv(out, "", "key", d->key, ", ");
        fputs("\"value\": ", out);
        json_num(out, v, v > 0);
        fputs(", ", out);
        json_kv(out, "", "unit", d->unit, ", ");
        json_kv(out, "", "kind", kinds[d->kind], ", ");
        json_kv(out, "", "label", d->label, ", ");
        json_kv(out, "", "method", d->method, ", ");
        fputs("\"spec\": ", out);
        json_num(out, spec, spec > 0);
        fputs(", ", out);
        json_kv(out, "", "spec_basis", basis, i + 1 < kl_ceiling_count ? "},\n" : "}\n");
    }
    fputs("  ],\n", out);
}

/* A string, or null where there is none. */
static void json_str_or_null(FILE *out, const char *s)
{
    if (s && s[0])
        json_str(out, s);
    else
        fputs("null", out);
}

/* The resources of each kernel the row's launches ran, or null where none are known. */
static void json_kernels(FILE *out, const struct kl_machine *m, int on)
{
    if (!on || !m->nkernels) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    for (int k = 0; k < m->nkernels; k++) {
        const struct kl_resources *q = &m->res[k];
        fputs(k ? ", {" : "{", out);
        json_resources(out, q);
        fputs(", \"limiter\": ", out);
        json_str_or_null(out, q->limiter);
        fputs(", ", out);
        json_kv(out, "", "note", q->why, "}");
    }
    fputc(']', out);
}

/* The clock-event reasons NVML saw while timing, and whether they capped the clocks. */
static void json_clock_events(FILE *out, const struct kl_machine *m, int on)
{
    char reasons[256];
    fputs(", \"clock_events\": ", out);
    if (!on || !m->samples) {
        fputs("null, \"capped\": null", out);
        return;
    }
    kl_nvml_reason_names(m->reasons, reasons, sizeof reasons);
    fputc('[', out);
    for (char *p = reasons, *next; *p; p = next) {
        next = p + strcspn(p, ",");
        fprintf(out, "%s\"%.*s\"", p == reasons ? "" : ", ", (int)(next - p), p);
        next += *next == ',';
    }
    fprintf(out, "], \"capped\": %s", m->capped ? "true" : "false");
}

/* Every timed launch's time, in order, and the SM clock after each (MHz), or null. */
static void json_samples(FILE *out, const struct kl_result *x, int ok)
{
    fputs("\"samples\": ", out);
    if (!ok || x->nsamples <= 0) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    for (int k = 0; k < x->nsamples; k++)
        fprintf(out, k ? ", %.6g" : "%.6g", x->samples[k]);
    fputs("], \"sample_clocks_mhz\": ", out);
    if (!x->clocks) {
        fputs("null", out);
        return;
    }
    fputc('[', out);
    for (int k = 0; k < x->nsamples; k++) {
        fputs(k ? ", " : "", out);
        if (x->clocks[k] >= 0)
            fprintf(out, "%.0f", x->clocks[k]);
        else
            fputs("null", out);
    }
    fputc(']', out);
}

/*
 * A row's machine (schema version 2): what bounds it, its kernels' resources,
 * the clocks, power and energy while it was timed (report/fields.h), and
 * every timed launch.
 */
static void json_machine(FILE *out, const struct kl_result *x, int ok)
{
    const struct kl_machine *m = &x->machine;
    int on = ok && x->has_machine;
    fputs(", \"bound\": ", out);
    json_str_or_null(out, ok ? x->bound : NULL);
    fputs(", \"resources\": ", out);
    json_kernels(out, m, on);
    fputs(", ", out);
    json_kv(out, "", "resources_note", on ? m->res_why : "not timed", ", ");
    fputs("\"clocks\": ", out);
    json_clocks(out, on && m->samples, m->sm_mhz, m->sm_mhz_min, m->mem_mhz);
    for (int i = 0; i < kl_machine_field_count; i++)
        json_field(out, kl_machine_fields[i].key, kl_slot_get(x, kl_machine_fields[i].result),
                   kl_machine_shown(&kl_machine_fields[i], x));
    json_clock_events(out, m, on);
    fputs(", ", out);
    json_kv(out, "", "machine_note", on ? m->why : "not timed", ", ");
    json_samples(out, x, ok);
}

/* A row's numbers (report/fields.h): null where not shown, a count 0. */
static void json_numbers(FILE *out, const struct kl_report *r, const struct kl_result *x)
{
    for (int i = 0; i < kl_result_field_count; i++) {
        const struct kl_result_field *f = &kl_result_fields[i];
        double v = kl_field_value(f, r, x);
        int show = kl_field_shown(f, r, x);
        if ((f->flags & KL_FIELD_ITEMS) && !(r->items > 0))
            continue;
        if (f->flags & KL_FIELD_ITEMS)
            fprintf(out, ", \"items_unit\": \"%s\"", r->items_unit);
        if (f->flags & KL_FIELD_NEVER_NULL)
            fprintf(out, ", \"%s\": %.0f", f->key, show ? v : 0);
        else
            json_field(out, f->key, v, show);
    }
}

/* What the compilers said about the run's successful builds; nothing when they said nothing. */
static void json_build_logs(FILE *out, const struct kl_report *r)
{
    if (!r->nbuild_logs)
        return;
    fputs("  \"build_logs\": [", out);
    for (int i = 0; i < r->nbuild_logs; i++) {
        const struct kl_build_log *b = &r->build_logs[i];
        fputs(i ? ",\n    {" : "\n    {", out);
        json_kv(out, "", "kernel", b->kernel, ", ");
        json_kv(out, "", "options", b->options, ", ");
        json_kv(out, "", "log", b->log, "}");
    }
    fputs("\n  ],\n", out);
}

/* Where and with what the run was made: the kladder build, the host, the GPU's clocks. */
static void json_provenance(FILE *out, const struct kl_report *r)
{
    fputs("  \"provenance\": {", out);
    json_kv(out, "", "kladder_version", KLADDER_VERSION, ", ");
    json_kv(out, "", "kladder_revision", KLADDER_REVISION, ", ");
    json_kv(out, "", "backend", r->backend, ", ");
    json_kv(out, "", "driver", r->device.driver_version, ", ");
    json_kv(out, "", "date", r->date, ", ");
    json_kv(out, "", "host", r->host, ", ");
    json_kv(out, "", "cpu", r->cpu, ", ");
    json_kv(out, "", "os", r->os, ", ");
    fputs("\"clocks_at_start\": ", out);
    json_clocks(out, r->start_sm_mhz >= 0, r->start_sm_mhz, -1, r->start_mem_mhz);
    fputs("}\n}\n", out);
}

/* A device fact's value as the JSON writes it (report/fields.h); at: where the device keeps it. */
static void device_value(FILE *out, enum kl_device_type type, const char *at)
{
    unsigned u;
    uint64_t u64;
    size_t z;
    int flag;
    switch (type) {
    case KL_DEV_TEXT: json_str(out, at); break;
    case KL_DEV_TEXT_OR_NULL: json_str_or_null(out, at); break;
    case KL_DEV_UINT:
        memcpy(&u, at, sizeof u);
        fprintf(out, "%u", u);
        break;
    case KL_DEV_U64:
        memcpy(&u64, at, sizeof u64);
        fprintf(out, "%llu", (unsigned long long)u64);
        break;
    case KL_DEV_SIZE:
        memcpy(&z, at, sizeof z);
        fprintf(out, "%zu", z);
        break;
    case KL_DEV_FLAG:
        memcpy(&flag, at, sizeof flag);
        fputs(flag ? "true" : "false", out);
        break;
    }
}

/* The device the run was made on: what the API told of it, fact by fact. */
static void json_device(FILE *out, const struct kl_device_info *d)
{
    fputs("  \"device\": {\n", out);
    for (int i = 0; i < kl_device_field_count; i++) {
        fprintf(out, "    \"%s\": ", kl_device_fields[i].key);
        device_value(out, kl_device_fields[i].type, (const char *)d + kl_device_fields[i].at);
        fputs(i + 1 < kl_device_field_count ? ",\n" : "\n", out);
    }
    fputs("  },\n", out);
}

/* blur's pictures: the one read (null: generated) and the one written (null: none). */
static void json_images(FILE *out, const struct kl_report *r)
{
    fputs("  \"images\": {\"input\": ", out);
    if (r->image_in)
        json_str(out, r->image_in);
    else
        fputs("null", out);
    fputs(", \"output\": ", out);
    if (r->image_out)
        json_str(out, r->image_out);
    else
        fputs("null", out);
    fputs("},\n", out);
}

/* A number, or null where it is negative (unknown). */
static void json_known(FILE *out, const char *key, double v, const char *end)
{
    fprintf(out, "\"%s\": ", key);
    json_num(out, v, v >= 0);
    fputs(end, out);
}

/* A flag NVML gave as 1, 0 or -1 (unknown: null). */
static void json_flag(FILE *out, const char *key, int flag, const char *end)
{
    fprintf(out, "\"%s\": %s%s", key, flag > 0 ? "true" : flag == 0 ? "false" : "null", end);
}

/* The conditions the run was made in: the GPU's (NVML; null where unknown) and the inputs'. */
static void json_conditions(FILE *out, const struct kl_report *r)
{
    const struct kl_conditions *c = &r->conditions;
    fputs("  \"conditions\": {", out);
    if (c->known) {
        json_known(out, "locked_mhz", c->locked_mhz, ", ");
        json_known(out, "sm_max_mhz", c->sm_max_mhz, ", ");
        json_flag(out, "ecc", c->ecc, ", ");
        json_flag(out, "persistence", c->persistence, ", ");
        json_known(out, "power_limit_w", c->power_limit_w, ", ");
        json_known(out, "temperature_start_c", c->temperature_c, ", ");
        json_known(out, "temperature_end_c", r->end_temperature_c, ", ");
        json_kv(out, "", "lock_note", c->lock_why, ", ");
    } else {
        json_kv(out, "", "note", c->why, ", ");
    }
    json_kv(out, "", "inputs", r->inputs, "},\n");
}

/* A soak's iterations, one object each; nothing for other runs. */
static void json_trace(FILE *out, const struct kl_report *r)
{
    char reasons[256];
    if (!r->ntrace)
        return;
    json_kv(out, "  ", "health", r->health, ",\n");
    fputs("  \"trace\": [", out);
    for (int i = 0; i < r->ntrace; i++) {
        const struct kl_trace_point *p = &r->trace[i];
        fprintf(out, "%s\n    {\"t_s\": %.6g, \"gemm_s\": ", i ? "," : "", p->t);
        json_num(out, p->gemm_s, isfinite(p->gemm_s));
        fputs(", \"copy_s\": ", out);
        json_num(out, p->copy_s, isfinite(p->copy_s));
        fputs(", ", out);
        json_known(out, "sm_mhz", p->sm_mhz, ", ");
        json_known(out, "temperature_c", p->temperature_c, ", ");
        json_known(out, "power_w", p->watts, ", ");
        kl_nvml_reason_names(p->reasons, reasons, sizeof reasons);
        json_kv(out, "", "clock_events", reasons, ", ");
        fprintf(out, "\"wrong\": %s}", p->wrong ? "true" : "false");
    }
    fputs("\n  ],\n", out);
}

/*
 * What a rung built, for the article: "source" (its kernel file and the hash
 * of its text, null for a host rung, a peer or a row not run through the
 * engine) and "values" (each parameter's value and where it came from).
 */
static void json_inputs(FILE *out, const struct kl_result *x)
{
    if (x->source_file[0]) {
        fputs("\"source\": {", out);
        json_kv(out, "", "file", x->source_file, ", ");
        json_kv(out, "", "hash", x->source_hash, "}, ");
    } else {
        fputs("\"source\": null, ", out);
    }
    fputs("\"values\": [", out);
    for (int k = 0; k < x->nvalues; k++) {
        fprintf(out, "%s{", k ? ", " : "");
        json_kv(out, "", "name", x->values[k].name, ", ");
        fprintf(out, "\"value\": %d, ", x->values[k].value);
        json_kv(out, "", "from", x->values[k].from, "}");
    }
    fputs("], ", out);
    if (x->nruns > 1) { /* --runs: the samples, run after run, and where each run falls */
        fputs("\"runs\": [", out);
        for (int k = 0; k < x->nruns; k++)
            fprintf(out, "%s{\"seq\": %d, \"launches\": %d, \"median_s\": %.9g}", k ? ", " : "",
                    x->run_seq[k], x->run_n[k], x->run_median[k]);
        fprintf(out, "], \"run_spread\": %.6g, ", x->run_spread);
    }
}

/* One result row: what it is, its numbers (report/fields.h), its notes and its machine. */
static void json_result(FILE *out, const struct kl_report *r, const struct kl_result *x)
{
    int ok = kl_result_timed(x);
    json_kv(out, "", "rung", x->rung, ", ");
    json_kv(out, "", "config", x->config, ", ");
    json_kv(out, "", "status", kl_result_status_name(x->status), ", ");
    const char *prec = kl_precision_name(x->precision);
    if (prec)
        json_kv(out, "", "precision", prec, ", ");
    else
        fputs("\"precision\": null, ", out);
    fprintf(out, "\"tensor\": %s, \"error\": ",
            !x->fma && (x->tensor || kl_precision_tensor_only(x->precision)) ? "true" : "false");
    json_num(out, x->error, kl_result_has_error(x));
    if (x->sum_span > 0) /* FP8: K summed in the tensor cores between promotions */
        fprintf(out, ", \"sum_span\": %d", x->sum_span);
    fputs(", ", out);
    json_kv(out, "", "summary", x->summary ? x->summary : "", ", ");
    fprintf(out, "\"on_host\": %s, \"peer\": %s", x->on_host ? "true" : "false",
            x->peer ? "true" : "false");
    json_numbers(out, r, x);
    fputs(", ", out);
    json_kv(out, "", "build_options", x->options, ", ");
    json_inputs(out, x);
    json_kv(out, "", "note", x->note, "");
    json_machine(out, x, ok);
}

void kl_report_json(const struct kl_report *r, FILE *out)
{
    fputs("{\n", out);
    /* The format is described by docs/kladder-run.schema.json; readers check the version. */
    fprintf(out, "  \"schema_version\": %d,\n", KL_REPORT_SCHEMA_VERSION);
    if (r->stopped[0]) { /* the rows measured before the run was stopped */
        fputs("  \"interrupted\": true,\n", out);
        json_kv(out, "  ", "stopped_by", r->stopped, ",\n");
    }
    json_kv(out, "  ", "workload", r->workload, ",\n");
    json_device(out, &r->device);
    fprintf(out, "  \"params\": {%s, \"type\": \"%s\", \"seed\": %llu},\n", r->size_json,
            kl_type_name(r->type), r->seed);
    fprintf(out, "  \"flops_per_launch\": %.17g,\n  \"bytes_per_launch\": %.17g,\n", r->flops,
            r->bytes);
    fprintf(out, "  \"memory_roof\": \"%s\",\n", r->read_roof ? "read" : "copy");
    json_kv(out, "  ", "reference", r->reference, ",\n");
    json_kv(out, "  ", "ceilings", r->ceiling_note, ",\n");
    if (r->have_ceilings) {
        json_ceilings(out, r);
    } else {
        fputs("  \"ceiling_values\": null,\n  \"ceiling_figures\": null,\n", out);
    }
    if (r->image_in || r->image_out)
        json_images(out, r);
    fprintf(out,
            "  \"protocol\": {\"warmup\": %d, \"min_repeats\": %d, \"min_time_s\": %.6g, "
            "\"max_repeats\": %d",
            r->protocol.warmup, r->protocol.min_repeats, r->protocol.min_time,
            r->protocol.max_repeats);
    if (r->protocol.noise > 0)
        fprintf(out, ", \"noise\": %.6g, \"max_time_s\": %.6g", r->protocol.noise,
                kl_noise_max_time(&r->protocol));
    if (r->protocol.cold)
        fprintf(out, ", \"cold\": true%s, \"cold_flushes\": %lu",
                r->protocol.cold == KL_COLD_BOTH ? ", \"warm_and_cold\": true" : "",
                r->cold_flushes);
    if (r->protocol.min_clock > 0)
        fprintf(out, ", \"min_clock\": %.6g", r->protocol.min_clock);
    if (r->protocol.cooldown > 0)
        fprintf(out, ", \"cooldown_s\": %.6g", r->protocol.cooldown);
    if (r->protocol.shuffle) {
        fputs(", \"shuffle\": true, ", out);
        json_kv(out, "", "run_order", r->run_order, "");
    }
    if (r->timing[0]) {
        fputs(", ", out);
        json_kv(out, "", "timing", r->timing, "");
    }
    fputs("},\n", out);
    json_conditions(out, r);
    fputs("  \"results\": [\n", out);
    for (int i = 0; i < r->count; i++) {
        fputs("    {", out);
        json_result(out, r, &r->results[i]);
        fputs(i + 1 < r->count ? "},\n" : "}\n", out);
    }
    fputs("  ],\n", out);
    json_trace(out, r);
    json_build_logs(out, r);
    json_provenance(out, r);
}
