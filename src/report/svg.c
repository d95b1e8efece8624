/*
 * The charts as SVG (report/svg.h), written from their layouts
 * (report/svg_layout.c): a function per part of a chart.
 */
#include "report/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg_layout.h"

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

#define fmt kl_svg_number /* report/svg_layout.h */

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

/* ---- the ladder chart ------------------------------------------------------------ */

/* The plot: its area, the value axis with its grid and ticks, and what the axis measures. */
static void ladder_axes(FILE *out, const struct kl_ladder_layout *l, const char *unit, int id)
{
    char bg[8];
    int top = KL_LAD_TOP - 4, bottom = l->plot_bottom;
    kl_svg_background(id, bg);
    fprintf(out,
            "<g class=\"plot\" data-metric=\"%s\" data-axis-max=\"%.9g\" data-left=\"%d\" "
            "data-top=\"%d\" data-width=\"%d\" data-height=\"%d\">\n",
            unit, l->axis, KL_LAD_X0, top, KL_LAD_PW, bottom - top);
    fprintf(out,
            "<rect class=\"area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            KL_LAD_X0, top, KL_LAD_PW, bottom - top, bg);
    for (int k = 0; k < l->nticks; k++) {
        char lab[32];
        double x = l->tick_x[k];
        fmt_axis(lab, sizeof lab, l->tick[k]);
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"" C_GRID "\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" "
                "fill=\"" C_MUTED "\" data-value=\"%.9g\">%s</text>\n",
                x, top, x, bottom, x, bottom + 15, l->tick[k], lab);
    }
    fprintf(out,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" C_INK "\"/>\n"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"" C_INK
            "\">%s%s</text>\n",
            KL_LAD_X0, bottom, KL_LAD_X0 + KL_LAD_PW, bottom, KL_LAD_X0 + KL_LAD_PW / 2,
            bottom + 32, unit,
            l->metric == KL_METRIC_FLOPS   ? " (work counted per launch / median time)"
            : l->metric == KL_METRIC_BYTES ? " (minimal traffic / median time)"
                                           : " per launch (median)");
    fputs("</g>\n", out);
}

/* The dashed line that sets the peers apart from the ladder's rungs. */
static void ladder_divider(FILE *out, int y)
{
    fprintf(out,
            "<line class=\"peer-divider\" x1=\"10\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
            "stroke=\"" C_PEER "\" stroke-dasharray=\"4 3\"/>\n"
            "<text x=\"10\" y=\"%d\" font-size=\"11\" font-style=\"italic\" fill=\"" C_PEER
            "\">peers: vendor libraries on the same data, not rungs of the ladder</text>\n",
            y + 6, KL_LAD_W - 10, y + 6, y + 21);
}

/* A bar's words: its value, % of roof, and the arithmetic that produced it with its error. */
static void bar_words(const struct kl_run_row *r, double v, const char *unit, char *lab, size_t n)
{
    char val[32];
    fmt(val, sizeof val, v);
    int used = snprintf(lab, n, "%s %s", val, unit);
    if (isfinite(r->pct_ceiling) && r->pct_ceiling > 0 && used > 0)
        used += snprintf(lab + used, n - (size_t)used, " · %.*f%% of roof",
                         r->pct_ceiling < 10 ? 1 : 0, r->pct_ceiling);
    if (r->precision && used > 0 && (size_t)used < n)
        used += snprintf(lab + used, n - (size_t)used, " · %s", r->precision);
    if (r->precision && isfinite(r->error) && used > 0 && (size_t)used < n)
        snprintf(lab + used, n - (size_t)used, ", error %.1e", r->error);
}

