#include "report/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Colours: device rungs, host rungs, peers (vendor libraries); failures; ink. */
#define C_DEVICE "#3465a4"
#define C_HOST "#8a96a3"
#define C_PEER "#d9822b"
#define C_FAIL "#c4161c"
#define C_INK "#222222"
#define C_MUTED "#666666"
#define C_GRID "#dde1e6"
#define C_ROOF "#2e7d32"
#define FONT "font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\""

static const char *const series_colours[] = {"#3465a4", "#d9822b", "#2e7d32", "#75507b",
                                             "#c4161c", "#0097a7", "#8f5902", "#555753"};

void kl_xml_text(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            /* Control characters are not allowed in XML 1.0; newlines and tabs are. */
            if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
                fputc(*s, out);
        }
    }
}

void kl_svg_background(int id, char out[8])
{
    snprintf(out, 8, "#f5f7%02x", 0xf0 + (id < 0 ? 0 : id) % 16);
}

/* A number for labels: 4 significant digits, no exponent for the usual range. */
static void fmt(char *out, size_t n, double v)
{
    double a = fabs(v);
    if (v == 0)
        snprintf(out, n, "0");
    else if (a >= 1e5)
        snprintf(out, n, "%.0f", v);
    else if (a >= 1e-3)
        snprintf(out, n, "%.4g", v);
    else
        snprintf(out, n, "%.3g", v);
}

/* An axis label: short, with k and M for thousands and millions. */
static void fmt_axis(char *out, size_t n, double v)
{
    double a = fabs(v);
    if (a >= 1e6 && fmod(a, 1e5) == 0)
        snprintf(out, n, "%gM", v / 1e6);
    else if (a >= 1e3 && fmod(a, 100) == 0)
        snprintf(out, n, "%gk", v / 1e3);
    else
        snprintf(out, n, "%g", v);
}

static void svg_open(FILE *out, int w, int h, int standalone, const char *kind, int id,
                     const char *label)
{
    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart %s\" data-chart=\"%d\" "
            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
            kind, id, w, h, w, h);
    kl_xml_text(out, label);
    fprintf(out, "\" " FONT " font-size=\"12\">\n");
    fprintf(out,
            "<rect class=\"page\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
            w, h);
}

static void svg_title(FILE *out, int x, int y, const char *title, const char *subtitle)
{
    fprintf(out,
            "<text x=\"%d\" y=\"%d\" font-size=\"14\" font-weight=\"bold\" fill=\"" C_INK "\">", x,
            y);
    kl_xml_text(out, title);
    fputs("</text>\n", out);
    if (subtitle && *subtitle) {
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"" C_MUTED "\">", x, y + 16);
        kl_xml_text(out, subtitle);
        fputs("</text>\n", out);
    }
}

void kl_svg_open(FILE *out, int w, int h, int standalone, const char *kind, int id,
                 const char *label)
{
    svg_open(out, w, h, standalone, kind, id, label);
}

void kl_svg_title(FILE *out, int x, int y, const char *title, const char *subtitle)
{
    svg_title(out, x, y, title, subtitle);
}

const char *kl_svg_series_colour(int k)
{
    return series_colours[(k < 0 ? 0 : k) % 8];
}

static const char *kind_of(const struct kl_run_row *r)
{
    return r->peer ? "peer" : r->on_host ? "host" : "device";
}

static const char *colour_of(const struct kl_run_row *r)
{
    return r->peer ? C_PEER : r->on_host ? C_HOST : C_DEVICE;
}

/* A tooltip: what the row is and how it was measured. */
static void row_tooltip(FILE *out, const struct kl_run_row *r)
{
    char a[32], b[32], c[32];
    fputs("<title>", out);
    kl_xml_text(out, r->rung);
    if (r->config[0]) {
        fputs(" (", out);
        kl_xml_text(out, r->config);
        fputs(")", out);
    }
    if (r->timed) {
        fmt(a, sizeof a, r->median_s * 1e3);
        fmt(b, sizeof b, r->min_s * 1e3);
        fmt(c, sizeof c, r->max_s * 1e3);
        fprintf(out, ": median %s ms, min %s, max %s, %d launches", a, b, c, r->repeats);
    } else {
        fprintf(out, ": %s", r->status);
    }
    if (r->note[0]) {
        fputs("; ", out);
        kl_xml_text(out, r->note);
    }
    fputs("</title>", out);
}

int kl_svg_metrics(const struct kl_run *run, enum kl_metric out[3])
{
    int n = 0;
    for (int i = 0; i < run->nrows; i++) {
        enum kl_metric m = kl_run_metric(run, &run->rows[i]);
        int seen = kl_run_on_curve(run, &run->rows[i]);
        for (int k = 0; k < n; k++)
            seen |= out[k] == m;
        if (!seen && n < 3)
            out[n++] = m;
    }
    return n;
}

/* Steps of 1, 2, 2.5 or 5 × 10^k, about `ticks` of them up to max. */
static double nice_step(double max, int ticks)
{
    double raw = max / ticks, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
}

/* ---- the ladder chart ------------------------------------------------------------ */

#define LAD_W 940
#define LAD_X0 170 /* plot left: rung names to its left */
#define LAD_PW 430 /* plot width: values, % of roof, precision and error to its right */
#define LAD_ROW 22
#define LAD_TOP 56

