/*
 * The report of one or more runs as a single self-contained HTML file:
 * inline SVG charts and CSS, pictures as embedded PNG (data: URIs), no
 * script, font or anything else fetched. The page is also well-formed XML,
 * so it can be checked with an XML parser.
 */
#ifndef KL_REPORT_HTML_H
#define KL_REPORT_HTML_H

#include <stdio.h>

#include "report/run.h"

/*
 * Writes the page for runs[0..n-1] (their ceilings looked up first with
 * kl_run_find_ceilings), led by the chart of their shapes where they are a
 * GEMM shape sweep (report/shapes.h) and, where two or more are blur runs, by
 * their times against the radius (report/radii.h). Write errors show in the
 * stream (ferror).
 */
void kl_html_report(FILE *out, struct kl_run *runs, int n);

struct kl_fleet;
/*
 * The page of a fleet (fleet/fleet.h): its members, the summary of every
 * rung across them with the stragglers marked and a chart of the spread
 * (kl_fleet_section, report/fleet_page.c), then each member's run as
 * kl_html_report shows it.
 */
void kl_html_fleet(FILE *out, struct kl_fleet *f);
/* The fleet's own section of that page; its chart takes number chart_id. */
void kl_fleet_section(FILE *out, const struct kl_fleet *f, int chart_id);

/* The charts a run has, in the order the report shows them. */
enum kl_chart { KL_CHART_LADDER, KL_CHART_ROOFLINE, KL_CHART_SWEEP };

/*
 * Writes one chart of a run as a standalone SVG file. 0 on success; -1 when
 * the run has no such chart, with the reason in why.
 */
int kl_html_chart_svg(FILE *out, struct kl_run *run, enum kl_chart chart, char *why, size_t n);

/* The shapes chart of runs[0..nruns-1] as a standalone SVG; -1 and why where they have none. */
int kl_html_shapes_svg(FILE *out, struct kl_run *runs, int nruns, char *why, size_t n);

/*
 * The blur radius charts of runs[0..nruns-1] (every group with one, one above
 * the other) as a standalone SVG; -1 and why where they have none.
 */
int kl_html_radii_svg(FILE *out, struct kl_run *runs, int nruns, char *why, size_t n);

#endif /* KL_REPORT_HTML_H */
