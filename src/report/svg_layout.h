/*
 * Where everything of a chart goes, before any of it is written: the axes
 * and their ticks, each bar, point and roof, and the labels spread apart so
 * that none covers another. Pure: computed from a run alone, so tests read
 * a chart's geometry without parsing SVG. report/svg.c writes the SVG from
 * these layouts.
 */
#ifndef KL_REPORT_SVG_LAYOUT_H
#define KL_REPORT_SVG_LAYOUT_H

#include <stddef.h>

#include "report/run.h"

/* A number for labels: 4 significant digits, no exponent for the usual range. */
void kl_svg_number(char *out, size_t n, double v);

/* Steps of 1, 2, 2.5 or 5 × 10^k, about `ticks` of them up to max. */
double kl_svg_nice_step(double max, int ticks);

/* ---- the ladder: one bar per rung of a metric, peers apart ------------------------ */

#define KL_LAD_W 940
#define KL_LAD_X0 170 /* plot left: rung names to its left */
#define KL_LAD_PW 430 /* plot width: values, % of roof, precision and error to its right */
#define KL_LAD_ROW 22
#define KL_LAD_TOP 56
#define KL_LAD_TICKS 13

struct kl_ladder_row {
    int row;      /* index in run->rows */
    int y, cy;    /* its top and middle */
    int bar;      /* timed with a value: a bar; else its status in words */
    double value; /* the chart value */
    double width; /* the bar's, px */
    int spread;   /* the launches' spread is drawn, from lo_x to hi_x */
    double lo_x, hi_x;
    double label_x; /* where the value's words start: past the bar and its whisker */
};

struct kl_ladder_layout {
    enum kl_metric metric;
    int nrows, npeers;
    double vmax;       /* the largest value shown: a bar's, or its whisker's */
    double step, axis; /* the value axis: 0 to axis, a tick every step */
    int plot_bottom, height;
    int divider_y; /* the line above the peers; -1: none */
    int nticks;
    double tick[KL_LAD_TICKS], tick_x[KL_LAD_TICKS];
    struct kl_ladder_row *rows; /* nrows of them (none where memory ran out): the ladder in
                                   order, then the peers */
};

/* The layout of run's rows of metric m; kl_ladder_layout_free releases it. */
void kl_ladder_layout(const struct kl_run *run, enum kl_metric m, struct kl_ladder_layout *l);
void kl_ladder_layout_free(struct kl_ladder_layout *l);

/* ---- the roofline: log-log, the roofs and each rung a point ----------------------- */

#define KL_RF_W 900 /* point labels right of the plot: rung, % of roof, which roof */
#define KL_RF_X0 78
#define KL_RF_X1 600
#define KL_RF_Y0 56
#define KL_RF_Y1 436
#define KL_RF_H 490
#define KL_RF_OTHERS 16

struct kl_logaxis {
    double lo, hi; /* log10 of the ends */
    double p0, p1; /* their pixel positions */
};
double kl_logaxis_map(const struct kl_logaxis *a, double v);

/*
 * A roof drawn dashed beside the main one: a peak run's every other compute
 * roof; for any run, the roof of each precision and unit its rows declare.
 */
struct kl_other_roof {
    double top;
    char name[64];
    char value[32];        /* top in words */
    int drawn;             /* within the axis: its line and label are drawn */
    double x0, y0, xr, xe; /* its line: from (x0, y0) up to the ridge xr, along to xe at y */
    double y, label_y;
};

/* An on-chip level's slope (L2, shared memory), dotted, up to the main compute roof. */
struct kl_slope {
    double gbps;
    int drawn;
    double x0, y0, x1, y1;
};

struct kl_roof_point {
    int row;
    double ai, perf; /* FLOP per byte; the chart value */
    double px, py;   /* the point */
    double ly;       /* its label's line, in the column right of the plot */
};

struct kl_roofline_layout {
    double bw, peak; /* copy bandwidth and the run type's compute roof; 0 unknown */
    struct kl_logaxis ax, ay;
    double xlo, xhi, ylo; /* the axes' ends, as values */
    int nroof;            /* the main roof's corners: bandwidth × AI to the ridge, then peak */
    double roof_x[3], roof_y[3];
    int slope_label; /* the bandwidth's words along its slope, at (slope_x, slope_y) */
    double slope_x, slope_y, slope_angle;
    char main_label[96]; /* the compute roof's words; "" none */
    double main_y;
    struct kl_other_roof others[KL_RF_OTHERS];
    int nothers;
    int order[KL_RF_OTHERS + 1], nlabels; /* the roofs' labels top to bottom (nothers: main) */
    struct kl_slope slopes[2];
    struct kl_roof_point *points; /* npoints, top to bottom (none where memory ran out) */
    int npoints;
};

/* 1 where row r is a point of the roofline: timed, counting FLOPs and bytes. */
int kl_roof_point_of(const struct kl_run *run, const struct kl_run_row *r, double *ai,
                     double *perf);
void kl_roofline_layout(const struct kl_run *run, struct kl_roofline_layout *l);
void kl_roofline_layout_free(struct kl_roofline_layout *l);

/* ---- the sweep: GB/s against N (log2), one line per rung --------------------------- */

#define KL_SW_W 820
#define KL_SW_X0 70
#define KL_SW_X1 620
#define KL_SW_Y0 56
#define KL_SW_Y1 396
#define KL_SW_H 448
#define KL_SW_SERIES 64

struct kl_sweep_layout {
    const char *names[KL_SW_SERIES]; /* the rungs, one line each, in order of appearance */
    int nnames;
    double l0, l1;     /* log2 of the x axis's ends */
    int every;         /* a label on every this many x ticks */
    double step, axis; /* the y axis: 0 to axis, a tick every step */
    double ceil_bw;    /* the copy roof, 0 unknown */
};

/* A sweep's N: a count, so from 1 up (a hand-edited file may hold anything). */
int kl_sweep_point(double x);
void kl_sweep_layout(const struct kl_run *run, struct kl_sweep_layout *l);
double kl_sweep_px(const struct kl_sweep_layout *l, double x);
double kl_sweep_py(const struct kl_sweep_layout *l, double gbps);

#endif /* KL_REPORT_SVG_LAYOUT_H */
