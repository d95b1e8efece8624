/*
 * The layouts of the charts (report/svg_layout.h): every position computed
 * from the run, nothing written.
 */
#include "report/svg_layout.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void kl_svg_number(char *out, size_t n, double v)
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

double kl_svg_nice_step(double max, int ticks)
{
    double raw = max / ticks, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
}

/* ---- the ladder ------------------------------------------------------------------ */

/* A row on the ladder of metric m: of that metric, not a point of a curve beside it. */
static int on_ladder(const struct kl_run *run, const struct kl_run_row *r, enum kl_metric m)
{
    return kl_run_metric(run, r) == m && !kl_run_on_curve(run, r);
}

/* The largest value to show: a bar's, or its whisker's (the best launch's rate). */
static double row_reach(const struct kl_run_row *r, enum kl_metric m, double v)
{
    double reach = isfinite(v) ? v : 0;
    if (r->timed && m != KL_METRIC_TIME && r->min_s > 0 && isfinite(v))
        reach = fmax(reach, v * r->median_s / r->min_s);
    else if (r->timed && m == KL_METRIC_TIME)
        reach = fmax(reach, r->max_s * 1e6);
    return reach;
}

/* The rows, the peers among them, and the largest value the axis must hold. */
static double ladder_count(const struct kl_run *run, struct kl_ladder_layout *l)
{
    double vmax = 0;
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        if (!on_ladder(run, r, l->metric))
            continue;
        l->nrows++;
        l->npeers += r->peer;
        double reach = row_reach(r, l->metric, kl_run_value(run, r, l->metric));
        if (reach > vmax)
            vmax = reach;
    }
    return vmax;
}

/* Row i's bar at y: its width, the launches' spread, and where its words start. */
static void ladder_place(const struct kl_run *run, const struct kl_ladder_layout *l, int i, int y,
                         struct kl_ladder_row *b)
{
    const struct kl_run_row *r = &run->rows[i];
    enum kl_metric m = l->metric;
    double v = kl_run_value(run, r, m);
    b->row = i;
    b->y = y;
    b->cy = y + KL_LAD_ROW / 2;
    b->value = v;
    b->bar = r->timed && isfinite(v);
    if (!b->bar)
        return;
    b->width = v / l->axis * KL_LAD_PW;
    b->spread = r->repeats > 1 && r->max_s > r->min_s;
    double lo = m == KL_METRIC_TIME ? r->min_s * 1e6 : v * r->median_s / r->max_s;
    double hi = m == KL_METRIC_TIME ? r->max_s * 1e6 : v * r->median_s / r->min_s;
    b->lo_x = KL_LAD_X0 + lo / l->axis * KL_LAD_PW;
    b->hi_x = KL_LAD_X0 + hi / l->axis * KL_LAD_PW;
    double end = b->spread ? fmax(b->width, hi / l->axis * KL_LAD_PW) : b->width;
    b->label_x = KL_LAD_X0 + end + 5;
}

void kl_ladder_layout(const struct kl_run *run, enum kl_metric m, struct kl_ladder_layout *l)
{
    memset(l, 0, sizeof *l);
    l->metric = m;
    double vmax = l->vmax = ladder_count(run, l);
    l->step = kl_svg_nice_step(vmax > 0 ? vmax : 1, 5);
    l->axis = ceil((vmax > 0 ? vmax : 1) / l->step) * l->step;
    int apart = l->npeers && l->npeers < l->nrows; /* peers below a divider */
    l->plot_bottom = KL_LAD_TOP + l->nrows * KL_LAD_ROW + (apart ? 30 : 0) + 4;
    l->height = l->plot_bottom + 48;
    for (int k = 0; k < KL_LAD_TICKS && k * l->step <= l->axis * (1 + 1e-9); k++) {
        l->tick[k] = k * l->step;
        l->tick_x[k] = KL_LAD_X0 + l->tick[k] / l->axis * KL_LAD_PW;
        l->nticks++;
    }
    l->divider_y = -1;
    l->rows = calloc((size_t)(l->nrows ? l->nrows : 1), sizeof *l->rows);
    int y = KL_LAD_TOP, n = 0;
    for (int pass = 0; pass < 2 && l->rows; pass++) {
        if (pass == 1 && apart) {
            l->divider_y = y;
            y += 30;
        }
        for (int i = 0; i < run->nrows; i++)
            if (on_ladder(run, &run->rows[i], m) && run->rows[i].peer == pass) {
                ladder_place(run, l, i, y, &l->rows[n++]);
                y += KL_LAD_ROW;
            }
    }
}

