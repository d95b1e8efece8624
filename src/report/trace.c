/*
 * A soak's trace as a chart (report/trace.h): every iteration's GEMM and
 * copy rate and SM clock, each as a share of its own best over the soak,
 * against the time the iteration began; the iterations with a wrong result
 * marked in red along the bottom. A device that slows as it warms shows as
 * lines that fall away from 1.
 */
#include "report/trace.h"

#include <math.h>
#include <string.h>

#include "report/svg.h"

#define C_INK "#222222"
#define C_MUTED "#666666"
#define C_GRID "#dde1e6"
#define C_WRONG "#c0392b"

#define TR_W 900
#define TR_H 360
#define TR_X0 64
#define TR_X1 620
#define TR_Y0 56
#define TR_Y1 300
#define TR_TOP 1.05 /* the y axis ends a little above the best */

/* Field key of trace point p, or NaN where absent or not a number. */
static double field(const struct kl_json *p, const char *key)
{
    const struct kl_json *v = kl_json_get(p, key);
    return v && v->type == KL_JSON_NUMBER ? v->number : NAN;
}

static const struct kl_json *trace_of(const struct kl_run *run)
{
    const struct kl_json *t = run->root ? kl_json_get(run->root, "trace") : NULL;
    return t && t->type == KL_JSON_ARRAY && t->count > 0 ? t : NULL;
}

int kl_svg_has_trace(const struct kl_run *run)
{
    return trace_of(run) != NULL;
}

/* The series: what each point's value is (a rate: 1 / seconds; a clock: MHz). */
static const struct {
    const char *key, *name;
    int inverse;
} series[] = {{"gemm_s", "GEMM rate", 1}, {"copy_s", "copy rate", 1}, {"sm_mhz", "SM clock", 0}};
#define NSERIES (int)(sizeof series / sizeof *series)

static double value(const struct kl_json *p, int s)
{
    double v = field(p, series[s].key);
    return !(v > 0) ? NAN : series[s].inverse ? 1 / v : v;
}

static double x_of(double t, double t_max)
{
    return TR_X0 + (TR_X1 - TR_X0) * (t_max > 0 ? t / t_max : 0);
}

static double y_of(double share)
{
    return TR_Y1 - (TR_Y1 - TR_Y0) * share / TR_TOP;
}

/* The frame: the grid at every fifth of the best, the axes' words. */
static void frame(FILE *out, double t_max)
{
    for (int k = 0; k <= 5; k++) {
        double y = y_of(0.2 * k);
        fprintf(out,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_GRID "\"/>\n"
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"" C_MUTED "\">%.1f</text>\n",
                TR_X0, y, TR_X1, y, TR_X0 - 6, y + 4, 0.2 * k);
    }
    for (int k = 0; k <= 4; k++)
        fprintf(out,
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"" C_MUTED "\">%.3g s</text>\n",
                x_of(t_max * k / 4, t_max), TR_Y1 + 18, t_max * k / 4);
    fprintf(out,
            "<text x=\"%d\" y=\"%d\" fill=\"" C_MUTED "\">share of its best over the soak, "
            "against the time each iteration began</text>\n",
            TR_X0, TR_Y1 + 40);
}

/* Series s as a line and a point per iteration that has it; its best into *best. */
static void draw_series(FILE *out, const struct kl_json *tr, int s, double t_max, double *best)
{
    *best = 0;
    for (int i = 0; i < tr->count; i++)
        if (value(tr->items[i], s) > *best)
            *best = value(tr->items[i], s);
    if (!(*best > 0))
        return;
    fprintf(out, "<polyline class=\"trace-line\" fill=\"none\" stroke=\"%s\" points=\"",
            kl_svg_series_colour(s));
    for (int i = 0; i < tr->count; i++)
        if (value(tr->items[i], s) > 0)
            fprintf(out, "%.1f,%.1f ", x_of(field(tr->items[i], "t_s"), t_max),
                    y_of(value(tr->items[i], s) / *best));
    fputs("\"/>\n", out);
    for (int i = 0; i < tr->count; i++) {
        double v = value(tr->items[i], s), t = field(tr->items[i], "t_s");
        if (v > 0)
            fprintf(out,
                    "<circle class=\"trace-point\" data-series=\"%s\" data-t=\"%.6g\" "
                    "data-share=\"%.4f\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>\n",
                    series[s].key, t, v / *best, x_of(t, t_max), y_of(v / *best),
                    kl_svg_series_colour(s));
    }
}

/* The iterations with a wrong result: a red tick each along the bottom. */
static int draw_wrong(FILE *out, const struct kl_json *tr, double t_max)
{
    int wrong = 0;
    for (int i = 0; i < tr->count; i++) {
        const struct kl_json *w = kl_json_get(tr->items[i], "wrong");
        if (w && w->type == KL_JSON_BOOL && w->boolean) {
            double x = x_of(field(tr->items[i], "t_s"), t_max);
            fprintf(out,
                    "<line class=\"trace-wrong\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                    "stroke=\"" C_WRONG "\" stroke-width=\"2\"/>\n",
                    x, TR_Y1 - 10, x, TR_Y1);
            wrong++;
        }
    }
    return wrong;
}

void kl_svg_trace(FILE *out, const struct kl_run *run, int id, int standalone)
{
    const struct kl_json *tr = trace_of(run);
    double t_max = 0, best[NSERIES];
    char subtitle[256];
    if (!tr)
        return;
    for (int i = 0; i < tr->count; i++)
        t_max = fmax(t_max, field(tr->items[i], "t_s"));
    snprintf(subtitle, sizeof subtitle, "%d iterations over %.3g s on %s", tr->count, t_max,
             run->dev_name);
    kl_svg_open(out, TR_W, TR_H, standalone, "trace", id, "the soak's trace");
    kl_svg_title(out, TR_X0, 22, "Soak: each iteration against the soak's best", subtitle);
    frame(out, t_max);
    for (int s = 0; s < NSERIES; s++)
        draw_series(out, tr, s, t_max, &best[s]);
    int wrong = draw_wrong(out, tr, t_max);
    int y = TR_Y0;
    for (int s = 0; s < NSERIES; s++, y += 20) {
        fprintf(out,
                "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"3\" fill=\"%s\"/>\n"
                "<text x=\"%d\" y=\"%d\" fill=\"" C_INK "\">",
                TR_X1 + 24, y - 4, kl_svg_series_colour(s), TR_X1 + 42, y);
        kl_xml_text(out, series[s].name);
        if (!(best[s] > 0))
            fputs(": not measured", out);
        fputs("</text>\n", out);
    }
    fprintf(out, "<text x=\"%d\" y=\"%d\" fill=\"%s\">%d iteration%s wrong</text>\n", TR_X1 + 24,
            y, wrong ? C_WRONG : C_MUTED, wrong, wrong == 1 ? "" : "s");
    fputs("</svg>\n", out);
}
