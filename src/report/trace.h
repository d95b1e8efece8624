/*
 * A soak's trace (the JSON's "trace", workloads/soak/soak.h) as a chart: each
 * iteration's GEMM rate, copy rate and SM clock as a share of its best over
 * the soak, against time, and the iterations with a wrong result marked.
 */
#ifndef KL_REPORT_TRACE_H
#define KL_REPORT_TRACE_H

#include <stdio.h>

#include "report/run.h"

/* 1 where the run has a trace to chart. */
int kl_svg_has_trace(const struct kl_run *run);
/* The chart (id numbers it on a page; standalone: a file of its own). */
void kl_svg_trace(FILE *out, const struct kl_run *run, int id, int standalone);

#endif /* KL_REPORT_TRACE_H */
