/*
 * A run's report for people and programs: the table (with the precision
 * and error summary and the reasons for failures), the sweep matrix and CSV
 * (the JSON report is write_json.c's).
 */
#include "report/write.h"

#include <math.h>
#include <string.h>

#include "formats/json.h"
#include "core/measure.h"
#include "core/nvml.h"
#include "report/fields.h"

/* A number column, or "-" when the value does not exist; under the last place shown, in e form. */
static void cell(FILE *out, int width, int prec, double v, int show)
{
    if (show && v > 0 && v < 0.5 * pow(10, -prec))
        fprintf(out, " %*.2e", width, v);
    else if (show)
        fprintf(out, " %*.*f", width, prec, v);
    else
        fprintf(out, " %*s", width, "-");
}

/* 1 if any row declares its precision: the table then shows it and the measured error. */
static int has_precision(const struct kl_report *r)
{
    for (int i = 0; i < r->count; i++)
        if (r->results[i].precision != KL_PREC_NONE)
            return 1;
    return 0;
}

/*
 * The fastest verified rung of precision p (like NULL), or the fastest verified peer
 * whose results meet the same tolerance as like's: of its precision class, and of its
 * sums where FP8's (kl_peer_likeness: alike first, else coarser); NULL where none.
 */
static const struct kl_result *fastest(const struct kl_report *r, enum kl_precision p,
                                       const struct kl_result *like)
{
    const struct kl_result *best = NULL;
    int best_level = 0;
    for (int i = 0; i < r->count; i++) {
        const struct kl_result *x = &r->results[i];
        int level = !like ? x->precision == p
                    : kl_precision_class(x->precision) == kl_precision_class(p)
                        ? kl_peer_likeness(like->sum_span, x->sum_span)
                        : 0;
        if (x->status != KL_RESULT_VERIFIED || !(x->gflops > 0) || !x->peer != !like ||
            level == 0 || level < best_level)
            continue;
        if (!best || level > best_level || x->gflops > best->gflops)
            best = x, best_level = level;
    }
    return best;
}

/*
 * The fastest verified rung of each precision, with its error, beside the
 * fastest peer whose results meet the same tolerance (fp32 and 3xtf32 are
 * one class: both float-accurate; FP8's sums promoted as often), so a TF32
 * speed is never read as fp32's.
 */
static void precision_summary(const struct kl_report *r, FILE *out)
{
    static const enum kl_precision order[] = {
        KL_PREC_FP32, KL_PREC_TF32, KL_PREC_3XTF32, KL_PREC_OZAKI8,  KL_PREC_FP64, KL_PREC_INT32,
        KL_PREC_FP16, KL_PREC_BF16, KL_PREC_FP8,    KL_PREC_FP8E5M2, KL_PREC_INT8};
    int lines = 0;
    for (size_t p = 0; p < sizeof order / sizeof *order; p++) {
        const struct kl_result *best = fastest(r, order[p], NULL);
        const struct kl_result *peer = best ? fastest(r, order[p], best) : NULL;
        if (!best)
            continue;
        if (!lines++)
            fprintf(out, "\nfastest verified rung of each precision:\n");
        int iops = order[p] == KL_PREC_INT32 || order[p] == KL_PREC_INT8;
        fprintf(out, "  %-6s %-18s %10.1f %s  error %.1e", kl_precision_name(order[p]), best->rung,
                best->gflops, iops ? "GIOP/s" : "GFLOP/s", best->error);
        if (peer)
            fprintf(out, "  %.2fx %s (%s)", best->gflops / peer->gflops, peer->rung,
                    kl_precision_name(peer->precision));
        fputc('\n', out);
    }
}

/* A row whose machine was observed: a device row timed, with what its launches saw (a kernel
 * of kladder's or NVML's readings; not a line of dashes). */