/* A timed row: its bar, the spread of its launches (slowest to fastest), its words. */
static void ladder_bar(FILE *out, const struct kl_run_row *r, const struct kl_ladder_row *b,
                       const char *unit)
{
    char lab[160];
    fprintf(out, "<rect class=\"bar %s\" data-rung=\"", kind_of(r));
    kl_xml_text(out, r->rung);
    fputs("\" data-config=\"", out);
    kl_xml_text(out, r->config);
    fprintf(out,
            "\" data-value=\"%.9g\" x=\"%d\" y=\"%d\" width=\"%.2f\" height=\"14\" "
            "fill=\"%s\"/>\n",
            b->value, KL_LAD_X0, b->cy - 7, b->width, colour_of(r));
    if (b->spread)
        fprintf(out,
                "<line class=\"spread\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" "
                "stroke=\"" C_INK "\" stroke-width=\"1\"/>\n",
                b->lo_x, b->cy, b->hi_x, b->cy);
    bar_words(r, b->value, unit, lab, sizeof lab);
    fprintf(out,
            "<text class=\"value\" x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"" C_INK
            "\" data-precision=\"%s\">%s</text>\n",
            b->label_x, b->cy + 4, r->precision ? r->precision : "", lab);
}

/* A row without a bar: failed or skipped, and why (cut short; the whole reason on hover). */
static void ladder_missing(FILE *out, const struct kl_run_row *r, int cy)
{
    int failed = strcmp(r->status, "failed") == 0;
    fprintf(out,
            "<text class=\"%s\" x=\"%d\" y=\"%d\" font-size=\"11\" font-weight=\"%s\" "
            "fill=\"%s\">%s",
            failed ? "failed" : "skipped", KL_LAD_X0 + 6, cy + 4, failed ? "bold" : "normal",
            failed ? C_FAIL : C_MUTED, failed ? "✗ failed" : "skipped");
    if (r->note[0]) {
        char note[70];
        int cut = strlen(r->note) >= sizeof note - 1;
        snprintf(note, sizeof note, "%s", r->note);
        if (cut) { /* at a character boundary, then say so */
            size_t k = sizeof note - 5;
            while (k > 0 && ((unsigned char)note[k] & 0xC0) == 0x80)
                k--;
            memcpy(note + k, "…", 4);
        }
        fputs(": ", out);
        kl_xml_text(out, note);
        if (cut) {
            fputs("<title>", out);
            kl_xml_text(out, r->note);
            fputs("</title>", out);
        }
    }
    fputs("</text>\n", out);
}

/* Opens a link around a row's marks where it has a target (kl_run_row.href). */
static void link_open(FILE *out, const struct kl_run_row *r)
{
    if (!r->href)
        return;
    fputs("<a href=\"", out);
    kl_xml_text(out, r->href);
    fputs("\">", out);
}

static void link_close(FILE *out, const struct kl_run_row *r)
{
    if (r->href)
        fputs("</a>", out);
}

static void ladder_row(FILE *out, const struct kl_run_row *r, const struct kl_ladder_row *b,
                       const char *unit)
{
    link_open(out, r);
    fprintf(out, "<g class=\"row %s\" data-rung=\"", kind_of(r));
    kl_xml_text(out, r->rung);
    fprintf(out, "\" data-status=\"%s\">", r->status);
    row_tooltip(out, r);
    fprintf(out,
            "\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-family=\"DejaVu Sans Mono, "
            "Menlo, Consolas, monospace\" font-size=\"11\" fill=\"" C_INK "\">",
            KL_LAD_X0 - 8, b->cy + 4);
    kl_xml_text(out, r->rung);
    fputs("</text>\n", out);
    if (b->bar)
        ladder_bar(out, r, b, unit);
    else
        ladder_missing(out, r, b->cy);
    fputs("</g>", out);
    link_close(out, r);
    fputc('\n', out);
}