void kl_svg_ladder(FILE *out, const struct kl_run *run, enum kl_metric m, int id, int standalone)
{
    const char *unit = kl_run_unit(run, m);
    int nrows = 0, npeers = 0;
    double vmax = 0;
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        if (kl_run_metric(run, r) != m || kl_run_on_curve(run, r))
            continue;
        nrows++;
        npeers += r->peer;
        double v = kl_run_value(run, r, m);
        if (isfinite(v) && v > vmax)
            vmax = v;
        /* The whisker reaches the best launch's rate. */
        if (r->timed && m != KL_METRIC_TIME && r->min_s > 0 && isfinite(v)) {
            double best = v * r->median_s / r->min_s;
            if (best > vmax)
                vmax = best;
        } else if (r->timed && m == KL_METRIC_TIME && r->max_s * 1e6 > vmax) {
            vmax = r->max_s * 1e6;
        }
    }
    double step = nice_step(vmax > 0 ? vmax : 1, 5),
           axis = ceil((vmax > 0 ? vmax : 1) / step) * step;
    int rows_h = nrows * LAD_ROW + (npeers && npeers < nrows ? 30 : 0);
    int plot_bottom = LAD_TOP + rows_h + 4, h = plot_bottom + 48;
    char title[400], sub[600], params[300], bg[8];
    kl_run_params_text(run, params, sizeof params);
    snprintf(title, sizeof title, "%s ladder: %s per rung%s", run->workload, unit,
             m == KL_METRIC_TIME ? " (shorter is faster)" : " (median launch)");
    snprintf(sub, sizeof sub, "%s · %s", params, run->dev_name);
    svg_open(out, LAD_W, h, standalone, "ladder", id, title);
    svg_title(out, 10, 20, title, sub);
    kl_svg_background(id, bg);
    fprintf(out,
            "<g class=\"plot\" data-metric=\"%s\" data-axis-max=\"%.9g\" data-left=\"%d\" "
            "data-top=\"%d\" data-width=\"%d\" data-height=\"%d\">\n",
            unit, axis, LAD_X0, LAD_TOP - 4, LAD_PW, plot_bottom - (LAD_TOP - 4));
    fprintf(out,
            "<rect class=\"area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            LAD_X0, LAD_TOP - 4, LAD_PW, plot_bottom - (LAD_TOP - 4), bg);
    /* Grid and axis. */
    for (int k = 0; k <= 12 && k * step <= axis * (1 + 1e-9); k++) {
        char lab[32];
        double t = k * step, x = LAD_X0 + t / axis * LAD_PW;
        fmt_axis(lab, sizeof lab, t);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"" C_GRID "\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" "
                "fill=\"" C_MUTED "\" data-value=\"%.9g\">%s</text>\n",
                x, LAD_TOP - 4, x, plot_bottom, x, plot_bottom + 15, t, lab);
    }
    fprintf(out,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" C_INK "\"/>\n"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"" C_INK
            "\">%s%s</text>\n",
            LAD_X0, plot_bottom, LAD_X0 + LAD_PW, plot_bottom, LAD_X0 + LAD_PW / 2,
            plot_bottom + 32, unit,
            m == KL_METRIC_FLOPS   ? " (work counted per launch / median time)"
            : m == KL_METRIC_BYTES ? " (minimal traffic / median time)"
                                   : " per launch (median)");
    fputs("</g>\n", out);

    /* Rows: the ladder in order, then the peers apart. */
    int y = LAD_TOP;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && npeers && npeers < nrows) {
            fprintf(out,
                    "<line class=\"peer-divider\" x1=\"10\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                    "stroke=\"" C_PEER "\" stroke-dasharray=\"4 3\"/>\n"
                    "<text x=\"10\" y=\"%d\" font-size=\"11\" font-style=\"italic\" fill=\"" C_PEER
                    "\">peers: vendor libraries on the same data, not rungs of the ladder</text>\n",
                    y + 6, LAD_W - 10, y + 6, y + 21);
            y += 30;
        }
        for (int i = 0; i < run->nrows; i++) {
            const struct kl_run_row *r = &run->rows[i];
            if (kl_run_metric(run, r) != m || r->peer != pass || kl_run_on_curve(run, r))
                continue;
            double v = kl_run_value(run, r, m);
            int cy = y + LAD_ROW / 2;
            fprintf(out, "<g class=\"row %s\" data-rung=\"", kind_of(r));
            kl_xml_text(out, r->rung);
            fprintf(out, "\" data-status=\"%s\">", r->status);
            row_tooltip(out, r);
            fprintf(out,
                    "\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-family=\"DejaVu Sans Mono, "
                    "Menlo, Consolas, monospace\" font-size=\"11\" fill=\"" C_INK "\">",
                    LAD_X0 - 8, cy + 4);
            kl_xml_text(out, r->rung);
            fputs("</text>\n", out);
            if (r->timed && isfinite(v)) {
                double w = v / axis * LAD_PW;
                char val[32], lab[160];
                fprintf(out, "<rect class=\"bar %s\" data-rung=\"", kind_of(r));
                kl_xml_text(out, r->rung);
                fputs("\" data-config=\"", out);
                kl_xml_text(out, r->config);
                fprintf(out,
                        "\" data-value=\"%.9g\" x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"14\" "
                        "fill=\"%s\"/>\n",
                        v, LAD_X0, cy - 7, w, colour_of(r));
                /* The spread of the timed launches: slowest to fastest. */
                if (r->repeats > 1 && r->max_s > r->min_s) {
                    double lo = m == KL_METRIC_TIME ? r->min_s * 1e6 : v * r->median_s / r->max_s;
                    double hi = m == KL_METRIC_TIME ? r->max_s * 1e6 : v * r->median_s / r->min_s;
                    fprintf(out,
                            "<line class=\"spread\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
                            "stroke=\"" C_INK "\" stroke-width=\"1\"/>\n",
                            LAD_X0 + lo / axis * LAD_PW, cy, LAD_X0 + hi / axis * LAD_PW, cy);
                }
                double end = w; /* the label goes past the bar and its whisker */
                if (r->repeats > 1 && r->max_s > r->min_s)
                    end = fmax(w,
                               (m == KL_METRIC_TIME ? r->max_s * 1e6 : v * r->median_s / r->min_s) /
                                   axis * LAD_PW);
                fmt(val, sizeof val, v);
                int used = snprintf(lab, sizeof lab, "%s %s", val, unit);
                if (isfinite(r->pct_ceiling) && r->pct_ceiling > 0 && used > 0)
                    used += snprintf(lab + used, sizeof lab - (size_t)used, " · %.*f%% of roof",
                                     r->pct_ceiling < 10 ? 1 : 0, r->pct_ceiling);
                /* What arithmetic produced it, and how far it is from the reference. */
                if (r->precision && used > 0 && (size_t)used < sizeof lab)
                    used += snprintf(lab + used, sizeof lab - (size_t)used, " · %s", r->precision);
                if (r->precision && isfinite(r->error) && used > 0 && (size_t)used < sizeof lab)
                    snprintf(lab + used, sizeof lab - (size_t)used, ", error %.1e", r->error);
                fprintf(out,
                        "<text class=\"value\" x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"" C_INK
                        "\" data-precision=\"%s\">%s</text>\n",
                        LAD_X0 + end + 5, cy + 4, r->precision ? r->precision : "", lab);
            } else {
                int failed = strcmp(r->status, "failed") == 0;
                fprintf(out,
                        "<text class=\"%s\" x=\"%d\" y=\"%d\" font-size=\"11\" font-weight=\"%s\" "
                        "fill=\"%s\">%s",
                        failed ? "failed" : "skipped", LAD_X0 + 6, cy + 4,
                        failed ? "bold" : "normal", failed ? C_FAIL : C_MUTED,
                        failed ? "✗ failed" : "skipped");
                if (r->note[0]) {
                    char note[70];
                    snprintf(note, sizeof note, "%s", r->note);
                    if (strlen(r->note) >= sizeof note - 1) {
                        /* Cut at a character boundary, then say so. */
                        size_t k = sizeof note - 5;
                        while (k > 0 && ((unsigned char)note[k] & 0xC0) == 0x80)
                            k--;
                        memcpy(note + k, "…", 4);
                    }
                    fputs(": ", out);
                    kl_xml_text(out, note);
                    if (strlen(r->note) >= sizeof note - 1) {
                        fputs("<title>", out); /* the whole reason, on hover */
                        kl_xml_text(out, r->note);
                        fputs("</title>", out);
                    }
                }
                fputs("</text>\n", out);
            }
            fputs("</g>\n", out);
            y += LAD_ROW;
        }
    }
    fputs("</svg>\n", out);
}