static int observed(const struct kl_result *x)
{
    return kl_result_timed(x) && x->has_machine && !x->on_host &&
           (x->machine.nkernels > 0 || x->machine.samples > 0);
}

/* The machine block's header; energy: its energy columns too. */
static void machine_header(const struct kl_report *r, FILE *out, int energy)
{
    fprintf(out, "\n%-18s %-9s", "machine", "bound");
    for (int c = 1; kl_kernel_column(c); c++)
        if (kl_kernel_column(c)->header)
            fprintf(out, " %*s", kl_kernel_column(c)->width, kl_kernel_column(c)->header);
    fprintf(out, " %6s %-9s %8s %6s", "occup", "limiter", "SM MHz", "W");
    if (energy)
        fprintf(out, " %10s %9s", "mJ/launch", r->flops > 0 ? "GFLOP/J" : "GB/J");
    fputc('\n', out);
}

/* A kernel's resources (report/fields.h), its occupancy and what limits it; q NULL: none. */
static void kernel_cells(FILE *out, const struct kl_resources *q)
{
    for (int c = 1; kl_kernel_column(c); c++) {
        const struct kl_kernel_field *f = kl_kernel_column(c);
        if (f->header)
            cell(out, f->width, 0, q ? kl_kernel_res_column(f, q) : 0,
                 q && kl_kernel_res_known(f, q));
    }
    if (q && q->occupancy >= 0)
        fprintf(out, " %5.1f%% %-9s", 100 * q->occupancy, q->limiter);
    else
        fprintf(out, " %6s %-9s", "-", "-");
}

/*
 * The clocks, power and energy while row x was timed, and what capped the
 * clocks: on its first line (first), "-" on a second kernel's.
 */
static void timing_cells(const struct kl_report *r, const struct kl_result *x, FILE *out,
                         int energy, int first)
{
    const struct kl_machine *m = &x->machine;
    cell(out, 8, 0, m->sm_mhz, first && m->samples);
    cell(out, 6, 1, m->watts, first && m->samples);
    if (energy && first && m->joules > 0)
        fprintf(out, " %10.4g %9.4g", 1e3 * m->joules,
                r->flops > 0 ? x->gflops_per_j : x->gbps_per_j);
    else if (energy)
        fprintf(out, " %10s %9s", "-", "-");
    if (first && m->capped) {
        char reasons[256];
        kl_nvml_reason_names(m->reasons, reasons, sizeof reasons);
        fprintf(out, "  capped: %s", reasons);
    }
    if (first && m->retaken) /* --min-clock */
        fprintf(out, "  %d launches taken again for a low clock%s", m->retaken,
                m->low_kept ? ", then kept under it" : "");
}

/* Row x's lines: one a kernel it ran (one where none), the row's figures on the first. */
static void machine_lines(const struct kl_report *r, const struct kl_result *x, FILE *out,
                          int energy)
{
    const struct kl_machine *m = &x->machine;
    for (int k = 0; k < (m->nkernels ? m->nkernels : 1); k++) {
        fprintf(out, "%-18s %-9s", k ? "  (second kernel)" : x->rung,
                !k && x->bound ? x->bound : "-");
        kernel_cells(out, m->nkernels ? &m->res[k] : NULL);
        timing_cells(r, x, out, energy, !k);
        fputc('\n', out);
    }
}

/*
 * Each distinct reason something is missing, once: they are the device's, so usually alike.
 * Energy's only where it was asked for (--energy: rows timed long enough for the counter).
 */