void kl_ladder_layout_free(struct kl_ladder_layout *l)
{
    free(l->rows);
    l->rows = NULL;
}

/* ---- the roofline ---------------------------------------------------------------- */

double kl_logaxis_map(const struct kl_logaxis *a, double v)
{
    return a->p0 + (log10(v) - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
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

int kl_roof_point_of(const struct kl_run *run, const struct kl_run_row *r, double *ai, double *perf)
{
    if (!r->timed || !(r->flops > 0) || !(r->bytes > 0))
        return 0;
    *ai = r->flops / r->bytes;
    *perf = kl_run_value(run, r, KL_METRIC_FLOPS);
    /* (Log axes: zero, denormal or absurd values from a hand-edited file are not drawn.) */
    return isfinite(*perf) && *perf > 1e-30 && *perf < 1e30 && isfinite(*ai) && *ai > 1e-30 &&
           *ai < 1e30;
}

/* Adds the roof of figure key (label: how the chart names it) unless it is unmeasured or there. */
static void add_roof(const struct kl_run *run, struct kl_roofline_layout *l, const char *key,
                     double scale, const char *label)
{
    const struct kl_ceiling_def *d = kl_ceiling_find(key);
    double top = d ? kl_ceiling_value(&run->ceil, d) * scale : 0;
    for (int i = 0; i < l->nothers; i++)
        if (strncmp(l->others[i].name, label, strlen(label)) == 0)
            return;
    if (top > 0 && l->nothers < KL_RF_OTHERS) {
        struct kl_other_roof *o = &l->others[l->nothers++];
        o->top = top;
        snprintf(o->name, sizeof o->name, "%s %s", label, d->unit);
    }
}

/*
 * The roof of each precision and unit a row may declare (names match as
 * prefixes: "fp8" is fp8 and fp8e5m2), in the order the chart lists them;
 * tensor: 1 on the tensor cores only, 0 off them only, -1 either. A peak run
 * draws every one it measured, but 3xTF32 (no peak rung runs it).
 */
static const struct {
    const char *precision;
    int tensor, in_peak;
    const char *key;
    double scale;
    const char *label;
} precision_roofs[] = {
    {"tf32", -1, 1, "tf32_gflops", 1, "TF32 tensor cores"},
    {"3xtf32", -1, 0, "tf32_gflops", 1.0 / 3, "3xTF32 (a third of TF32)"},
    {"fp16", 1, 1, "f16_tc_gflops", 1, "FP16 tensor cores"},
    {"fp16", 0, 1, "f16_gflops", 1, "FP16x2 (packed half)"},
    {"bf16", -1, 1, "bf16_gflops", 1, "BF16 tensor cores"},
    {"fp8", -1, 1, "fp8_gflops", 1, "FP8 tensor cores"},
    {"int8", -1, 1, "i8_giops", 1, "INT8 tensor cores"},
    {"ozaki8", -1, 0, "i8_giops", 1, "INT8 tensor cores (the Ozaki scheme's products)"},
    {"3xfp16", -1, 0, "f16_tc_gflops", 1.0 / 3, "3xFP16 (a third of FP16 tensor)"},
    {"fp64", 1, 1, "f64_tc_gflops", 1, "FP64 tensor cores"},
};

/* The roofs of row r's arithmetic (r NULL: none), or of a peak run every one. */
static void row_roofs(const struct kl_run *run, struct kl_roofline_layout *l,
                      const struct kl_run_row *r, int peak)
{
    const char *p = r ? r->precision : NULL;
    int tc = r && r->tensor;
    for (size_t k = 0; k < sizeof precision_roofs / sizeof *precision_roofs; k++) {
        const char *name = precision_roofs[k].precision;
        int want = precision_roofs[k].tensor;
        int declared = p && strncmp(p, name, strlen(name)) == 0 && (want < 0 || want == tc);
        if ((peak && precision_roofs[k].in_peak) || declared)
            add_roof(run, l, precision_roofs[k].key, precision_roofs[k].scale,
                     precision_roofs[k].label);
    }
}

/*
 * The roofs drawn dashed beside the main one: a peak run's every other
 * compute roof (it measured them all); for any run, the roof of each
 * precision and unit its rows declare, so each point can be read against
 * the roof of its own arithmetic.
 */
static void other_roofs(const struct kl_run *run, struct kl_roofline_layout *l)
{
    int peak = strcmp(run->workload, "peak") == 0;
    if (!run->have_ceil || !(run->ceil.copy_gbps > 0))
        return;
    if (peak) {
        add_roof(run, l, "f64_gflops", 1, "FP64");
        add_roof(run, l, "i32_giops", 1, "INT32");
    }
    if (peak && run->nrows == 0)
        row_roofs(run, l, NULL, 1);
    for (int i = 0; i < run->nrows; i++)
        row_roofs(run, l, &run->rows[i], peak);
}

struct range {
    double xmin, xmax, ymin, ymax;
};

/* What the axes must hold: every point, the tensor roofs, the ridges. */
static int roofline_range(const struct kl_run *run, const struct kl_roofline_layout *l,
                          struct range *g)
{
    double ai, perf, bw = l->bw, peak = l->peak;
    int npts = 0;
    *g = (struct range){INFINITY, 0, INFINITY, 0};
    for (int i = 0; i < run->nrows; i++)
        if (kl_roof_point_of(run, &run->rows[i], &ai, &perf)) {
            npts++;
            g->xmin = fmin(g->xmin, ai), g->xmax = fmax(g->xmax, ai);
            g->ymin = fmin(g->ymin, perf), g->ymax = fmax(g->ymax, perf);
        }
    for (int k = 0; k < l->nothers; k++) /* the tensor roofs sit above the FMA one */
        if (l->others[k].top > 0 && strstr(l->others[k].name, "tensor"))
            g->ymax = fmax(g->ymax, l->others[k].top),
            g->xmax = fmax(g->xmax, l->others[k].top / bw);
    for (int k = 0; k < 2 && peak > 0; k++) /* where the on-chip slopes meet the roof */
        if (l->slopes[k].gbps > bw)
            g->xmin = fmin(g->xmin, peak / l->slopes[k].gbps);
    return npts;
}

/* The log axes around the range; roofs alone get some of the slope and every precision's roof. */
static void roofline_axes(const struct kl_run *run, struct kl_roofline_layout *l)
{
    struct range g;
    double bw = l->bw, peak = l->peak;
    int npts = roofline_range(run, l, &g);
    if (bw > 0 && peak > 0) {
        double ridge = peak / bw;
        g.xmin = fmin(g.xmin, ridge), g.xmax = fmax(g.xmax, ridge);
        g.ymin = fmin(g.ymin, peak), g.ymax = fmax(g.ymax, peak);
        if (!npts)
            g.ymin =
                fmin(g.ymin, fmin(peak / 10,
                                  fmin(run->ceil.f64_gflops > 0 ? run->ceil.f64_gflops : INFINITY,
                                       run->ceil.i32_giops > 0 ? run->ceil.i32_giops : INFINITY)));
    } else if (peak > 0) {
        g.ymin = fmin(g.ymin, peak), g.ymax = fmax(g.ymax, peak);
    }
    if (!(g.xmax > 0)) /* no points and no ridge: an axis around AI 1 */
        g.xmin = 0.1, g.xmax = 10;
    if (!(g.ymax > 0))
        g.ymin = bw > 0 ? bw * g.xmin : 1, g.ymax = bw > 0 ? bw * g.xmax : 100;
    l->ax = (struct kl_logaxis){0, 0, KL_RF_X0, KL_RF_X1};
    l->ay = (struct kl_logaxis){0, 0, KL_RF_Y1, KL_RF_Y0};
    log_range(g.xmin, g.xmax, 0.3, 2, &l->ax.lo, &l->ax.hi);
    log_range(g.ymin, g.ymax, 0.15, 2, &l->ay.lo, &l->ay.hi);
    l->xlo = pow(10, l->ax.lo), l->xhi = pow(10, l->ax.hi), l->ylo = pow(10, l->ay.lo);
}

/* The main roof: bandwidth × AI up to the ridge, then the compute peak; the slope's words. */
static void main_roof(const struct kl_run *run, struct kl_roofline_layout *l)
{
    const struct kl_logaxis *ax = &l->ax, *ay = &l->ay;
    double bw = l->bw, peak = l->peak;
    if (peak > 0) {
        char v[32];
        kl_svg_number(v, sizeof v, peak);
        snprintf(l->main_label, sizeof l->main_label, "compute: %s %s %s",
                 strcmp(run->type, "double") == 0 ? "FP64"
                 : strcmp(run->type, "int") == 0  ? "INT32"
                                                  : "FP32",
                 v, kl_run_unit(run, KL_METRIC_FLOPS));
    }
    if (!(bw > 0))
        return;
    double ridge = peak > 0 ? peak / bw : l->xhi, xs = fmax(l->xlo, l->ylo / bw);
    double corner[3][2] = {
        {xs, bw * xs}, {fmin(ridge, l->xhi), bw * fmin(ridge, l->xhi)}, {l->xhi, peak}};
    if (!(ridge > xs) && peak > 0) /* the slope is off the chart: the peak alone */
        corner[0][0] = l->xlo, corner[0][1] = peak, corner[1][0] = l->xhi, corner[1][1] = peak;
    l->nroof = ridge > xs ? 2 + (peak > 0 && ridge < l->xhi) : peak > 0 ? 2 : 0;
    for (int k = 0; k < l->nroof; k++)
        l->roof_x[k] = kl_logaxis_map(ax, corner[k][0]),
        l->roof_y[k] = kl_logaxis_map(ay, corner[k][1]);
    /* The slope's label, along it, near its start. */
    l->slope_label = ridge > xs;
    if (l->slope_label) {
        double xa = pow(10, log10(xs) + 0.2 * (log10(fmin(ridge, l->xhi)) - log10(xs)));
        double xb = pow(10, log10(xa) + 0.1);
        l->slope_x = kl_logaxis_map(ax, xa), l->slope_y = kl_logaxis_map(ay, bw * xa);
        l->slope_angle =
            atan2(kl_logaxis_map(ay, bw * xb) - l->slope_y, kl_logaxis_map(ax, xb) - l->slope_x) *
            180 / 3.14159265358979323846;
    }
}

/*
 * Every roof's label at the right edge (the main one's too, as nothers), in
 * order top to bottom: above the roofs over the main one (and the main one),
 * below those under it, at least 12 px apart.
 */
static void roof_labels(struct kl_roofline_layout *l)
{
    double ly[KL_RF_OTHERS + 1];
    int *order = l->order, nl = 0;
    for (int k = 0; k <= l->nothers; k++) {
        double top = k < l->nothers ? l->others[k].top : l->peak;
        if (k == l->nothers
                ? !l->main_label[0]
                : !(l->bw > 0) || !(top > 0) || log10(top) < l->ay.lo || log10(top) > l->ay.hi)
            continue;
        ly[k] = kl_logaxis_map(&l->ay, top) + (top >= l->peak ? -6 : 14);
        int j = nl++;
        for (; j > 0 && ly[order[j - 1]] > ly[k]; j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
    for (int j = 1; j < nl; j++)
        if (ly[order[j]] < ly[order[j - 1]] + 12)
            ly[order[j]] = ly[order[j - 1]] + 12;
    l->nlabels = nl;
    for (int j = 0; j < nl; j++) {
        if (order[j] == l->nothers)
            l->main_y = ly[order[j]];
        else
            l->others[order[j]].label_y = ly[order[j]], l->others[order[j]].drawn = 1;
    }
}

/*
 * An other roof's dashed line: up the slope to its ridge, then along; a line
 * whose label was pushed onto it stops short of the words (~6 px a
 * character at 11 px).
 */
static void other_line(struct kl_roofline_layout *l, struct kl_other_roof *o)
{
    const struct kl_logaxis *ax = &l->ax, *ay = &l->ay;
    double top = o->top, ridge = top / l->bw, xs = fmax(l->xlo, l->ylo / l->bw);
    kl_svg_number(o->value, sizeof o->value, top);
    o->y = kl_logaxis_map(ay, top);
    o->xr = kl_logaxis_map(ax, fmax(xs, ridge));
    o->xe = kl_logaxis_map(ax, l->xhi);
    if (fabs(o->label_y - 4 - o->y) < 8)
        o->xe = fmax(o->xr, KL_RF_X1 - 10 - 6.0 * (strlen(o->value) + 1 + strlen(o->name)));
    o->x0 = kl_logaxis_map(ax, fmax(xs, fmin(ridge, l->xlo)));
    o->y0 = kl_logaxis_map(ay, fmin(top, l->bw * fmax(xs, fmin(ridge, l->xlo))));
}

/* The on-chip slopes, dotted, from the axis up to the main compute roof. */
static void chip_slopes(struct kl_roofline_layout *l)
{
    for (int k = 0; k < 2; k++) {
        struct kl_slope *s = &l->slopes[k];
        double b2 = s->gbps, xs = fmax(l->xlo, l->ylo / b2);
        double xe = l->peak > 0 ? fmin(l->xhi, l->peak / b2) : l->xhi;
        s->drawn = l->bw > 0 && b2 > l->bw && xe > xs;
        if (!s->drawn)
            continue;
        s->x0 = kl_logaxis_map(&l->ax, xs), s->y0 = kl_logaxis_map(&l->ay, b2 * xs);
        s->x1 = kl_logaxis_map(&l->ax, xe), s->y1 = kl_logaxis_map(&l->ay, b2 * xe);
    }
}

static int by_py(const void *a, const void *b)
{
    const struct kl_roof_point *x = a, *y = b;
    return x->py < y->py ? -1 : x->py > y->py;
}

/* The points, top to bottom, and their labels in a column at the right, 13 px apart or less. */
static void roof_points(const struct kl_run *run, struct kl_roofline_layout *l, int npts)
{
    struct kl_roof_point *p = calloc((size_t)(npts ? npts : 1), sizeof *p);
    double ai, perf;
    int nl = 0;
    if (!p)
        return;
    for (int i = 0; i < run->nrows; i++)
        if (kl_roof_point_of(run, &run->rows[i], &ai, &perf) && nl < npts) {
            p[nl] = (struct kl_roof_point){
                i, ai, perf, kl_logaxis_map(&l->ax, ai), kl_logaxis_map(&l->ay, perf), 0};
            nl++;
        }
    qsort(p, (size_t)nl, sizeof *p, by_py);
    double span = KL_RF_Y1 - KL_RF_Y0;
    double gap = nl > 1 && span / (nl - 1) < 13 ? span / (nl - 1) : 13;
    for (int k = 0; k < nl; k++)
        p[k].ly = k ? fmax(p[k].py, p[k - 1].ly + gap) : p[k].py;
    for (int k = nl - 1; k >= 0; k--) {
        double limit = k == nl - 1 ? KL_RF_Y1 : p[k + 1].ly - gap;
        if (p[k].ly > limit)
            p[k].ly = limit;
    }
    l->points = p;
    l->npoints = nl;
}

void kl_roofline_layout(const struct kl_run *run, struct kl_roofline_layout *l)
{
    double ai, perf;
    int npts = 0;
    memset(l, 0, sizeof *l);
    l->bw = !run->have_ceil                             ? 0
            : run->read_roof && run->ceil.read_gbps > 0 ? run->ceil.read_gbps
                                                        : run->ceil.copy_gbps;
    l->peak = kl_run_compute_peak(run);
    l->slopes[0].gbps = run->have_ceil ? run->ceil.l2_gbps : 0;
    l->slopes[1].gbps = run->have_ceil ? run->ceil.shared_gbps : 0;
    other_roofs(run, l);
    roofline_axes(run, l);
    main_roof(run, l);
    roof_labels(l);
    for (int k = 0; k < l->nothers; k++)
        if (l->others[k].drawn)
            other_line(l, &l->others[k]);
    chip_slopes(l);
    for (int i = 0; i < run->nrows; i++)
        npts += kl_roof_point_of(run, &run->rows[i], &ai, &perf);
    roof_points(run, l, npts);
}

void kl_roofline_layout_free(struct kl_roofline_layout *l)
{
    free(l->points);
    l->points = NULL;
}

/* ---- the sweep ------------------------------------------------------------------- */

int kl_sweep_point(double x)
{
    return isfinite(x) && x >= 1 && x <= 4e18;
}

/* The rungs drawn, in order of appearance, and the range of N and of GB/s they span. */
static double sweep_series(const struct kl_run *run, struct kl_sweep_layout *l, double *xmin,
                           double *xmax)
{
    double ymax = 0;
    *xmin = INFINITY, *xmax = 0;
    for (int i = 0; i < run->nrows; i++) {
        const struct kl_run_row *r = &run->rows[i];
        int seen = 0;
        if (run->curves && !(kl_sweep_point(r->x) && r->bytes > 0))
            continue; /* beside a ladder: only the curves of bytes (peak's cache sweep) */
        for (int k = 0; k < l->nnames && !seen; k++)
            seen = strcmp(l->names[k], r->rung) == 0;
        if (!seen && l->nnames < KL_SW_SERIES)
            l->names[l->nnames++] = r->rung;
        if (kl_sweep_point(r->x)) {
            *xmin = fmin(*xmin, r->x), *xmax = fmax(*xmax, r->x);
            double v = kl_run_value(run, r, KL_METRIC_BYTES);
            if (isfinite(v))
                ymax = fmax(ymax, v);
        }
    }
    return ymax;
}

void kl_sweep_layout(const struct kl_run *run, struct kl_sweep_layout *l)
{
    double xmin, xmax;
    memset(l, 0, sizeof *l);
    double ymax = sweep_series(run, l, &xmin, &xmax);
    if (!(xmax > 0))
        xmin = 512, xmax = 1024;
    l->l0 = floor(log2(xmin)), l->l1 = ceil(log2(xmax));
    if (l->l1 <= l->l0)
        l->l1 = l->l0 + 1;
    l->every = (int)ceil((l->l1 - l->l0 + 1) / 12.0);
    l->ceil_bw = run->have_ceil ? run->ceil.copy_gbps : 0;
    double top = fmax(ymax, l->ceil_bw);
    l->step = kl_svg_nice_step(top > 0 ? top : 1, 5);
    l->axis = ceil((top > 0 ? top : 1) * 1.02 / l->step) * l->step;
}

double kl_sweep_px(const struct kl_sweep_layout *l, double x)
{
    return KL_SW_X0 + (log2(x) - l->l0) / (l->l1 - l->l0) * (KL_SW_X1 - KL_SW_X0);
}

double kl_sweep_py(const struct kl_sweep_layout *l, double gbps)
{
    return KL_SW_Y1 - gbps / l->axis * (KL_SW_Y1 - KL_SW_Y0);
}
