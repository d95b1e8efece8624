#include "report/radii.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/svg.h"
#include "report/svg_layout.h"

#define C_INK "#222222"
#define C_MUTED "#666666"
#define C_GRID "#dde1e6"

/* One chart's frame: the plot, the radius and σ labels below it, the legend to its right. */
#define RD_W 900
#define RD_H 390
#define RD_X0 72
#define RD_X1 560
#define RD_Y0 56
#define RD_Y1 320

/* The words before NPP's time in the note of its row that failed verification (blur/peers.c). */
#define NOTE_TIME "its launches took "

static double param(const struct kl_run *run, const char *key)
{
    const struct kl_json *v = run->params ? kl_json_get(run->params, key) : NULL;
    return v && v->type == KL_JSON_NUMBER ? v->number : NAN;
}

/* The pixel type; files without one blurred floats. */
static const char *pixel_of(const struct kl_run *run)
{
    const struct kl_json *v = run->params ? kl_json_get(run->params, "pixel") : NULL;
    return v && v->type == KL_JSON_STRING ? v->string : "float";
}

static int is_blur(const struct kl_run *run)
{
    return strcmp(run->workload, "blur") == 0 && param(run, "width") > 0 &&
           param(run, "height") > 0 && param(run, "radius") >= 0;
}

/*
 * The copy bandwidth the run recorded (its ceiling_values, as its % roof
 * used them), NaN where it has none. A cache read now may be of another
 * day's driver: the floor is only the run's own.
 */
static double recorded_copy_gbps(const struct kl_run *run)
{
    const struct kl_json *cv = run->root ? kl_json_get(run->root, "ceiling_values") : NULL;
    const struct kl_json *v = cv ? kl_json_get(cv, "copy_gbps") : NULL;
    return v && v->type == KL_JSON_NUMBER && v->number > 0 ? v->number : NAN;
}

void kl_radii_group_name(const struct kl_radii_group *g, char *out, size_t n)
{
    snprintf(out, n, "%s %d×%d on %s", g->pixel, g->width, g->height, g->device);
}

/* The group of run's kind, a new one where none matches; NULL past KL_RADII_GROUPS. */
static struct kl_radii_group *group_of(struct kl_radii *rd, const struct kl_run *run)
{
    const char *pixel = pixel_of(run);
    int w = (int)param(run, "width"), h = (int)param(run, "height");
    for (int k = 0; k < rd->ngroups; k++) {
        struct kl_radii_group *g = &rd->g[k];
        if (strcmp(g->pixel, pixel) == 0 && g->width == w && g->height == h &&
            strcmp(g->device, run->dev_name) == 0)
            return g;
    }
    if (rd->ngroups == KL_RADII_GROUPS)
        return NULL;
    struct kl_radii_group *g = &rd->g[rd->ngroups++];
    g->pixel = pixel, g->device = run->dev_name, g->width = w, g->height = h;
    return g;
}

/* kladder's fastest verified rung (a peer is not kladder's); NULL where none verified. */
static const struct kl_run_row *fastest(const struct kl_run *run)
{
    const struct kl_run_row *best = NULL;
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        if (r->peer || strcmp(r->status, "verified") != 0 || !(r->median_s > 0))
            continue;
        if (!best || r->median_s < best->median_s)
            best = r;
    }
    return best;
}

static const struct kl_run_row *npp_row(const struct kl_run *run)
{
    for (int i = 0; i < run->nrows; i++)
        if (run->rows[i].peer && strcmp(run->rows[i].rung, "peer:npp") == 0)
            return &run->rows[i];
    return NULL;
}

/*
 * NPP's time in µs: its median where verified. Where it ran and failed
 * verification, its note keeps the time ("its launches took T ms"): that
 * time, with *failed 1, to draw as no result. A row that failed otherwise
 * (*failed 2) or was skipped has none (NaN).
 */
static double peer_time_us(const struct kl_run_row *r, int *failed)
{
    *failed = 0;
    if (strcmp(r->status, "verified") == 0)
        return r->median_s * 1e6;
    if (strcmp(r->status, "failed") != 0)
        return NAN;
    const char *t = r->note ? strstr(r->note, NOTE_TIME) : NULL;
    char *end = NULL;
    double ms = t ? strtod(t + strlen(NOTE_TIME), &end) : NAN;
    *failed = t && strncmp(end, " ms", 3) == 0 && ms > 0 ? 1 : 2;
    return *failed == 1 ? ms * 1e3 : NAN;
}

