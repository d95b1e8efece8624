#include "report/shapes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"

#define C_INK "#222222"
#define C_MUTED "#666666"
#define C_GRID "#dde1e6"
#define C_GOOD "#2e7d32"

/* The chart's frame: the plot, the shape labels below it, the legend to its right. */
#define SH_W 900
#define SH_H 470
#define SH_X0 64
#define SH_X1 560
#define SH_Y0 56
#define SH_Y1 340

static double param(const struct kl_run *run, const char *key)
{
    const struct kl_json *v = run->params ? kl_json_get(run->params, key) : NULL;
    return v && v->type == KL_JSON_NUMBER ? v->number : NAN;
}

double kl_shapes_shown(double ratio)
{
    /* + 1e-9: 0.29 * 100 is 28.999999999999996 in doubles, and stays 0.29 */
    return ratio < KL_SHAPES_GOOD ? floor(ratio * 100.0 + 1e-9) / 100.0 : ratio;
}

void kl_shape_name(const struct kl_run *run, char *out, size_t n)
{
    snprintf(out, n, "%.0f×%.0f×%.0f", param(run, "M"), param(run, "N"), param(run, "K"));
}

static int is_gemm(const struct kl_run *run)
{
    return strcmp(run->workload, "gemm") == 0 && isfinite(param(run, "M")) &&
           isfinite(param(run, "N")) && isfinite(param(run, "K"));
}

/* The GEMM runs by work per launch, then as given (insertion sort of a few dozen); their count. */
static int gemm_runs(const struct kl_run *runs, int n, struct kl_shapes *sh)
{
    for (int i = 0; i < n && sh->n < KL_SHAPES_MAX; i++)
        if (is_gemm(&runs[i]))
            sh->order[sh->n++] = i;
    for (int a = 1; a < sh->n; a++)
        for (int b = a; b > 0 && runs[sh->order[b]].flops < runs[sh->order[b - 1]].flops; b--) {
            int t = sh->order[b];
            sh->order[b] = sh->order[b - 1], sh->order[b - 1] = t;
        }
    return sh->n;
}

/* 1 where the runs are of more than one shape; else first names the one. */
static int several_shapes(const struct kl_run *runs, const struct kl_shapes *sh, char *first,
                          size_t n)
{
    char other[64];
    kl_shape_name(&runs[sh->order[0]], first, n);
    for (int k = 1; k < sh->n; k++) {
        kl_shape_name(&runs[sh->order[k]], other, sizeof other);
        if (strcmp(first, other) != 0)
            return 1;
    }
    return 0;
}

/* Precision p's series: at each shape with a library of its tolerance, the best rung over it. */
static void shape_series(const struct kl_run *runs, const struct kl_shapes *sh, const char *p,
                         struct kl_shape_series *s)
{
    s->precision = p;
    s->lo = INFINITY, s->hi = 0;
    for (int k = 0; k < sh->n; k++) {
        const struct kl_run_row *best, *peer;
        if (!kl_run_fastest(&runs[sh->order[k]], p, &best, &peer) || !peer)
            continue;
        struct kl_shape_point *pt = &s->pt[s->n++];
        pt->run = sh->order[k], pt->best = best, pt->peer = peer;
        pt->ratio = best->gflops / peer->gflops;
        s->good += pt->ratio >= KL_SHAPES_GOOD;
        s->lo = fmin(s->lo, pt->ratio), s->hi = fmax(s->hi, pt->ratio);
    }
}

int kl_shapes_collect(const struct kl_run *runs, int n, struct kl_shapes *sh, char *why,
                      size_t nwhy)
{
    char first[64];
    memset(sh, 0, sizeof *sh);
    if (gemm_runs(runs, n, sh) < 2) {
        snprintf(why, nwhy, "it takes two or more GEMM runs (%d given)", sh->n);
        return -1;
    }
    if (!several_shapes(runs, sh, first, sizeof first)) {
        snprintf(why, nwhy, "the GEMM runs are all of one shape (%s)", first);
        return -1;
    }
    for (const char *const *p = kl_run_precisions; *p && sh->nseries < KL_SHAPES_SERIES; p++) {
        shape_series(runs, sh, *p, &sh->s[sh->nseries]);
        sh->nseries += sh->s[sh->nseries].n > 0;
    }
    if (!sh->nseries) {
        snprintf(why, nwhy,
                 "no run has both a verified rung and a verified library of one precision "
                 "(add --compare)");
        return -1;
    }
    return 0;
}

/* The position of shape k (0 .. n-1) along x: the middle of its slot. */
static double shape_x(const struct kl_shapes *sh, int k)
{
    return SH_X0 + (k + 0.5) * (SH_X1 - SH_X0) / sh->n;
}

/* The slot of run i in the sweep. */
static int slot_of(const struct kl_shapes *sh, int run)
{
    for (int k = 0; k < sh->n; k++)
        if (sh->order[k] == run)
            return k;
    return 0;
}

