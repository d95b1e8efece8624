/*
 * The renderings of a run's report (core/report.h): a table for people,
 * CSV and JSON (with provenance) for programs (write.c; the JSON
 * write_json.c).
 */
#ifndef KL_REPORT_WRITE_H
#define KL_REPORT_WRITE_H

#include <stdio.h>

#include "core/report.h"

void kl_report_table(const struct kl_report *r, FILE *out);
/* The lines above a table (report/header.c), ending with a blank one. */
void kl_report_header(const struct kl_report *r, FILE *out);
void kl_report_csv(const struct kl_report *r, FILE *out);
/*
 * For sweeps: the header, then one row per value of x (named x_name), one
 * column per rung, GB/s in the cells ("-" where a rung did not run or
 * failed), then the reasons for failures.
 */
void kl_report_matrix(const struct kl_report *r, const char *x_name, FILE *out);
/* The JSON report: docs/kladder-run.schema.json describes it; schema_version says which. */
#define KL_REPORT_SCHEMA_VERSION 3 /* 2: bound, resources, clocks, power, energy, samples; \
                                      3: each row's source and values */
void kl_report_json(const struct kl_report *r, FILE *out);

#endif /* KL_REPORT_WRITE_H */