static void machine_reasons(const struct kl_report *r, FILE *out)
{
    const char *said[8];
    int nsaid = 0, energy = r->protocol.min_time >= KL_ENERGY_STEADY_S;
    for (int i = 0; i < r->count; i++) {
        const struct kl_result *x = &r->results[i];
        const char *why[2 + KL_MACHINE_KERNELS] = {x->machine.res_why, x->machine.why};
        for (int k = 0; k < x->machine.nkernels; k++)
            why[2 + k] = x->machine.res[k].why;
        for (int k = 0; k < 2 + x->machine.nkernels && observed(x); k++) {
            int seen = !why[k][0] || (!energy && strncmp(why[k], "no energy", 9) == 0);
            for (int j = 0; j < nsaid && !seen; j++)
                seen = strcmp(said[j], why[k]) == 0;
            if (!seen && nsaid < 8)
                fprintf(out, "machine: %s\n", said[nsaid++] = why[k]);
        }
    }
}

/*
 * The machine behind each timed row, where any was observed: what bounds it,
 * its kernel's registers, private and shared memory, threads and occupancy
 * with what limits it, the SM clock and power while timed, and the energy per
 * launch; then each distinct reason something is missing, once.
 */
static void machine_block(const struct kl_report *r, FILE *out)
{
    int any = 0, energy = 0;
    for (int i = 0; i < r->count; i++) {
        any |= observed(&r->results[i]);
        energy |= observed(&r->results[i]) && r->results[i].machine.joules > 0;
    }
    if (!any)
        return;
    machine_header(r, out, energy);
    for (int i = 0; i < r->count; i++)
        if (observed(&r->results[i]))
            machine_lines(r, &r->results[i], out, energy);
    machine_reasons(r, out);
    fprintf(out,
            "bound: the roof a row comes closest to, where it reaches half of it (memory: "
            "bytes against the %s bandwidth; compute: FLOPs against its precision's peak); "
            "latency where it reaches neither. occup: resident warps over a compute unit's "
            "most, by the kernel's registers, shared memory and threads.\n",
            r->read_roof ? "read" : "copy");
}

/* The headers of the table's number columns (report/fields.h), one space apart. */
static void table_header(const struct kl_report *r, FILE *out)
{
    int n = 0;
    for (int i = 0; i < kl_result_field_count; i++) {
        const struct kl_result_field *f = kl_field_table_column(&kl_result_fields[i], r->items > 0);
        if (!f)
            continue;
        fprintf(out, "%s%*s", n++ ? " " : "", f->width,
                f->flags & KL_FIELD_ITEMS ? r->items_unit : f->header);
    }
    fputc('\n', out);
}

/* A row's number cells, "-" where a field is not shown. */
static void table_cells(const struct kl_report *r, const struct kl_result *x, FILE *out)
{
    for (int i = 0; i < kl_result_field_count; i++) {
        const struct kl_result_field *f = kl_field_table_column(&kl_result_fields[i], r->items > 0);
        if (f)
            cell(out, f->width, f->prec, kl_field_value(f, r, x) * f->scale,
                 kl_field_in_table(f, r, x));
    }
}

/* The config column's width: the longest config, where the report shows them; 0 none. */
static int config_width(const struct kl_report *r)
{
    int cfg = 0;
    for (int i = 0; i < r->count && r->show_config; i++) {
        int n = (int)strlen(r->results[i].config);
        cfg = n > cfg ? n : cfg;
    }
    return cfg;
}

/*
 * How many rows from i on the table folds into one: 3 or more in a row
 * skipped for one reason (a CPU's nine CUDA rungs); 0 where none are.
 */
static int folded(const struct kl_report *r, int i)
{
    int n = 0;
    while (i + n < r->count && r->results[i + n].status == KL_RESULT_SKIPPED &&
           strcmp(r->results[i + n].note, r->results[i].note) == 0)
        n++;
    return n >= 3 ? n : 0;
}

/* The name of n rows from x folded into one: "14..22, 9 rungs" where they are numbered, else
 * "host_ijk..host_kji". */
static void folded_name(const struct kl_result *x, int n, char *out, size_t len)
{
    const char *last = x[n - 1].rung;
    size_t a = strspn(x->rung, "0123456789"), b = strspn(last, "0123456789");
    if (a && b)
        snprintf(out, len, "%.*s..%.*s, %d rungs", (int)a, x->rung, (int)b, last, n);
    else
        snprintf(out, len, "%s..%s", x->rung, last);
}