/* ---- log axes -------------------------------------------------------------------- */

struct logaxis {
    double lo, hi; /* log10 of the ends */
    double p0, p1; /* their pixel positions */
};

static double lmap(const struct logaxis *a, double v)
{
    return a->p0 + (log10(v) - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* Decade ticks, labelled; 2 and 5 labelled too when there are few decades. */
static void log_ticks(FILE *out, const struct logaxis *a, int vertical, double other0,
                      double other1)
{
    int decades = (int)(a->hi - a->lo + 0.5);
    for (int d = (int)floor(a->lo); d <= (int)ceil(a->hi); d++)
        for (int k = 1; k <= 9; k++) {
            double v = k * pow(10, d), lv = log10(v);
            if (lv < a->lo - 1e-9 || lv > a->hi + 1e-9)
                continue;
            double p = lmap(a, v);
            int major = k == 1, labelled = major || (decades <= 2 && (k == 2 || k == 5));
            char lab[32];
            fmt_axis(lab, sizeof lab, v);
            if (vertical) {
                fprintf(out,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>",
                        other0, p, major ? other1 : other0 + 5, p, major ? C_GRID : C_MUTED);
                if (labelled)
                    fprintf(out,
                            "<text class=\"tick y\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                            "font-size=\"11\" fill=\"" C_MUTED "\" data-value=\"%.9g\">%s</text>",
                            other0 - 5, p + 4, v, lab);
            } else {
                fprintf(out,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", p,
                        other0, p, major ? other1 : other0 - 5, major ? C_GRID : C_MUTED);
                if (labelled)
                    fprintf(out,
                            "<text class=\"tick x\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                            "font-size=\"11\" fill=\"" C_MUTED "\" data-value=\"%.9g\">%s</text>",
                            p, other0 + 15, v, lab);
            }
            fputc('\n', out);
        }
}

/* log10 bounds around [mn, mx] with margin, at least `span` decades wide. */
static void log_range(double mn, double mx, double margin, int span, double *lo, double *hi)
{
    *lo = fmax(-40, floor(log10(mn) - margin));
    *hi = fmin(40, ceil(log10(mx) + margin));
    while (*hi - *lo < span) {
        *hi += 1;
        if (*hi - *lo < span)
            *lo -= 1;
    }
}

/* ---- the roofline ---------------------------------------------------------------- */

static int roof_point(const struct kl_run *run, const struct kl_run_row *r, double *ai,
                      double *perf)
{
    if (!r->timed || !(r->flops > 0) || !(r->bytes > 0))
        return 0;
    *ai = r->flops / r->bytes;
    *perf = kl_run_value(run, r, KL_METRIC_FLOPS);
    /* (Log axes: zero, denormal or absurd values from a hand-edited file are not drawn.) */
    return isfinite(*perf) && *perf > 1e-30 && *perf < 1e30 && isfinite(*ai) && *ai > 1e-30 &&
           *ai < 1e30;
}

int kl_svg_has_roofline(const struct kl_run *run)
{
    double ai, perf;
    for (int i = 0; i < run->nrows; i++)
        if (roof_point(run, &run->rows[i], &ai, &perf))
            return 1;
    return 0;
}

#define RF_W 900 /* point labels right of the plot: rung, % of roof, which roof */
#define RF_X0 78
#define RF_X1 600
#define RF_Y0 56
#define RF_Y1 436
#define RF_H 490

struct label {
    double py, ly;
    int row;
};

static int by_py(const void *a, const void *b)
{
    const struct label *x = a, *y = b;
    return x->py < y->py ? -1 : x->py > y->py;
}

/*
 * The roofs drawn dashed beside the main one: a peak run's every other
 * compute roof (it measured them all); for any run, the roof of each
 * precision and unit its rows declare (TF32, a third of it for 3xTF32, FP16
 * on the tensor cores or packed on the FMA units, BF16, FP8, INT8, FP64 on
 * the tensor cores), so each point can be read against the roof of its own
 * arithmetic. Slopes: the on-chip levels' bandwidths (L2, shared memory)
 * beside device memory's, the hierarchical roofline.
 */
struct other_roof {
    double top;
    char name[64];
    double label_y; /* where its label goes */
    char value[32];
};
#define MAX_OTHER 16

/* Adds the roof of figure key (label: how the chart names it) unless it is unmeasured or there. */
static void add_roof(const struct kl_run *run, struct other_roof *out, int *n, const char *key,
                     double scale, const char *label)
{
    const struct kl_ceiling_def *d = kl_ceiling_find(key);
    double top = d ? kl_ceiling_value(&run->ceil, d) * scale : 0;
    for (int i = 0; i < *n; i++)
        if (strncmp(out[i].name, label, strlen(label)) == 0)
            return;
    if (top > 0 && *n < MAX_OTHER) {
        out[*n].top = top;
        snprintf(out[*n].name, sizeof out[*n].name, "%s %s", label, d->unit);
        (*n)++;
    }
}

static int other_roofs(const struct kl_run *run, struct other_roof out[MAX_OTHER])
{
    int n = 0, peak = strcmp(run->workload, "peak") == 0;
    if (!run->have_ceil || !(run->ceil.copy_gbps > 0))
        return 0;
    if (peak) {
        add_roof(run, out, &n, "f64_gflops", 1, "FP64");
        add_roof(run, out, &n, "i32_giops", 1, "INT32");
    }
    for (int i = 0; i < run->nrows || (peak && i == 0); i++) {
        const char *p = i < run->nrows ? run->rows[i].precision : NULL;
        int tc = i < run->nrows && run->rows[i].tensor;
        if (peak || (p && strcmp(p, "tf32") == 0))
            add_roof(run, out, &n, "tf32_gflops", 1, "TF32 tensor cores");
        if (p && strcmp(p, "3xtf32") == 0)
            add_roof(run, out, &n, "tf32_gflops", 1.0 / 3, "3xTF32 (a third of TF32)");
        if (peak || (p && strcmp(p, "fp16") == 0 && tc))
            add_roof(run, out, &n, "f16_tc_gflops", 1, "FP16 tensor cores");
        if (peak || (p && strcmp(p, "fp16") == 0 && !tc))
            add_roof(run, out, &n, "f16_gflops", 1, "FP16x2 (packed half)");
        if (peak || (p && strcmp(p, "bf16") == 0))
            add_roof(run, out, &n, "bf16_gflops", 1, "BF16 tensor cores");
        if (peak || (p && strncmp(p, "fp8", 3) == 0))
            add_roof(run, out, &n, "fp8_gflops", 1, "FP8 tensor cores");
        if (peak || (p && strcmp(p, "int8") == 0))
            add_roof(run, out, &n, "i8_giops", 1, "INT8 tensor cores");
        if (peak || (p && strcmp(p, "fp64") == 0 && tc))
            add_roof(run, out, &n, "f64_tc_gflops", 1, "FP64 tensor cores");
    }
    return n;
}

void kl_svg_roofline(FILE *out, const struct kl_run *run, int id, int standalone)
{
    const char *unit = kl_run_unit(run, KL_METRIC_FLOPS);
    double bw = run->have_ceil ? run->ceil.copy_gbps : 0, peak = kl_run_compute_peak(run);
    double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0, ai, perf;
    struct other_roof others[MAX_OTHER];
    int npts = 0, nothers = other_roofs(run, others);
    /* The on-chip levels' slopes beside device memory's, where measured. */
    const double slopes[2] = {run->have_ceil ? run->ceil.l2_gbps : 0,
                              run->have_ceil ? run->ceil.shared_gbps : 0};
    static const char *const slope_names[2] = {"L2", "shared memory"};
    for (int i = 0; i < run->nrows; i++)
        if (roof_point(run, &run->rows[i], &ai, &perf)) {
            npts++;
            xmin = fmin(xmin, ai), xmax = fmax(xmax, ai);
            ymin = fmin(ymin, perf), ymax = fmax(ymax, perf);
        }
    for (int k = 0; k < nothers; k++) /* the tensor roofs sit above the FMA one */
        if (others[k].top > 0 && strstr(others[k].name, "tensor"))
            ymax = fmax(ymax, others[k].top), xmax = fmax(xmax, others[k].top / bw);
    for (int k = 0; k < 2 && peak > 0; k++) /* where the on-chip slopes meet the roof */
        if (slopes[k] > bw)
            xmin = fmin(xmin, peak / slopes[k]);
    if (bw > 0 && peak > 0) {
        double ridge = peak / bw;
        xmin = fmin(xmin, ridge), xmax = fmax(xmax, ridge);
        ymin = fmin(ymin, peak), ymax = fmax(ymax, peak);
        if (!npts) /* roofs alone: some of the slope, and every precision's roof */
            ymin = fmin(ymin, fmin(peak / 10,
                                   fmin(run->ceil.f64_gflops > 0 ? run->ceil.f64_gflops : INFINITY,
                                        run->ceil.i32_giops > 0 ? run->ceil.i32_giops : INFINITY)));
    } else if (peak > 0) {
        ymin = fmin(ymin, peak), ymax = fmax(ymax, peak);
    }
    if (!(xmax > 0)) /* no points and no ridge: an axis around AI 1 */
        xmin = 0.1, xmax = 10;
    if (!(ymax > 0))
        ymin = bw > 0 ? bw * xmin : 1, ymax = bw > 0 ? bw * xmax : 100;
    struct logaxis ax = {0, 0, RF_X0, RF_X1}, ay = {0, 0, RF_Y1, RF_Y0};
    log_range(xmin, xmax, 0.3, 2, &ax.lo, &ax.hi);
    log_range(ymin, ymax, 0.15, 2, &ay.lo, &ay.hi);

    char title[300], sub[600], params[300], bg[8];
    kl_run_params_text(run, params, sizeof params);
    snprintf(title, sizeof title, "%s roofline: %s against arithmetic intensity", run->workload,
             unit);
    if (run->have_ceil)
        snprintf(sub, sizeof sub, "%s · %s · roofs from %s, %s", params, run->dev_name,
                 kl_ceilings_source(&run->ceil), run->ceil.date);
    else
        snprintf(sub, sizeof sub, "%s · %s", params, run->dev_name);
    svg_open(out, RF_W, RF_H, standalone, "roofline", id, title);
    svg_title(out, 10, 20, title, sub);
    kl_svg_background(id, bg);
    fprintf(out,
            "<g class=\"plot\" data-x-log-min=\"%g\" data-x-log-max=\"%g\" data-y-log-min=\"%g\" "
            "data-y-log-max=\"%g\" data-left=\"%d\" data-top=\"%d\" data-width=\"%d\" "
            "data-height=\"%d\">\n",
            ax.lo, ax.hi, ay.lo, ay.hi, RF_X0, RF_Y0, RF_X1 - RF_X0, RF_Y1 - RF_Y0);
    fprintf(out,
            "<rect class=\"area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            RF_X0, RF_Y0, RF_X1 - RF_X0, RF_Y1 - RF_Y0, bg);
    log_ticks(out, &ax, 0, RF_Y1, RF_Y0);
    log_ticks(out, &ay, 1, RF_X0, RF_X1);
    fprintf(out,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" C_INK
            "\"/>\n"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"" C_INK
            "\">arithmetic intensity (FLOP per byte of minimal traffic, log scale)</text>\n"
            "<text transform=\"translate(%d %d) rotate(-90)\" text-anchor=\"middle\" "
            "font-size=\"11\" fill=\"" C_INK "\">%s (log scale)</text>\n",
            RF_X0, RF_Y0, RF_X1 - RF_X0, RF_Y1 - RF_Y0, (RF_X0 + RF_X1) / 2, RF_Y1 + 34, 18,
            (RF_Y0 + RF_Y1) / 2, unit);
    fputs("</g>\n", out);

    char main_label[96] = ""; /* written with the other roofs' labels, spread apart from them */
    /* The roofs: bandwidth × AI up to the ridge, then the compute peak. */
    double xlo = pow(10, ax.lo), xhi = pow(10, ax.hi), ylo = pow(10, ay.lo);
    if (bw > 0) {
        double ridge = peak > 0 ? peak / bw : xhi, xs = fmax(xlo, ylo / bw);
        fprintf(out,
                "<polyline class=\"roof\" data-copy-gbps=\"%.9g\" data-peak=\"%.9g\" points=\"", bw,
                peak);
        if (ridge > xs) {
            double xe = fmin(ridge, xhi);
            fprintf(out, "%.1f,%.1f %.1f,%.1f", lmap(&ax, xs), lmap(&ay, bw * xs), lmap(&ax, xe),
                    lmap(&ay, bw * xe));
            if (peak > 0 && ridge < xhi)
                fprintf(out, " %.1f,%.1f", lmap(&ax, xhi), lmap(&ay, peak));
        } else if (peak > 0) {
            fprintf(out, "%.1f,%.1f %.1f,%.1f", lmap(&ax, xlo), lmap(&ay, peak), lmap(&ax, xhi),
                    lmap(&ay, peak));
        }
        fputs("\" fill=\"none\" stroke=\"" C_ROOF "\" stroke-width=\"2.5\"/>\n", out);
        /* The slope's label, along it, near its start. */
        if (ridge > xs) {
            double xa = pow(10, log10(xs) + 0.2 * (log10(fmin(ridge, xhi)) - log10(xs)));
            double xb = pow(10, log10(xa) + 0.1);
            double px = lmap(&ax, xa), py = lmap(&ay, bw * xa);
            double ang =
                atan2(lmap(&ay, bw * xb) - py, lmap(&ax, xb) - px) * 180 / 3.14159265358979323846;
            char v[32];
            fmt(v, sizeof v, bw);
            fprintf(out,
                    "<text class=\"roof-label\" transform=\"translate(%.1f %.1f) rotate(%.1f)\" "
                    "font-size=\"11\" fill=\"" C_ROOF "\" dy=\"-6\">memory: copy %s GB/s</text>\n",
                    px, py, ang, v);
        }
    }
    if (peak > 0) {
        char v[32];
        fmt(v, sizeof v, peak);
        if (!(bw > 0))
            fprintf(
                out,
                "<line class=\"roof\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_ROOF
                "\" stroke-width=\"2.5\"/>\n",
                RF_X0, lmap(&ay, peak), RF_X1, lmap(&ay, peak));
        snprintf(main_label, sizeof main_label, "compute: %s %s %s",
                 strcmp(run->type, "double") == 0 ? "FP64"
                 : strcmp(run->type, "int") == 0  ? "INT32"
                                                  : "FP32",
                 v, unit);
    }
    if (!(bw > 0))
        fprintf(out,
                "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"" C_MUTED
                "\">no measured roofs for this device: kladder peak measures them</text>\n",
                RF_X0 + 8, RF_Y0 + 16);
    /* The other roofs, dashed, every roof's label at the right edge (the main one's too), spread
     * apart where they crowd, and written after every line. */
    {
        double ly[MAX_OTHER + 1];
        int order[MAX_OTHER + 1], nl = 0;
        for (int k = 0; k <= nothers; k++) {
            double top = k < nothers ? others[k].top : peak;
            if (k == nothers ? !main_label[0]
                             : !(bw > 0) || !(top > 0) || log10(top) < ay.lo || log10(top) > ay.hi)
                continue;
            /* above the roofs over the main one (and the main one), below those under it */
            ly[k] = lmap(&ay, top) + (top >= peak ? -6 : 14);
            int j = nl++;
            for (; j > 0 && ly[order[j - 1]] > ly[k]; j--)
                order[j] = order[j - 1];
            order[j] = k;
        }
        for (int j = 1; j < nl; j++) /* top to bottom: at least 12 px apart */
            if (ly[order[j]] < ly[order[j - 1]] + 12)
                ly[order[j]] = ly[order[j - 1]] + 12;
        for (int j = 0; j < nl; j++) {
            int k = order[j];
            if (k == nothers) {
                fprintf(out,
                        "<text class=\"roof-label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                        "font-size=\"11\" fill=\"" C_ROOF "\">%s</text>\n",
                        RF_X1 - 6, ly[k], main_label);
                continue;
            }
            double top = others[k].top, ridge = top / bw;
            double xs = fmax(xlo, ylo / bw);
            char v[32];
            fmt(v, sizeof v, top);
            /* A label pushed onto its own line: the line stops short of its words (~6 px a
             * character at 11 px). */
            double xe = lmap(&ax, xhi), yl = lmap(&ay, top);
            if (fabs(ly[k] - 4 - yl) < 8)
                xe = fmax(lmap(&ax, fmax(xs, ridge)),
                          RF_X1 - 10 - 6.0 * (strlen(v) + 1 + strlen(others[k].name)));
            fprintf(out,
                    "<polyline class=\"roof other\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
                    "fill=\"none\" stroke=\"" C_ROOF "\" stroke-width=\"1.2\" "
                    "stroke-dasharray=\"5 4\"/>\n",
                    lmap(&ax, fmax(xs, fmin(ridge, xlo))),
                    lmap(&ay, fmin(top, bw * fmax(xs, fmin(ridge, xlo)))),
                    lmap(&ax, fmax(xs, ridge)), yl, xe, yl);
            others[k].label_y = ly[k];
            snprintf(others[k].value, sizeof others[k].value, "%s", v);
        }
        /* The words after every line, so no line crosses them. */
        for (int j = 0; j < nl; j++) {
            int k = order[j];
            if (k < nothers)
                fprintf(out,
                        "<text class=\"roof-label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                        "font-size=\"11\" fill=\"" C_ROOF "\">%s %s</text>\n",
                        RF_X1 - 6, others[k].label_y, others[k].value, others[k].name);
        }
    }
    if (bw > 0) {
        /* The on-chip slopes, dotted, up to the main compute roof. */
        for (int k = 0; k < 2; k++) {
            double b2 = slopes[k], xs = fmax(xlo, ylo / b2);
            double xe = peak > 0 ? fmin(xhi, peak / b2) : xhi;
            if (!(b2 > bw) || !(xe > xs))
                continue;
            char v[32];
            fmt(v, sizeof v, b2);
            fprintf(out,
                    "<polyline class=\"roof slope\" data-gbps=\"%.9g\" points=\"%.1f,%.1f "
                    "%.1f,%.1f\" fill=\"none\" stroke=\"" C_ROOF "\" stroke-width=\"1.2\" "
                    "stroke-dasharray=\"2 3\"/>\n"
                    "<text class=\"roof-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
                    "fill=\"" C_ROOF "\">%s %s GB/s</text>\n",
                    b2, lmap(&ax, xs), lmap(&ay, b2 * xs), lmap(&ax, xe), lmap(&ay, b2 * xe),
                    lmap(&ax, xs) + 4, lmap(&ay, b2 * xs) - 4, slope_names[k], v);
        }
    }

    /* Points, and their labels in a column at the right with leader lines. */
    struct label *labels = calloc((size_t)(npts ? npts : 1), sizeof *labels);
    int nl = 0;
    for (int i = 0; i < run->nrows && labels; i++)
        if (roof_point(run, &run->rows[i], &ai, &perf)) {
            labels[nl].py = lmap(&ay, perf);
            labels[nl].row = i;
            nl++;
        }
    if (labels) {
        qsort(labels, (size_t)nl, sizeof *labels, by_py);
        double gap = nl > 1 && (RF_Y1 - RF_Y0) / (double)(nl - 1) < 13
                         ? (RF_Y1 - RF_Y0) / (double)(nl - 1)
                         : 13;
        for (int k = 0; k < nl; k++)
            labels[k].ly = k ? fmax(labels[k].py, labels[k - 1].ly + gap) : labels[k].py;
        for (int k = nl - 1; k >= 0; k--) {
            double limit = k == nl - 1 ? RF_Y1 : labels[k + 1].ly - gap;
            if (labels[k].ly > limit)
                labels[k].ly = limit;
        }
    }
    for (int k = 0; k < nl; k++) {
        const struct kl_run_row *r = &run->rows[labels[k].row];
        roof_point(run, r, &ai, &perf);
        double px = lmap(&ax, ai), py = lmap(&ay, perf);
        fprintf(out, "<g class=\"pt %s\">", kind_of(r));
        row_tooltip(out, r);
        fprintf(out,
                "<polyline points=\"%.1f,%.1f %d,%.1f %d,%.1f\" fill=\"none\" stroke=\"" C_GRID
                "\" stroke-width=\"1\"/>",
                px + 5, py, RF_X1 + 8, labels[k].ly, RF_X1 + 14, labels[k].ly);
        fprintf(out, "<circle class=\"point %s\" data-rung=\"", kind_of(r));
        kl_xml_text(out, r->rung);
        fprintf(out,
                "\" data-ai=\"%.9g\" data-perf=\"%.9g\" cx=\"%.2f\" cy=\"%.2f\" r=\"4.5\" "
                "fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"1\"/>",
                ai, perf, px, py, colour_of(r));
        fprintf(out,
                "<text class=\"point-label\" x=\"%d\" y=\"%.1f\" font-size=\"11\" "
                "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" fill=\"%s\">",
                RF_X1 + 16, labels[k].ly + 4, colour_of(r));
        kl_xml_text(out, r->rung);
        if (isfinite(r->pct_ceiling) && r->pct_ceiling > 0)
            fprintf(out, " %.*f%%", r->pct_ceiling < 10 ? 1 : 0, r->pct_ceiling);
        if (r->precision && strcmp(r->precision, "fp32") != 0 && strcmp(r->precision, "fp64") &&
            strcmp(r->precision, "int32")) /* of another roof than the solid one */
            fprintf(out, " (%s roof)", r->precision);
        fputs("</text></g>\n", out);
    }
    free(labels);
    fputs("</svg>\n", out);
}

/* ---- the sweep ------------------------------------------------------------------- */

#define SW_W 820
#define SW_X0 70
#define SW_X1 620
#define SW_Y0 56
#define SW_Y1 396
#define SW_H 448

/* A sweep's N: a count, so from 1 up (a hand-edited file may hold anything). */
static int sweep_x(double x)
{
    return isfinite(x) && x >= 1 && x <= 4e18;
}

static void fmt_pow2(char *out, size_t n, double v)
{
    if (v >= 1 << 20 && fmod(v, 1 << 20) == 0)
        snprintf(out, n, "%gM", v / (1 << 20));
    else if (v >= 1 << 10 && fmod(v, 1 << 10) == 0)
        snprintf(out, n, "%gK", v / (1 << 10));
    else
        snprintf(out, n, "%g", v);
}

void kl_svg_sweep(FILE *out, const struct kl_run *run, int id, int standalone)
{
    const char *names[64];
    int nnames = 0;
    double xmin = INFINITY, xmax = 0, ymax = 0;
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        int seen = 0;
        if (run->curves && !(sweep_x(r->x) && r->bytes > 0))
            continue; /* beside a ladder: only the curves of bytes (peak's cache sweep) */
        for (int k = 0; k < nnames && !seen; k++)
            seen = strcmp(names[k], r->rung) == 0;
        if (!seen && nnames < 64)
            names[nnames++] = r->rung;
        if (sweep_x(r->x)) {
            xmin = fmin(xmin, r->x), xmax = fmax(xmax, r->x);
            double v = kl_run_value(run, r, KL_METRIC_BYTES);
            if (isfinite(v))
                ymax = fmax(ymax, v);
        }
    }
    if (!(xmax > 0))
        xmin = 512, xmax = 1024;
    double l0 = floor(log2(xmin)), l1 = ceil(log2(xmax));
    if (l1 <= l0)
        l1 = l0 + 1;
    double ceil_bw = run->have_ceil ? run->ceil.copy_gbps : 0;
    double top = fmax(ymax, ceil_bw);
    double step = nice_step(top > 0 ? top : 1, 5),
           axis = ceil((top > 0 ? top : 1) * 1.02 / step) * step;

    char title[300], sub[600], params[300], bg[8];
    kl_run_params_text(run, params, sizeof params);
    snprintf(title, sizeof title, "%s sweep: GB/s against %s, one line per rung", run->workload,
             run->curves ? "the working set" : "N");
    snprintf(sub, sizeof sub, "%s · %s", params, run->dev_name);
    svg_open(out, SW_W, SW_H, standalone, "sweep", id, title);
    svg_title(out, 10, 20, title, sub);
    kl_svg_background(id, bg);
    fprintf(out,
            "<g class=\"plot\" data-x-log2-min=\"%g\" data-x-log2-max=\"%g\" data-y-max=\"%.9g\" "
            "data-left=\"%d\" data-top=\"%d\" data-width=\"%d\" data-height=\"%d\">\n",
            l0, l1, axis, SW_X0, SW_Y0, SW_X1 - SW_X0, SW_Y1 - SW_Y0);
    fprintf(out,
            "<rect class=\"area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            SW_X0, SW_Y0, SW_X1 - SW_X0, SW_Y1 - SW_Y0, bg);
#define SX(v) (SW_X0 + (log2(v) - l0) / (l1 - l0) * (SW_X1 - SW_X0))
#define SY(v) (SW_Y1 - (v) / axis * (SW_Y1 - SW_Y0))
    int every = (int)ceil((l1 - l0 + 1) / 12.0);
    for (int k = (int)l0; k <= (int)l1; k++) {
        double v = pow(2, k), x = SX(v);
        char lab[32];
        fmt_pow2(lab, sizeof lab, v);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"" C_GRID "\"/>", x,
                SW_Y0, x, SW_Y1);
        if ((k - (int)l0) % every == 0)
            fprintf(out,
                    "<text class=\"tick x\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                    "font-size=\"11\" fill=\"" C_MUTED "\" data-value=\"%.9g\">%s</text>",
                    x, SW_Y1 + 15, v, lab);
        fputc('\n', out);
    }
    for (int k = 0; k <= 12 && k * step <= axis * (1 + 1e-9); k++) {
        char lab[32];
        double t = k * step;
        fmt_axis(lab, sizeof lab, t);
        fprintf(out,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_GRID "\"/>"
                "<text class=\"tick y\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" "
                "fill=\"" C_MUTED "\" data-value=\"%.9g\">%s</text>\n",
                SW_X0, SY(t), SW_X1, SY(t), SW_X0 - 5, SY(t) + 4, t, lab);
    }
    fprintf(out,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" C_INK
            "\"/>\n"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"" C_INK
            "\">%s (log scale; K = 1024, M = 1024²)</text>\n"
            "<text transform=\"translate(%d %d) rotate(-90)\" text-anchor=\"middle\" "
            "font-size=\"11\" fill=\"" C_INK "\">%s</text>\n",
            SW_X0, SW_Y0, SW_X1 - SW_X0, SW_Y1 - SW_Y0, (SW_X0 + SW_X1) / 2, SW_Y1 + 34,
            run->curves ? "working set, bytes" : "N, elements of 4 bytes", 18, (SW_Y0 + SW_Y1) / 2,
            run->curves ? "GB/s (bytes read / median time)" : "GB/s (2·4·N bytes / median time)");
    fputs("</g>\n", out);
    if (ceil_bw > 0) {
        char v[32];
        fmt(v, sizeof v, ceil_bw);
        fprintf(out,
                "<line class=\"roof\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_ROOF
                "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>"
                "<text class=\"roof-label\" x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"" C_ROOF
                "\">copy ceiling %s GB/s (kladder peak)</text>\n",
                SW_X0, SY(ceil_bw), SW_X1, SY(ceil_bw), SW_X0 + 6, SY(ceil_bw) - 5, v);
    }
    int nfailed = 0;
    for (int k = 0; k < nnames; k++) {
        const char *col = series_colours[k % 8];
        fprintf(out, "<g class=\"series\" data-rung=\"");
        kl_xml_text(out, names[k]);
        fprintf(out, "\">\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                col);
        for (int i = 0; i < run->nrows; i++) {
            const struct kl_run_row *r = &run->rows[i];
            double v = kl_run_value(run, r, KL_METRIC_BYTES);
            if (strcmp(r->rung, names[k]) == 0 && isfinite(v) && sweep_x(r->x))
                fprintf(out, "%.1f,%.1f ", SX(r->x), SY(v));
        }
        fputs("\"/>\n", out);
        for (int i = 0; i < run->nrows; i++) {
            const struct kl_run_row *r = &run->rows[i];
            double v = kl_run_value(run, r, KL_METRIC_BYTES);
            if (strcmp(r->rung, names[k]) != 0 || !sweep_x(r->x))
                continue;
            if (!isfinite(v)) {
                nfailed += strcmp(r->status, "failed") == 0;
                if (strcmp(r->status, "failed") == 0) {
                    fputs("<text class=\"failed\" data-rung=\"", out);
                    kl_xml_text(out, r->rung);
                    fprintf(out,
                            "\" data-n=\"%.0f\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                            "font-weight=\"bold\" fill=\"" C_FAIL "\">✗</text>\n",
                            r->x, SX(r->x), SW_Y1 - 4);
                }
                continue;
            }
            fprintf(out, "<circle class=\"point\" data-rung=\"");
            kl_xml_text(out, r->rung);
            fprintf(out,
                    "\" data-n=\"%.0f\" data-gbps=\"%.9g\" cx=\"%.2f\" cy=\"%.2f\" r=\"3\" "
                    "fill=\"%s\">",
                    r->x, v, SX(r->x), SY(v), col);
            row_tooltip(out, r);
            fputs("</circle>\n", out);
        }
        /* The legend. */
        fprintf(out,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>"
                "<text x=\"%d\" y=\"%d\" font-size=\"11\" font-family=\"DejaVu Sans Mono, Menlo, "
                "Consolas, monospace\" fill=\"" C_INK "\">",
                SW_X1 + 16, SW_Y0 + 8 + 18 * k, SW_X1 + 40, SW_Y0 + 8 + 18 * k, col, SW_X1 + 46,
                SW_Y0 + 12 + 18 * k);
        kl_xml_text(out, names[k]);
        fputs("</text>\n</g>\n", out);
    }
    if (nfailed)
        fprintf(out,
                "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"" C_FAIL
                "\">✗ on the axis: a size where the rung failed verification</text>\n",
                SW_X0, SW_H - 4);
#undef SX
#undef SY
    fputs("</svg>\n", out);
}