void kl_svg_ladder(FILE *out, const struct kl_run *run, enum kl_metric m, int id, int standalone)
{
    const char *unit = kl_run_unit(run, m);
    struct kl_ladder_layout l;
    char title[400], sub[600], params[300];
    kl_ladder_layout(run, m, &l);
    kl_run_params_text(run, params, sizeof params);
    snprintf(title, sizeof title, "%s ladder: %s per rung%s", run->workload, unit,
             m == KL_METRIC_TIME ? " (shorter is faster)" : " (median launch)");
    snprintf(sub, sizeof sub, "%s · %s", params, run->dev_name);
    svg_open(out, KL_LAD_W, l.height, standalone, "ladder", id, title);
    svg_title(out, 10, 20, title, sub);
    ladder_axes(out, &l, unit, id);
    /* The rows: the ladder in order, then the peers apart. */
    for (int i = 0; l.rows && i < l.nrows; i++) {
        const struct kl_run_row *r = &run->rows[l.rows[i].row];
        if (l.divider_y >= 0 && r->peer && i > 0 && !run->rows[l.rows[i - 1].row].peer)
            ladder_divider(out, l.divider_y);
        ladder_row(out, r, &l.rows[i], unit);
    }
    kl_ladder_layout_free(&l);
    fputs("</svg>\n", out);
}

/* ---- log axes -------------------------------------------------------------------- */