/* Run i's point, inserted after those of a smaller or the same radius. */
static void add_point(struct kl_radii_group *g, const struct kl_run *run, int i)
{
    struct kl_radius_point p = {.run = i, .sigma = param(run, "sigma")};
    p.radius = (int)param(run, "radius");
    p.best = fastest(run), p.peer = npp_row(run);
    p.best_us = p.best ? p.best->median_s * 1e6 : NAN;
    p.peer_us = p.peer ? peer_time_us(p.peer, &p.peer_failed) : NAN;
    p.copy_gbps = recorded_copy_gbps(run);
    p.floor_us = run->bytes > 0 ? run->bytes / (p.copy_gbps * 1e3) : NAN;
    int k = g->n++;
    for (; k > 0 && g->pt[k - 1].radius > p.radius; k--)
        g->pt[k] = g->pt[k - 1];
    g->pt[k] = p;
}

static void span(double *lo, double *hi, double v)
{
    if (isfinite(v) && v > 0)
        *lo = fmin(*lo, v), *hi = fmax(*hi, v);
}

/* The group's counts and ranges, from its points. */
static void group_stats(struct kl_radii_group *g)
{
    g->floor_lo = g->peer_lo = g->y_lo = INFINITY;
    g->floor_hi = g->peer_hi = g->y_hi = 0;
    for (int k = 0; k < g->n; k++) {
        const struct kl_radius_point *p = &g->pt[k];
        g->radii += k == 0 || p->radius != g->pt[k - 1].radius;
        g->nfloor += isfinite(p->floor_us);
        g->npeer += p->peer && !p->peer_failed && isfinite(p->peer_us);
        g->npeer_failed += p->peer_failed != 0;
        span(&g->y_lo, &g->y_hi, p->best_us);
        span(&g->y_lo, &g->y_hi, p->peer_us);
        span(&g->y_lo, &g->y_hi, p->floor_us);
        span(&g->floor_lo, &g->floor_hi, p->best_us / p->floor_us);
        if (!p->peer_failed)
            span(&g->peer_lo, &g->peer_hi, p->peer_us / p->best_us);
    }
}

int kl_radii_collect(const struct kl_run *runs, int n, struct kl_radii *rd, char *why, size_t nwhy)
{
    memset(rd, 0, sizeof *rd);
    for (int i = 0; i < n; i++) {
        if (!is_blur(&runs[i]))
            continue;
        rd->nblur++;
        struct kl_radii_group *g = group_of(rd, &runs[i]);
        if (g && g->n < KL_RADII_MAX)
            add_point(g, &runs[i], i);
    }
    for (int k = 0; k < rd->ngroups; k++) {
        group_stats(&rd->g[k]);
        rd->charts += rd->g[k].radii >= 2;
    }
    if (rd->nblur < 2)
        snprintf(why, nwhy, "it takes two or more blur runs (%d given)", rd->nblur);
    else if (!rd->charts && rd->ngroups > 1)
        snprintf(why, nwhy,
                 "no two blur runs share a pixel type, picture size and device (runs of one "
                 "--pixel and size at several --sigma make a curve)");
    else if (!rd->charts)
        snprintf(why, nwhy, "the blur runs are all of one radius (%d, σ %g)", rd->g[0].pt[0].radius,
                 rd->g[0].pt[0].sigma);
    return rd->charts ? 0 : -1;
}

/* ---- the sentence ------------------------------------------------------------ */

static void add(char *out, size_t n, const char *fmt, ...)
{
    size_t used = strlen(out);
    va_list ap;
    va_start(ap, fmt);
    if (used < n)
        vsnprintf(out + used, n - used, fmt, ap);
    va_end(ap);
}

/* "1.4–3.1×" (one figure where both ends round alike). */
static void add_range(char *out, size_t n, double lo, double hi)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "%.3g", lo);
    snprintf(b, sizeof b, "%.3g", hi);
    add(out, n, strcmp(a, b) == 0 ? "%s×" : "%s–%s×", a, b);
}