/* One row (n rows folded into it where n > 1): rung, config, status, precision and error,
 * then its numbers. */
static void table_row(const struct kl_report *r, const struct kl_result *x, int n, FILE *out,
                      int cfg, int prec)
{
    char name[2 * sizeof x->rung + 16];
    if (n > 1)
        folded_name(x, n, name, sizeof name);
    fprintf(out, "%-18s ", n > 1 ? name : x->rung);
    if (cfg)
        fprintf(out, "%-*s ", cfg, x->config);
    fprintf(out, "%-8s", kl_result_status_name(x->status));
    if (prec) {
        const char *arith = n > 1 ? NULL : kl_precision_name(x->precision);
        fprintf(out, " %-7s", arith ? arith : "-");
        if (kl_result_has_error(x))
            fprintf(out, " %7.1e", x->error);
        else
            fprintf(out, " %7s", "-");
    }
    table_cells(r, x, out);
    fputc('\n', out);
}

/* Why each row that has no timing failed or was skipped (once for rows folded together). */
static void table_notes(const struct kl_report *r, FILE *out)
{
    int notes = 0;
    for (int i = 0; i < r->count; i++) {
        const struct kl_result *x = &r->results[i];
        int n = folded(r, i);
        if (kl_result_timed(x) || !x->note[0])
            continue;
        if (!notes++)
            fputc('\n', out);
        if (n)
            fprintf(out, "%s to %s (%d rungs) %s: %s\n", x->rung, x[n - 1].rung, n,
                    kl_result_status_name(x->status), x->note);
        else
            fprintf(out, "%s %s: %s\n", x->rung, kl_result_status_name(x->status), x->note);
        i += n ? n - 1 : 0;
    }
}

/*
 * With a noise target: whether every timed device row reached it, or which stopped at the
 * time limit (or the launch cap) above it, with the noise they reached.
 */
static void noise_notes(const struct kl_report *r, FILE *out)
{
    char list[1024] = "";
    int timed = 0, short_of = 0;
    if (!(r->protocol.noise > 0))
        return;
    for (int i = 0; i < r->count; i++) {
        const struct kl_result *x = &r->results[i];
        if (!kl_result_timed(x) || x->on_host)
            continue;
        timed++;
        if (x->noise <= r->protocol.noise)
            continue;
        size_t used = strlen(list);
        if (used + 1 < sizeof list)
            snprintf(list + used, sizeof list - used,
                     isnan(x->noise) ? "%s%s (too few launches to tell)" : "%s%s (%.2g %%)",
                     short_of ? ", " : "", x->rung, x->noise * 100);
        short_of++;
    }
    if (!timed)
        return;
    if (!short_of)
        fprintf(out,
                "\nnoise: every timed row reached %.3g %% (the median's relative standard "
                "error).\n",
                r->protocol.noise * 100);
    else if (r->workload && strcmp(r->workload, "soak") == 0) /* a row's samples: iterations */
        fprintf(out,
                "\nnoise: %d of %d rows' medians over their iterations are above the %.3g %% "
                "target (each iteration's launches went on until theirs met it, or %.3g s): "
                "%s.\n",
                short_of, timed, r->protocol.noise * 100, kl_noise_max_time(&r->protocol), list);
    else
        fprintf(out,
                "\nnoise: %d of %d timed rows stopped at %.3g s or %d launches above the %.3g %% "
                "target: %s.\n",
                short_of, timed, kl_noise_max_time(&r->protocol), r->protocol.max_repeats,
                r->protocol.noise * 100, list);
}

/*
 * --runs: each timed row's figure is the median of its runs' medians; the
 * runs' spread (largest minus smallest median, over their median) of each.
 */