/* Decade ticks, labelled; 2 and 5 labelled too when there are few decades. */
static void log_ticks(FILE *out, const struct kl_logaxis *a, int vertical, double other0,
                      double other1)
{
    int decades = (int)(a->hi - a->lo + 0.5);
    for (int d = (int)floor(a->lo); d <= (int)ceil(a->hi); d++)
        for (int k = 1; k <= 9; k++) {
            double v = k * pow(10, d), lv = log10(v);
            if (lv < a->lo - 1e-9 || lv > a->hi + 1e-9)
                continue;
            double p = kl_logaxis_map(a, v);
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

/* ---- the roofline ---------------------------------------------------------------- */

int kl_svg_has_roofline(const struct kl_run *run)
{
    double ai, perf;
    for (int i = 0; i < run->nrows; i++)
        if (kl_roof_point_of(run, &run->rows[i], &ai, &perf))
            return 1;
    return 0;
}

/* The plot: its area, both log axes with their ticks, its frame and what the axes measure. */
static void roofline_plot(FILE *out, const struct kl_roofline_layout *l, const char *unit, int id)
{
    char bg[8];
    kl_svg_background(id, bg);
    fprintf(out,
            "<g class=\"plot\" data-x-log-min=\"%g\" data-x-log-max=\"%g\" data-y-log-min=\"%g\" "
            "data-y-log-max=\"%g\" data-left=\"%d\" data-top=\"%d\" data-width=\"%d\" "
            "data-height=\"%d\">\n",
            l->ax.lo, l->ax.hi, l->ay.lo, l->ay.hi, KL_RF_X0, KL_RF_Y0, KL_RF_X1 - KL_RF_X0,
            KL_RF_Y1 - KL_RF_Y0);
    fprintf(out,
            "<rect class=\"area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            KL_RF_X0, KL_RF_Y0, KL_RF_X1 - KL_RF_X0, KL_RF_Y1 - KL_RF_Y0, bg);
    log_ticks(out, &l->ax, 0, KL_RF_Y1, KL_RF_Y0);
    log_ticks(out, &l->ay, 1, KL_RF_X0, KL_RF_X1);
    fprintf(out,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" C_INK
            "\"/>\n"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"" C_INK
            "\">arithmetic intensity (FLOP per byte of minimal traffic, log scale)</text>\n"
            "<text transform=\"translate(%d %d) rotate(-90)\" text-anchor=\"middle\" "
            "font-size=\"11\" fill=\"" C_INK "\">%s (log scale)</text>\n",
            KL_RF_X0, KL_RF_Y0, KL_RF_X1 - KL_RF_X0, KL_RF_Y1 - KL_RF_Y0, (KL_RF_X0 + KL_RF_X1) / 2,
            KL_RF_Y1 + 34, 18, (KL_RF_Y0 + KL_RF_Y1) / 2, unit);
    fputs("</g>\n", out);
}

/* The main roof, the bandwidth's words along its slope; without roofs, a sentence why. */
static void roofline_main(FILE *out, const struct kl_roofline_layout *l)
{
    if (l->bw > 0) {
        fprintf(out,
                "<polyline class=\"roof\" data-copy-gbps=\"%.9g\" data-peak=\"%.9g\" points=\"",
                l->bw, l->peak);
        for (int k = 0; k < l->nroof; k++)
            fprintf(out, k ? " %.1f,%.1f" : "%.1f,%.1f", l->roof_x[k], l->roof_y[k]);
        fputs("\" fill=\"none\" stroke=\"" C_ROOF "\" stroke-width=\"2.5\"/>\n", out);
    }
    if (l->bw > 0 && l->slope_label) {
        char v[32];
        fmt(v, sizeof v, l->bw);
        fprintf(out,
                "<text class=\"roof-label\" transform=\"translate(%.1f %.1f) rotate(%.1f)\" "
                "font-size=\"11\" fill=\"" C_ROOF "\" dy=\"-6\">memory: copy %s GB/s</text>\n",
                l->slope_x, l->slope_y, l->slope_angle, v);
    }
    if (l->peak > 0 && !(l->bw > 0)) {
        double y = kl_logaxis_map(&l->ay, l->peak);
        fprintf(out,
                "<line class=\"roof\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_ROOF
                "\" stroke-width=\"2.5\"/>\n",
                KL_RF_X0, y, KL_RF_X1, y);
    }
    if (!(l->bw > 0))
        fprintf(out,
                "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"" C_MUTED
                "\">no measured roofs for this device: kladder peak measures them</text>\n",
                KL_RF_X0 + 8, KL_RF_Y0 + 16);
}

/* The other roofs, dashed, with every roof's label (the main one's too) after every line. */
static void roofline_others(FILE *out, const struct kl_roofline_layout *l)
{
    for (int j = 0; j < l->nlabels; j++) {
        const struct kl_other_roof *o = &l->others[l->order[j]];
        if (l->order[j] == l->nothers) {
            fprintf(out,
                    "<text class=\"roof-label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                    "font-size=\"11\" fill=\"" C_ROOF "\">%s</text>\n",
                    KL_RF_X1 - 6, l->main_y, l->main_label);
            continue;
        }
        fprintf(out,
                "<polyline class=\"roof other\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
                "fill=\"none\" stroke=\"" C_ROOF "\" stroke-width=\"1.2\" "
                "stroke-dasharray=\"5 4\"/>\n",
                o->x0, o->y0, o->xr, o->y, o->xe, o->y);
    }
    for (int j = 0; j < l->nlabels; j++) {
        const struct kl_other_roof *o = &l->others[l->order[j]];
        if (l->order[j] < l->nothers)
            fprintf(out,
                    "<text class=\"roof-label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                    "font-size=\"11\" fill=\"" C_ROOF "\">%s %s</text>\n",
                    KL_RF_X1 - 6, o->label_y, o->value, o->name);
    }
}

/* The on-chip levels' slopes, dotted, with their bandwidth. */
static void roofline_slopes(FILE *out, const struct kl_roofline_layout *l)
{
    static const char *const names[2] = {"L2", "shared memory"};
    for (int k = 0; k < 2; k++) {
        const struct kl_slope *s = &l->slopes[k];
        char v[32];
        if (!s->drawn)
            continue;
        fmt(v, sizeof v, s->gbps);
        fprintf(out,
                "<polyline class=\"roof slope\" data-gbps=\"%.9g\" points=\"%.1f,%.1f "
                "%.1f,%.1f\" fill=\"none\" stroke=\"" C_ROOF "\" stroke-width=\"1.2\" "
                "stroke-dasharray=\"2 3\"/>\n"
                "<text class=\"roof-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
                "fill=\"" C_ROOF "\">%s %s GB/s</text>\n",
                s->gbps, s->x0, s->y0, s->x1, s->y1, s->x0 + 4, s->y0 - 4, names[k], v);
    }
}

/* A point, its leader line and its label: rung, % of roof, and the roof it is read against. */
static void roofline_point(FILE *out, const struct kl_run_row *r, const struct kl_roof_point *p)
{
    link_open(out, r);
    fprintf(out, "<g class=\"pt %s\">", kind_of(r));
    row_tooltip(out, r);
    fprintf(out,
            "<polyline points=\"%.1f,%.1f %d,%.1f %d,%.1f\" fill=\"none\" stroke=\"" C_GRID
            "\" stroke-width=\"1\"/>",
            p->px + 5, p->py, KL_RF_X1 + 8, p->ly, KL_RF_X1 + 14, p->ly);
    fprintf(out, "<circle class=\"point %s\" data-rung=\"", kind_of(r));
    kl_xml_text(out, r->rung);
    fprintf(out,
            "\" data-ai=\"%.9g\" data-perf=\"%.9g\" cx=\"%.2f\" cy=\"%.2f\" r=\"4.5\" "
            "fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"1\"/>",
            p->ai, p->perf, p->px, p->py, colour_of(r));
    fprintf(out,
            "<text class=\"point-label\" x=\"%d\" y=\"%.1f\" font-size=\"11\" "
            "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" fill=\"%s\">",
            KL_RF_X1 + 16, p->ly + 4, colour_of(r));
    kl_xml_text(out, r->rung);
    if (isfinite(r->pct_ceiling) && r->pct_ceiling > 0)
        fprintf(out, " %.*f%%", r->pct_ceiling < 10 ? 1 : 0, r->pct_ceiling);
    if (r->precision && strcmp(r->precision, "fp32") != 0 && strcmp(r->precision, "fp64") &&
        strcmp(r->precision, "int32")) /* of another roof than the solid one */
        fprintf(out, " (%s roof)", r->precision);
    fputs("</text></g>", out);
    link_close(out, r);
    fputc('\n', out);
}

void kl_svg_roofline(FILE *out, const struct kl_run *run, int id, int standalone)
{
    const char *unit = kl_run_unit(run, KL_METRIC_FLOPS);
    struct kl_roofline_layout *l = malloc(sizeof *l);
    char title[300], sub[600], params[300];
    if (!l)
        return;
    kl_roofline_layout(run, l);
    kl_run_params_text(run, params, sizeof params);
    snprintf(title, sizeof title, "%s roofline: %s against arithmetic intensity", run->workload,
             unit);
    if (run->have_ceil)
        snprintf(sub, sizeof sub, "%s · %s · roofs from %s, %s", params, run->dev_name,
                 kl_ceilings_source(&run->ceil), run->ceil.date);
    else
        snprintf(sub, sizeof sub, "%s · %s", params, run->dev_name);
    svg_open(out, KL_RF_W, KL_RF_H, standalone, "roofline", id, title);
    svg_title(out, 10, 20, title, sub);
    roofline_plot(out, l, unit, id);
    roofline_main(out, l);
    roofline_others(out, l);
    if (l->bw > 0)
        roofline_slopes(out, l);
    for (int k = 0; k < l->npoints; k++)
        roofline_point(out, &run->rows[l->points[k].row], &l->points[k]);
    kl_roofline_layout_free(l);
    free(l);
    fputs("</svg>\n", out);
}

/* ---- the sweep ------------------------------------------------------------------- */

static void fmt_pow2(char *out, size_t n, double v)
{
    if (v >= 1 << 20 && fmod(v, 1 << 20) == 0)
        snprintf(out, n, "%gM", v / (1 << 20));
    else if (v >= 1 << 10 && fmod(v, 1 << 10) == 0)
        snprintf(out, n, "%gK", v / (1 << 10));
    else
        snprintf(out, n, "%g", v);
}

/*
 * What a sweep's x axis is, in the title (*x) and under the axis (*axis), and what its GB/s
 * count (*y): peak's cache curves the working set, peak --transfers the bytes of one copy,
 * copy --sweep N.
 */
static void sweep_words(const struct kl_run *run, const char **x, const char **axis,
                        const char **y)
{
    if (run->curves)
        *x = "the working set", *axis = "working set, bytes",
        *y = "GB/s (bytes read / median time)";
    else if (strcmp(run->workload, "collectives") == 0)
        *x = "the message size", *axis = "bytes (nccl-tests' size)",
        *y = "GB/s (bus bandwidth, as nccl-tests' busbw)";
    else if (strcmp(run->workload, "peak") == 0)
        *x = "the size of a copy", *axis = "bytes per copy",
        *y = "GB/s (bytes copied / median time)";
    else
        *x = "N", *axis = "N, elements of 4 bytes", *y = "GB/s (2·4·N bytes / median time)";
}

/* The plot: its area, N's log2 ticks, the GB/s ticks, its frame and what the axes measure. */
static void sweep_plot(FILE *out, const struct kl_run *run, const struct kl_sweep_layout *l, int id)
{
    char bg[8];
    const char *x_words, *axis, *y_words;
    sweep_words(run, &x_words, &axis, &y_words);
    kl_svg_background(id, bg);
    fprintf(out,
            "<g class=\"plot\" data-x-log2-min=\"%g\" data-x-log2-max=\"%g\" data-y-max=\"%.9g\" "
            "data-left=\"%d\" data-top=\"%d\" data-width=\"%d\" data-height=\"%d\">\n",
            l->l0, l->l1, l->axis, KL_SW_X0, KL_SW_Y0, KL_SW_X1 - KL_SW_X0, KL_SW_Y1 - KL_SW_Y0);
    fprintf(out,
            "<rect class=\"area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            KL_SW_X0, KL_SW_Y0, KL_SW_X1 - KL_SW_X0, KL_SW_Y1 - KL_SW_Y0, bg);
    for (int k = (int)l->l0; k <= (int)l->l1; k++) {
        double v = pow(2, k), x = kl_sweep_px(l, v);
        char lab[32];
        fmt_pow2(lab, sizeof lab, v);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"" C_GRID "\"/>", x,
                KL_SW_Y0, x, KL_SW_Y1);
        if ((k - (int)l->l0) % l->every == 0)
            fprintf(out,
                    "<text class=\"tick x\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                    "font-size=\"11\" fill=\"" C_MUTED "\" data-value=\"%.9g\">%s</text>",
                    x, KL_SW_Y1 + 15, v, lab);
        fputc('\n', out);
    }
    for (int k = 0; k <= 12 && k * l->step <= l->axis * (1 + 1e-9); k++) {
        char lab[32];
        double t = k * l->step, y = kl_sweep_py(l, t);
        fmt_axis(lab, sizeof lab, t);
        fprintf(out,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_GRID "\"/>"
                "<text class=\"tick y\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" "
                "fill=\"" C_MUTED "\" data-value=\"%.9g\">%s</text>\n",
                KL_SW_X0, y, KL_SW_X1, y, KL_SW_X0 - 5, y + 4, t, lab);
    }
    fprintf(out,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" C_INK
            "\"/>\n"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"" C_INK
            "\">%s (log scale; K = 1024, M = 1024²)</text>\n"
            "<text transform=\"translate(%d %d) rotate(-90)\" text-anchor=\"middle\" "
            "font-size=\"11\" fill=\"" C_INK "\">%s</text>\n",
            KL_SW_X0, KL_SW_Y0, KL_SW_X1 - KL_SW_X0, KL_SW_Y1 - KL_SW_Y0, (KL_SW_X0 + KL_SW_X1) / 2,
            KL_SW_Y1 + 34, axis, 18, (KL_SW_Y0 + KL_SW_Y1) / 2, y_words);
    fputs("</g>\n", out);
}

/* The copy roof, dashed across the plot. */
static void sweep_ceiling(FILE *out, const struct kl_sweep_layout *l)
{
    char v[32];
    double y = kl_sweep_py(l, l->ceil_bw);
    fmt(v, sizeof v, l->ceil_bw);
    fprintf(out,
            "<line class=\"roof\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_ROOF
            "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>"
            "<text class=\"roof-label\" x=\"%d\" y=\"%.1f\" font-size=\"11\" fill=\"" C_ROOF
            "\">copy ceiling %s GB/s (kladder peak)</text>\n",
            KL_SW_X0, y, KL_SW_X1, y, KL_SW_X0 + 6, y - 5, v);
}

/* Rung k's points: a circle each, a cross on the axis where it failed; the count of those. */
static int sweep_points(FILE *out, const struct kl_run *run, const struct kl_sweep_layout *l, int k)
{
    int nfailed = 0;
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        double v = kl_run_value(run, r, KL_METRIC_BYTES);
        int failed = strcmp(r->status, "failed") == 0;
        if (strcmp(r->rung, l->names[k]) != 0 || !kl_sweep_point(r->x) || (!isfinite(v) && !failed))
            continue;
        if (!isfinite(v)) {
            nfailed++;
            fputs("<text class=\"failed\" data-rung=\"", out);
            kl_xml_text(out, r->rung);
            fprintf(out,
                    "\" data-n=\"%.0f\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                    "font-weight=\"bold\" fill=\"" C_FAIL "\">✗</text>\n",
                    r->x, kl_sweep_px(l, r->x), KL_SW_Y1 - 4);
            continue;
        }
        fprintf(out, "<circle class=\"point\" data-rung=\"");
        kl_xml_text(out, r->rung);
        fprintf(out,
                "\" data-n=\"%.0f\" data-gbps=\"%.9g\" cx=\"%.2f\" cy=\"%.2f\" r=\"3\" "
                "fill=\"%s\">",
                r->x, v, kl_sweep_px(l, r->x), kl_sweep_py(l, v), series_colours[k % 8]);
        row_tooltip(out, r);
        fputs("</circle>\n", out);
    }
    return nfailed;
}

/* Rung k's line, its points and its legend entry; the count of sizes where it failed. */
static int sweep_series(FILE *out, const struct kl_run *run, const struct kl_sweep_layout *l, int k)
{
    const char *col = series_colours[k % 8];
    fprintf(out, "<g class=\"series\" data-rung=\"");
    kl_xml_text(out, l->names[k]);
    fprintf(out, "\">\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", col);
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        double v = kl_run_value(run, r, KL_METRIC_BYTES);
        if (strcmp(r->rung, l->names[k]) == 0 && isfinite(v) && kl_sweep_point(r->x))
            fprintf(out, "%.1f,%.1f ", kl_sweep_px(l, r->x), kl_sweep_py(l, v));
    }
    fputs("\"/>\n", out);
    int nfailed = sweep_points(out, run, l, k);
    fprintf(out,
            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>"
            "<text x=\"%d\" y=\"%d\" font-size=\"11\" font-family=\"DejaVu Sans Mono, Menlo, "
            "Consolas, monospace\" fill=\"" C_INK "\">",
            KL_SW_X1 + 16, KL_SW_Y0 + 8 + 18 * k, KL_SW_X1 + 40, KL_SW_Y0 + 8 + 18 * k, col,
            KL_SW_X1 + 46, KL_SW_Y0 + 12 + 18 * k);
    kl_xml_text(out, l->names[k]);
    fputs("</text>\n</g>\n", out);
    return nfailed;
}

void kl_svg_sweep(FILE *out, const struct kl_run *run, int id, int standalone)
{
    struct kl_sweep_layout l;
    char title[300], sub[600], params[300];
    int nfailed = 0;
    const char *x_words, *axis, *y_words;
    kl_sweep_layout(run, &l);
    kl_run_params_text(run, params, sizeof params);
    sweep_words(run, &x_words, &axis, &y_words);
    snprintf(title, sizeof title, "%s sweep: GB/s against %s, one line per rung", run->workload,
             x_words);
    snprintf(sub, sizeof sub, "%s · %s", params, run->dev_name);
    svg_open(out, KL_SW_W, KL_SW_H, standalone, "sweep", id, title);
    svg_title(out, 10, 20, title, sub);
    sweep_plot(out, run, &l, id);
    if (l.ceil_bw > 0)
        sweep_ceiling(out, &l);
    for (int k = 0; k < l.nnames; k++)
        nfailed += sweep_series(out, run, &l, k);
    if (nfailed)
        fprintf(out,
                "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"" C_FAIL
                "\">✗ on the axis: a size where the rung failed verification</text>\n",
                KL_SW_X0, KL_SW_H - 4);
    fputs("</svg>\n", out);
}