/* "; LEAD σ 1, 2" for the points where NPP's failure is of kind `failed`; nothing where none. */
static void add_sigmas(char *out, size_t n, const struct kl_radii_group *g, int failed,
                       const char *lead)
{
    int said = 0;
    for (int k = 0; k < g->n; k++)
        if (g->pt[k].peer_failed == failed)
            add(out, n, said++ ? ", %g" : "; %s σ %g", lead, g->pt[k].sigma);
}

static void add_npp(char *out, size_t n, const struct kl_radii_group *g)
{
    int rows = 0;
    for (int k = 0; k < g->n; k++)
        rows += g->pt[k].peer != NULL;
    if (g->npeer && g->peer_hi > 0) {
        add(out, n, "; NPP takes ");
        add_range(out, n, g->peer_lo, g->peer_hi);
        add(out, n, " kladder's best time (verified at %d of %d runs)", g->npeer, g->n);
    } else if (!rows)
        add(out, n, "; no NPP row (kladder blur --compare npp adds one)");
    else if (!g->npeer && !g->npeer_failed)
        add(out, n, "; NPP did not run (skipped)");
    add_sigmas(out, n, g, 1, "NPP fails verification (its time is no result) at");
    add_sigmas(out, n, g, 2, "NPP's call failed at");
}

void kl_radii_summary(const struct kl_radii_group *g, char *out, size_t n)
{
    const struct kl_radius_point *a = &g->pt[0], *z = &g->pt[g->n - 1];
    out[0] = '\0';
    kl_radii_group_name(g, out, n);
    if (g->radii < 2) {
        add(out, n, ": %d run%s, all of radius %d (σ %g): no curve", g->n, g->n == 1 ? "" : "s",
            a->radius, a->sigma);
        return;
    }
    double slo = INFINITY, shi = 0;
    for (int k = 0; k < g->n; k++)
        span(&slo, &shi, g->pt[k].sigma);
    add(out, n, ": radius %d–%d (σ %g–%g), %d runs", a->radius, z->radius, slo, shi, g->n);
    if (g->nfloor && g->floor_hi > 0) {
        add(out, n, "; kladder's best takes ");
        add_range(out, n, g->floor_lo, g->floor_hi);
        add(out, n, " the memory floor");
        if (g->nfloor < g->n)
            add(out, n, " (%d of %d runs record a copy bandwidth)", g->nfloor, g->n);
    } else
        add(out, n,
            "; no memory floor: no run records a copy bandwidth (kladder peak measures it)");
    for (int k = 0, said = 0; k < g->n; k++)
        if (!g->pt[k].best)
            add(out, n, said++ ? ", %g" : "; no verified rung at σ %g", g->pt[k].sigma);
    add_npp(out, n, g);
}

/* ---- the chart --------------------------------------------------------------- */

/* The axes: log10 of the radius and of µs, to the plot's pixels (svg_layout.h's log axes). */
struct axes {
    struct kl_logaxis x, y;
};

static struct axes axes_of(const struct kl_radii_group *g)
{
    struct axes a = {{0, 0, RD_X0, RD_X1}, {0, 0, RD_Y1, RD_Y0}};
    a.x.lo = log10(fmax(g->pt[0].radius, 1) / 1.3);
    a.x.hi = log10(fmax(g->pt[g->n - 1].radius, 1) * 1.3);
    /* A group with no time at all (every rung failed, no NPP, no floor) gets an empty decade. */
    a.y.lo = isfinite(g->y_lo) ? floor(log10(g->y_lo * 0.9)) : 0;
    a.y.hi = g->y_hi > 0 ? ceil(log10(g->y_hi * 1.1)) : 1;
    if (a.y.hi - a.y.lo < 1)
        a.y.hi = a.y.lo + 1;
    return a;
}

/* A radius's x (radius 0 at 1's, where a log axis can put it). */
static double ax_x(const struct axes *a, int radius)
{
    return kl_logaxis_map(&a->x, fmax(radius, 1));
}

static double ax_y(const struct axes *a, double us)
{
    return kl_logaxis_map(&a->y, us);
}

/* "436 µs", "1.22 ms", "2.5 s". */
static void time_text(char *out, size_t n, double us)
{
    if (us < 1e3)
        snprintf(out, n, "%.3g µs", us);
    else if (us < 1e6)
        snprintf(out, n, "%.3g ms", us / 1e3);
    else
        snprintf(out, n, "%.3g s", us / 1e6);
}

