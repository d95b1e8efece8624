/*
 * The charts of a run, written as SVG by hand (no library, no script, no
 * font or anything fetched): a ladder chart, a roofline, and a sweep's
 * bandwidth curves (a chart across runs, report/shapes.h, uses its pieces). Every mark carries its
 * value in data-* attributes and each plot its axis mapping, so tests can read the numbers back.
 * Where everything goes is computed first (report/svg_layout.h); these write it.
 *
 * id numbers the charts of one document: it picks the plot's background
 * tint (#f5f7f0 + id mod 16), so a screenshot can find each chart. standalone
 * writes an XML declaration first (a file of its own); else the <svg> element
 * is for inline use in HTML.
 */
#ifndef KL_REPORT_SVG_H
#define KL_REPORT_SVG_H

#include <stdio.h>

#include "report/run.h"

/* Rung rates as bars in ladder order, rows of metric m only; peers drawn apart. */
void kl_svg_ladder(FILE *out, const struct kl_run *run, enum kl_metric m, int id, int standalone);

/* 1 when the run has rows that count both FLOPs and bytes, or roofs to draw. */
int kl_svg_has_roofline(const struct kl_run *run);
/* Log–log: the measured bandwidth slope and compute roof, each rung a point. */
void kl_svg_roofline(FILE *out, const struct kl_run *run, int id, int standalone);

/* GB/s against N (log axis), one line per rung: copy --sweep. */
void kl_svg_sweep(FILE *out, const struct kl_run *run, int id, int standalone);

/* Which metrics the run's rows use, in order of first appearance; returns the count (0-3). */
int kl_svg_metrics(const struct kl_run *run, enum kl_metric out[3]);

/* Writes s with &, <, >, " and ' escaped for XML text and attributes. */
void kl_xml_text(FILE *out, const char *s);

/* The plot background of chart id, "#f5f7f0" ... "#f5f7ff". */
void kl_svg_background(int id, char out[8]);

/* For charts drawn elsewhere (report/shapes.c): the <svg> element and page, the title and
 * subtitle, and the colour of series k. */
void kl_svg_open(FILE *out, int w, int h, int standalone, const char *kind, int id,
                 const char *label);
void kl_svg_title(FILE *out, int x, int y, const char *title, const char *subtitle);
const char *kl_svg_series_colour(int k);

#endif /* KL_REPORT_SVG_H */