void kl_svg_shapes(FILE *out, const struct kl_run *runs, const struct kl_shapes *sh, int id,
                   int standalone)
{
    double top = 1.25;
    for (int s = 0; s < sh->nseries; s++)
        top = fmax(top, sh->s[s].hi * 1.05);
    const double step = top <= 2.5 ? 0.25 : top <= 5 ? 0.5 : ceil(top / 10);
    const double axis = ceil(top / step) * step;
#define Y(v) (SH_Y1 - (v) / axis * (SH_Y1 - SH_Y0))
    char title[160], sub[400], bg[8];
    snprintf(title, sizeof title,
             "GEMM shapes: kladder's fastest rung of each precision against the library");
    snprintf(sub, sizeof sub, "%d shapes · %s · ratio of rates, same data, same run", sh->n,
             runs[sh->order[0]].dev_name);
    kl_svg_open(out, SH_W, SH_H, standalone, "shapes", id, title);
    kl_svg_title(out, 10, 20, title, sub);
    kl_svg_background(id, bg);
    fprintf(out,
            "<g class=\"plot\" data-shapes=\"%d\" data-y-max=\"%.9g\" data-left=\"%d\" "
            "data-top=\"%d\" data-width=\"%d\" data-height=\"%d\">\n"
            "<rect class=\"area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            sh->n, axis, SH_X0, SH_Y0, SH_X1 - SH_X0, SH_Y1 - SH_Y0, SH_X0, SH_Y0, SH_X1 - SH_X0,
            SH_Y1 - SH_Y0, bg);
    for (int k = 0; k * step <= axis * (1 + 1e-9); k++) {
        double t = k * step;
        fprintf(out,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_GRID "\"/>"
                "<text class=\"tick y\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" "
                "fill=\"" C_MUTED "\" data-value=\"%g\">%g×</text>\n",
                SH_X0, Y(t), SH_X1, Y(t), SH_X0 - 5, Y(t) + 4, t, t);
    }
    for (int k = 0; k < sh->n; k++) {
        char name[64];
        kl_shape_name(&runs[sh->order[k]], name, sizeof name);
        fprintf(out,
                "<text class=\"tick x\" transform=\"translate(%.1f %d) rotate(-40)\" "
                "text-anchor=\"end\" font-size=\"11\" fill=\"" C_MUTED "\" data-slot=\"%d\">",
                shape_x(sh, k) + 4, SH_Y1 + 14, k);
        kl_xml_text(out, name);
        fputs("</text>\n", out);
    }
    fprintf(out,
            "<line class=\"par\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_INK
            "\" stroke-width=\"1.2\"/>"
            "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" fill=\"" C_INK
            "\">1× the library</text>\n"
            "<line class=\"good\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_GOOD
            "\" stroke-width=\"1.2\" stroke-dasharray=\"6 4\" data-value=\"%g\"/>"
            "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" fill=\"" C_GOOD
            "\">%g×</text>\n"
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" C_INK
            "\"/>\n"
            "<text transform=\"translate(%d %d) rotate(-90)\" text-anchor=\"middle\" "
            "font-size=\"11\" fill=\"" C_INK "\">kladder's rate / the library's</text>\n</g>\n",
            SH_X0, Y(1.0), SH_X1, Y(1.0), SH_X1 - 4, Y(1.0) - 4, SH_X0, Y(KL_SHAPES_GOOD), SH_X1,
            Y(KL_SHAPES_GOOD), KL_SHAPES_GOOD, SH_X1 - 4, Y(KL_SHAPES_GOOD) + 13, KL_SHAPES_GOOD,
            SH_X0, SH_Y0, SH_X1 - SH_X0, SH_Y1 - SH_Y0, 18, (SH_Y0 + SH_Y1) / 2);
    for (int s = 0; s < sh->nseries; s++) {
        const struct kl_shape_series *x = &sh->s[s];
        const char *col = kl_svg_series_colour(s);
        fprintf(out,
                "<g class=\"series\" data-precision=\"%s\" data-good=\"%d\" data-points=\"%d\">\n"
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"",
                x->precision, x->good, x->n, col);
        for (int k = 0; k < x->n; k++)
            fprintf(out, "%.1f,%.1f ", shape_x(sh, slot_of(sh, x->pt[k].run)), Y(x->pt[k].ratio));
        fputs("\"/>\n", out);
        for (int k = 0; k < x->n; k++) {
            const struct kl_shape_point *p = &x->pt[k];
            char name[64];
            kl_shape_name(&runs[p->run], name, sizeof name);
            fprintf(out, "<circle class=\"point\" data-precision=\"%s\" data-shape=\"%s\" ",
                    x->precision, name);
            fprintf(out, "data-ratio=\"%.9g\" data-rung=\"", p->ratio);
            kl_xml_text(out, p->best->rung);
            fputs("\" data-peer=\"", out);
            kl_xml_text(out, p->peer->rung);
            fprintf(out, "\" cx=\"%.2f\" cy=\"%.2f\" r=\"4\" fill=\"%s\"><title>",
                    shape_x(sh, slot_of(sh, p->run)), Y(p->ratio), col);
            fprintf(out, "%s, %s: ", x->precision, name);
            kl_xml_text(out, p->best->rung);
            fprintf(out, " %.4g GFLOP/s, %.2f× ", p->best->gflops, kl_shapes_shown(p->ratio));
            kl_xml_text(out, p->peer->rung);
            fprintf(out, " (%s, %.4g)</title></circle>\n", p->peer->precision, p->peer->gflops);
        }
        fprintf(out,
                "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/>"
                "<text class=\"legend\" x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"" C_INK
                "\"><tspan font-weight=\"bold\">%s</tspan>: ≥ %g× at %d of %d shapes "
                "(%.2f–%.2f×)</text>\n</g>\n",
                SH_X1 + 20, SH_Y0 + 8 + 20 * s, col, SH_X1 + 30, SH_Y0 + 12 + 20 * s, x->precision,
                KL_SHAPES_GOOD, x->good, x->n, kl_shapes_shown(x->lo), kl_shapes_shown(x->hi));
    }
#undef Y
    fputs("</svg>\n", out);
}