/* The time axis: a line at 1, 2 and 5 of each decade (at 1 only over more than three). */
static void y_ticks(FILE *out, const struct axes *a)
{
    static const double steps[] = {1, 2, 5};
    for (int d = (int)a->y.lo; d <= (int)a->y.hi; d++)
        for (int s = 0; s < 3; s++) {
            double v = steps[s] * pow(10, d), y = ax_y(a, v);
            char t[32];
            if (log10(v) > a->y.hi + 1e-9 || (s && a->y.hi - a->y.lo > 3))
                continue;
            time_text(t, sizeof t, v);
            fprintf(out,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"" C_GRID "\"/>"
                    "<text class=\"tick y\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                    "font-size=\"11\" fill=\"" C_MUTED "\" data-value=\"%g\">%s</text>\n",
                    RD_X0, y, RD_X1, y, RD_X0 - 5, y + 4, v, t);
        }
}

/* The radius axis: each radius of the runs, its σ below it; a label too near the last is left. */
static void x_ticks(FILE *out, const struct kl_radii_group *g, const struct axes *a)
{
    double last = -100;
    for (int k = 0; k < g->n; k++) {
        double x = ax_x(a, g->pt[k].radius);
        if (x - last < 24)
            continue;
        last = x;
        fprintf(out,
                "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"" C_GRID "\"/>"
                "<text class=\"tick x\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                "font-size=\"11\" fill=\"" C_INK "\" data-value=\"%d\">%d</text>"
                "<text class=\"tick sigma\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                "font-size=\"10\" fill=\"" C_MUTED "\" data-value=\"%g\">σ %g</text>\n",
                x, RD_Y0, x, RD_Y1, x, RD_Y1 + 15, g->pt[k].radius, g->pt[k].radius, x, RD_Y1 + 29,
                g->pt[k].sigma, g->pt[k].sigma);
    }
}

/* The plot's frame, its axis mapping (data-*) and both axes. */
static void frame(FILE *out, const struct kl_radii_group *g, const struct axes *a, const char *bg)
{
    fprintf(out,
            "<g class=\"plot\" data-points=\"%d\" data-x-log-min=\"%.9g\" data-x-log-max=\"%.9g\" "
            "data-y-log-min=\"%.9g\" data-y-log-max=\"%.9g\" data-left=\"%d\" data-top=\"%d\" "
            "data-width=\"%d\" data-height=\"%d\">\n"
            "<rect class=\"area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n",
            g->n, a->x.lo, a->x.hi, a->y.lo, a->y.hi, RD_X0, RD_Y0, RD_X1 - RD_X0, RD_Y1 - RD_Y0,
            RD_X0, RD_Y0, RD_X1 - RD_X0, RD_Y1 - RD_Y0, bg);
    y_ticks(out, a);
    x_ticks(out, g, a);
    fprintf(out,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" C_INK
            "\"/>\n"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" fill=\"" C_INK
            "\">radius (taps each side; σ below), log axis</text>\n"
            "<text transform=\"translate(%d %d) rotate(-90)\" text-anchor=\"middle\" "
            "font-size=\"11\" fill=\"" C_INK "\">time per picture (median), log axis</text>\n"
            "</g>\n",
            RD_X0, RD_Y0, RD_X1 - RD_X0, RD_Y1 - RD_Y0, (RD_X0 + RD_X1) / 2, RD_Y1 + 48, 16,
            (RD_Y0 + RD_Y1) / 2);
}

/* Which time of a point a series draws. */
enum series { S_BEST, S_PEER, S_FLOOR };

static double time_of(const struct kl_radius_point *p, enum series s)
{
    return s == S_BEST ? p->best_us : s == S_PEER ? p->peer_us : p->floor_us;
}

/* A point that belongs on series s's line: drawn, and a result (NPP's failures are not). */
static int on_line(const struct kl_radius_point *p, enum series s)
{
    return isfinite(time_of(p, s)) && !(s == S_PEER && p->peer_failed);
}