static void runs_notes(const struct kl_report *r, FILE *out)
{
    char list[2048] = "";
    size_t used = 0;
    if (r->protocol.runs < 2)
        return;
    for (int i = 0; i < r->count; i++) {
        const struct kl_result *x = &r->results[i];
        if (kl_result_timed(x) && x->nruns > 1 && used + 1 < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s %.2g %%",
                                     used ? ", " : "", x->rung, x->run_spread * 100);
    }
    fprintf(out,
            "\nruns: each row measured in %d runs, interleaved across the rows; its time is the "
            "median of the runs' medians. Their spread (largest - smallest median, over it): "
            "%s.\n",
            r->protocol.runs, used ? list : "none timed");
}

/* What the columns mean, the compilers' messages, and whether the run was stopped. */
static void table_legend(const struct kl_report *r, FILE *out, int prec)
{
    fprintf(out,
            "\n%% roof: of the measured roofline (min of compute peak and AI x %s "
            "bandwidth); x first: speed-up over the first device rung; x host: over the "
            "fastest host rung; e2e: upload + kernel + download.\n",
            r->read_roof ? "read" : "copy");
    if (prec)
        fprintf(out, "prec: the arithmetic (tf32: inputs rounded to 10 mantissa bits, checked "
                     "against the TF32 tolerance; 3xtf32: each input split into two TF32 parts, "
                     "float-accurate; fp16: packed half2 FMAs, or FP16 inputs on the tensor cores; "
                     "bf16, fp8 (e4m3), fp8e5m2, int8: inputs of the tensor cores, or widened for "
                     "the FMA units on the FMA rungs, against their FP32 or INT32 roof; ozaki8: "
                     "float-accurate from INT8 products of residues (Ozaki scheme II); 3xfp16: "
                     "each value split into two FP16 parts, float-accurate; %% roof is "
                     "against the roof of that arithmetic and unit); error: gemm max |c - ref| / "
                     "sum|a*b| over the elements checked, blur max |out - ref| / full scale.\n");
    if (r->nbuild_logs)
        fprintf(out,
                "compiler: %d build%s printed messages (warnings): the JSON report's build_logs "
                "and the HTML report hold them.\n",
                r->nbuild_logs, r->nbuild_logs == 1 ? "" : "s");
    if (r->stopped[0])
        fprintf(out, "\nINTERRUPTED (%s): the rows above are those measured before the stop.\n",
                r->stopped);
}

void kl_report_table(const struct kl_report *r, FILE *out)
{
    int cfg = config_width(r), prec = has_precision(r);
    kl_report_header(r, out);
    fprintf(out, "%-18s ", "rung");
    if (cfg)
        fprintf(out, "%-*s ", cfg, "config");
    fprintf(out, "%-8s ", "status");
    if (prec)
        fprintf(out, "%-7s %7s ", "prec", "error");
    table_header(r, out);
    for (int i = 0; i < r->count; i++) {
        int n = folded(r, i);
        table_row(r, &r->results[i], n ? n : 1, out, cfg, prec);
        i += n ? n - 1 : 0;
    }
    table_notes(r, out);
    noise_notes(r, out);
    runs_notes(r, out);
    if (prec && r->ladder)
        precision_summary(r, out);
    machine_block(r, out);
    table_legend(r, out, prec);
}

/* The matrix's columns: each rung once, in order of appearance (at most 64); their count. */
static int matrix_columns(const struct kl_report *r, const char *cols[64])
{
    int ncols = 0;
    for (int i = 0; i < r->count; i++) {
        int seen = 0;
        for (int c = 0; c < ncols && !seen; c++)
            seen = strcmp(cols[c], r->results[i].rung) == 0;
        if (!seen && ncols < 64)
            cols[ncols++] = r->results[i].rung;
    }
    return ncols;
}

/* 1 where row i is the first of its x: the matrix's rows. */
static int first_of_x(const struct kl_report *r, int i)
{
    for (int j = 0; j < i; j++)
        if (r->results[j].x == r->results[i].x)
            return 0;
    return 1;
}

