/*
 * Results of a ladder run and their three renderings: a table for people,
 * CSV and JSON (with provenance) for programs. Metrics are derived here, in
 * one place, from each workload's FLOP and byte counts.
 */
#ifndef KL_REPORT_H
#define KL_REPORT_H

#include <stdio.h>

#include "backend/backend.h"
#include "core/ceilings.h"
#include "kladder.h"

/*
 * verified: the result was checked and the timing counts. measured: a
 * timing with no result to check (an empty kernel's latency, a transfer).
 */
enum kl_result_status {
    KL_RESULT_VERIFIED,
    KL_RESULT_FAILED,
    KL_RESULT_SKIPPED,
    KL_RESULT_MEASURED
};

struct kl_result {
    char rung[64];
    const char *summary;
    int on_host; /* a CPU rung timed with the host clock */
    int peer;    /* a vendor library run beside the ladder */
    enum kl_result_status status;
    char note[512]; /* why it failed or was skipped; what was checked */
    double build_s, median_s, min_s, max_s, total_s;
    int repeats;
    char options[512];
    char config[128];    /* what varies between rows, e.g. "N=4096 BS=512" */
    double flops, bytes; /* work per launch, when it differs from the report's */
    double x;            /* a sweep's variable (e.g. N), 0 outside sweeps */
    /* filled by kl_report_finish */
    double gflops, gbps, speedup_first, speedup_host;
    double mitems;      /* millions of items per second, when the report counts items */
    double pct_ceiling; /* % of the measured roof (0: no ceiling known) */
};

struct kl_report {
    const char *workload; /* "gemm" */
    char sizes[128];      /* "M=512 N=512 K=512" */
    char size_json[128];  /* "\"M\": 512, \"N\": 512, \"K\": 512" */
    enum kl_type type;
    unsigned long long seed;
    double flops;           /* per launch */
    double bytes;           /* minimal traffic per launch */
    double items;           /* things processed per launch (pixels), 0: none */
    const char *items_unit; /* their rate's column header, e.g. "Mpix/s" */
    char reference[512];    /* how the reference was obtained */
    struct kl_protocol protocol;
    struct kl_device_info device;
    const char *backend;
    char date[32];
    struct kl_ceilings ceilings; /* measured roofs, valid when have_ceilings */
    int have_ceilings;
    char ceiling_note[768]; /* says where the roofs come from, or how to get them */
    const char *image_in;   /* blur: the picture read (NULL: the generated one) */
    const char *image_out;  /* blur: the picture written (NULL: none) */
    int show_config;        /* print the config column */
    int ladder;             /* rows are rungs of one ladder: show speed-ups */
    struct kl_result *results;
    int count, capacity;
};

struct kl_stats;
/* Copies a measurement's median, min, max and count into a result. */
void kl_result_set_stats(struct kl_result *x, const struct kl_stats *s);

/* Appends a zeroed result for rung name; NULL when out of memory. */
struct kl_result *kl_report_add(struct kl_report *r, const char *rung, const char *summary);
void kl_report_free(struct kl_report *r);

/*
 * Derives GFLOP/s, GB/s, speed-ups and % of ceiling for every verified
 * result. The ceiling is the roofline bound: min(compute peak of the
 * report's type, arithmetic intensity × copy bandwidth); for rows that move
 * bytes but count no FLOPs, the copy bandwidth.
 */
void kl_report_finish(struct kl_report *r);

/*
 * Loads the device's cached ceilings into the report (for "% roof") and
 * writes a note saying where they come from, or how to measure them.
 */
void kl_report_load_ceilings(struct kl_report *r);

/* 1 if any result failed verification. */
int kl_report_failed(const struct kl_report *r);

void kl_report_table(const struct kl_report *r, FILE *out);
void kl_report_csv(const struct kl_report *r, FILE *out);
/*
 * For sweeps: the header, then one row per value of x (named x_name), one
 * column per rung, GB/s in the cells ("-" where a rung did not run or
 * failed), then the reasons for failures.
 */
void kl_report_matrix(const struct kl_report *r, const char *x_name, FILE *out);
/* The JSON report: docs/kladder-run.schema.json describes it; schema_version says which. */
#define KL_REPORT_SCHEMA_VERSION 1
void kl_report_json(const struct kl_report *r, FILE *out);

#endif /* KL_REPORT_H */