static void line(FILE *out, const struct kl_radii_group *g, const struct axes *a, enum series s,
                 const char *col, const char *dash)
{
    fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s points=\"", col,
            dash);
    for (int k = 0; k < g->n; k++)
        if (on_line(&g->pt[k], s))
            fprintf(out, "%.1f,%.1f ", ax_x(a, g->pt[k].radius), ax_y(a, time_of(&g->pt[k], s)));
    fputs("\"/>\n", out);
}

/* The tooltip of a point: which run, which rung or row, its time and what it means. */
static void tooltip(FILE *out, const struct kl_run *run, const struct kl_radius_point *p,
                    enum series s)
{
    char t[32];
    time_text(t, sizeof t, time_of(p, s));
    fprintf(out, "<title>σ %g, radius %d: ", p->sigma, p->radius);
    if (s == S_FLOOR) {
        fprintf(
            out,
            "memory floor %s: %.4g MB read and written once at %.4g GB/s, the run's copy bandwidth",
            t, run->bytes / 1e6, p->copy_gbps);
    } else if (s == S_PEER) {
        kl_xml_text(out, p->peer->rung);
        fprintf(out,
                p->peer_failed ? " fails verification: its launches took %s (from its note), "
                                 "not a result"
                               : " %s",
                t);
    } else {
        kl_xml_text(out, p->best->rung);
        if (p->best->config && *p->best->config) {
            fputs(" (", out);
            kl_xml_text(out, p->best->config);
            fputs(")", out);
        }
        fprintf(out, " %s", t);
        if (isfinite(p->floor_us))
            fprintf(out, ", %.2f× the memory floor", p->best_us / p->floor_us);
    }
    fprintf(out, " (");
    kl_xml_text(out, run->name);
    fputs(")</title>", out);
}

static const char *const series_name[] = {"best", "peer", "floor"};

/* Series s's marks: a disc per point (a hollow ring for NPP's failed rows), with its numbers. */
static void marks(FILE *out, const struct kl_run *runs, const struct kl_radii_group *g,
                  const struct axes *a, enum series s, const char *col)
{
    for (int k = 0; k < g->n; k++) {
        const struct kl_radius_point *p = &g->pt[k];
        if (!isfinite(time_of(p, s)))
            continue;
        int hollow = s == S_PEER && p->peer_failed;
        const char *rung = s == S_BEST ? p->best->rung : s == S_PEER ? p->peer->rung : "";
        fprintf(out,
                "<circle class=\"point %s%s\" data-series=\"%s\" data-radius=\"%d\" "
                "data-sigma=\"%g\" data-us=\"%.9g\" data-verified=\"%d\" data-rung=\"",
                series_name[s], hollow ? " failed" : "", series_name[s], p->radius, p->sigma,
                time_of(p, s), s != S_PEER || !hollow);
        kl_xml_text(out, rung);
        fprintf(out, "\" cx=\"%.2f\" cy=\"%.2f\" r=\"%d\" fill=\"%s\" stroke=\"%s\"%s>",
                ax_x(a, p->radius), ax_y(a, time_of(p, s)), s == S_FLOOR ? 3 : 4,
                hollow ? "#ffffff" : col, col, hollow ? " stroke-width=\"2\"" : "");
        tooltip(out, &runs[p->run], p, s);
        fputs("</circle>\n", out);
    }
}

/* A legend line: its mark at row `row` right of the plot, then the words (bold lead). */
static void legend(FILE *out, int row, const char *col, int hollow, const char *lead,
                   const char *rest)
{
    int y = RD_Y0 + 8 + 34 * row;
    fprintf(out,
            "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\" stroke=\"%s\"%s/>"
            "<text class=\"legend\" x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"" C_INK
            "\"><tspan font-weight=\"bold\">%s</tspan></text>"
            "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"" C_MUTED "\">%s</text>\n",
            RD_X1 + 20, y, hollow ? "#ffffff" : col, col, hollow ? " stroke-width=\"2\"" : "",
            RD_X1 + 30, y + 4, lead, RD_X1 + 30, y + 17, rest);
}