/* The result of rung at x, NULL where none. */
static const struct kl_result *matrix_hit(const struct kl_report *r, double x, const char *rung)
{
    for (int j = 0; j < r->count; j++)
        if (r->results[j].x == x && strcmp(r->results[j].rung, rung) == 0)
            return &r->results[j];
    return NULL;
}

void kl_report_matrix(const struct kl_report *r, const char *x_name, FILE *out)
{
    const char *cols[64];
    int ncols = matrix_columns(r, cols);
    kl_report_header(r, out);
    fprintf(out, "GB/s by %s (every cell verified; - where a rung was skipped or failed):\n%12s",
            x_name, x_name);
    int width[64];
    for (int c = 0; c < ncols; c++) {
        width[c] = strlen(cols[c]) > 9 ? (int)strlen(cols[c]) : 9;
        fprintf(out, " %*s", width[c], cols[c]);
    }
    fputc('\n', out);
    for (int i = 0; i < r->count; i++) {
        if (!first_of_x(r, i))
            continue;
        fprintf(out, "%12.0f", r->results[i].x);
        for (int c = 0; c < ncols; c++) {
            const struct kl_result *hit = matrix_hit(r, r->results[i].x, cols[c]);
            /* Launch-bound sizes run below 0.1 GB/s: more decimals, never a false 0.00. */
            cell(out, width[c], hit && hit->gbps < 0.1 ? 4 : 2, hit ? hit->gbps : 0,
                 hit && kl_result_timed(hit));
        }
        fputc('\n', out);
    }
    for (int i = 0; i < r->count; i++)
        if (r->results[i].status == KL_RESULT_FAILED)
            fprintf(out, "%s at %s=%.0f failed: %s\n", r->results[i].rung, x_name, r->results[i].x,
                    r->results[i].note);
    if (strcmp(r->workload, "collectives") == 0)
        fprintf(out, "GB/s: the bus bandwidth, nccl-tests' busbw (algbw = size / time, times "
                     "2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and "
                     "all_to_all, 1 for the others); each row's algbw is in its note (--json, "
                     "--format csv).\n");
}

/* CSV fields are quoted when they hold a comma, quote or newline. */
static void csv_str(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void kl_report_csv(const struct kl_report *r, FILE *out)
{
    fputs("workload,sizes,type,device,rung,config,status,", out);
    for (int i = 0; i < kl_result_field_count; i++)
        if (kl_result_fields[i].flags & KL_FIELD_CSV)
            fprintf(out, "%s,", kl_result_fields[i].key);
    fputs("build_options,note,precision,error\n", out);
    for (int i = 0; i < r->count; i++) {
        const struct kl_result *x = &r->results[i];
        int ok = kl_result_timed(x);
        fprintf(out, "%s,", r->workload);
        csv_str(out, r->sizes);
        fprintf(out, ",%s,", kl_type_name(r->type));
        csv_str(out, r->device.name);
        fprintf(out, ",%s,", x->rung);
        csv_str(out, x->config);
        fprintf(out, ",%s,", kl_result_status_name(x->status));
        for (int k = 0; k < kl_result_field_count; k++) {
            const struct kl_result_field *f = &kl_result_fields[k];
            if (!(f->flags & KL_FIELD_CSV))
                continue;
            if (ok) /* a timed row's every number, as it is; none for the others */
                fprintf(out, f->csv, kl_field_value(f, r, x));
            fputc(',', out);
        }
        csv_str(out, x->options);
        fputc(',', out);
        csv_str(out, x->note);
        const char *prec = kl_precision_name(x->precision);
        fprintf(out, ",%s,", prec ? prec : "");
        if (kl_result_has_error(x))
            fprintf(out, "%.3e", x->error);
        fputc('\n', out);
    }
}