/* The three series of a group; NPP's and the floor's where some run has them. */
static void series(FILE *out, const struct kl_run *runs, const struct kl_radii_group *g,
                   const struct axes *a)
{
    const char *best = kl_svg_series_colour(0), *peer = kl_svg_series_colour(1),
               *floor_col = kl_svg_series_colour(2);
    int row = 0;
    fputs("<g class=\"series\" data-series=\"best\">\n", out);
    line(out, g, a, S_BEST, best, "");
    marks(out, runs, g, a, S_BEST, best);
    legend(out, row++, best, 0, "kladder's fastest verified rung",
           "at each radius (the rung is in each point's title)");
    fprintf(out,
            "</g>\n<g class=\"series\" data-series=\"peer\" data-verified=\"%d\" "
            "data-failed=\"%d\">\n",
            g->npeer, g->npeer_failed);
    line(out, g, a, S_PEER, peer, "");
    marks(out, runs, g, a, S_PEER, peer);
    if (g->npeer)
        legend(out, row++, peer, 0, "NPP (peer:npp)", "verified: its median");
    if (g->npeer_failed)
        legend(out, row++, peer, 1, "NPP fails verification",
               "its time from the row's note: not a result");
    fprintf(out, "</g>\n<g class=\"series\" data-series=\"floor\" data-points=\"%d\">\n",
            g->nfloor);
    line(out, g, a, S_FLOOR, floor_col, " stroke-dasharray=\"6 4\"");
    marks(out, runs, g, a, S_FLOOR, floor_col);
    if (g->nfloor)
        legend(out, row++, floor_col, 0, "memory floor",
               "the picture read + written once at the copy bandwidth");
    fputs("</g>\n", out);
}

/* Group g's chart, its plot tinted bg. */
static void panel(FILE *out, const struct kl_run *runs, const struct kl_radii_group *g,
                  const char *bg)
{
    struct axes a = axes_of(g);
    char name[400], sub[512];
    kl_radii_group_name(g, name, sizeof name);
    snprintf(sub, sizeof sub, "%s · %d runs · medians", name, g->n);
    kl_svg_title(out, 10, 20, "Blur radii: time per picture against the radius", sub);
    frame(out, g, &a, bg);
    series(out, runs, g, &a);
}

void kl_svg_radii(FILE *out, const struct kl_run *runs, const struct kl_radii *rd, int k, int id,
                  int standalone)
{
    char bg[8];
    int n = k >= 0 ? 1 : rd->charts, row = 0;
    kl_svg_background(id, bg);
    kl_svg_open(out, RD_W, RD_H * n, standalone, "radii", id,
                "Blur radii: time per picture against the radius");
    for (int j = 0; j < rd->ngroups && row < n; j++) {
        if (rd->g[j].radii < 2 || (k >= 0 && j != k))
            continue;
        fprintf(out, "<g class=\"group\" data-group=\"%d\" data-pixel=\"", j);
        kl_xml_text(out, rd->g[j].pixel);
        fprintf(out, "\" data-width=\"%d\" data-height=\"%d\" transform=\"translate(0 %d)\">\n",
                rd->g[j].width, rd->g[j].height, RD_H * row++);
        panel(out, runs, &rd->g[j], bg);
        fputs("</g>\n", out);
    }
    fputs("</svg>\n", out);
}

/* ---- the page's section --------------------------------------------------------- */

void kl_radii_section(FILE *out, const struct kl_run *runs, int n, int *chart_id)
{
    struct kl_radii *rd = malloc(sizeof *rd);
    char why[256], line[2048];
    if (!rd)
        return;
    int charted = kl_radii_collect(runs, n, rd, why, sizeof why) == 0;
    if (rd->nblur < 2) {
        free(rd);
        return;
    }
    fputs("<section class=\"radii\" id=\"radii\">\n<h2>Blur radii</h2>\n", out);
    if (charted) {
        fputs("<div class=\"charts\">\n", out);
        for (int k = 0; k < rd->ngroups; k++)
            if (rd->g[k].radii >= 2)
                kl_svg_radii(out, runs, rd, k, (*chart_id)++, 0);
        fputs("</div>\n", out);
    } else {
        fputs("<p class=\"note\">No radius chart: ", out);
        kl_xml_text(out, why);
        fputs(".</p>\n", out);
    }
    fputs("<ul class=\"radii\">\n", out);
    for (int k = 0; k < rd->ngroups; k++) {
        kl_radii_summary(&rd->g[k], line, sizeof line);
        fputs("<li>", out);
        kl_xml_text(out, line);
        fputs("</li>\n", out);
    }
    fputs("</ul>\n</section>\n", out);
    free(rd);
}
