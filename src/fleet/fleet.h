/*
 * Many devices, one report. A fleet run is one command on several devices
 * at once: every device of a host (--device all, or a list such as 0,2,3),
 * or every rank of an MPI job (kladder-mpi). Each member runs the command as
 * usual and writes its own run JSON; the fleet keeps those whole, with who
 * ran them (device, host, rank, exit code, what it said), and summarises each
 * rung across the members: min, median and max, and the members slower than
 * the median by more than KL_FLEET_STRAGGLER (the stragglers), beyond noise
 * where their rows kept launch times. The fleet file
 * is described by docs/kladder-fleet.schema.json. Nothing here prints on its
 * own; the writers take a stream.
 */
#ifndef KL_FLEET_H
#define KL_FLEET_H

#include <stdio.h>

#include "core/error.h"
#include "formats/json.h"
#include "report/run.h"

#define KL_FLEET_MAX 64         /* members of one fleet */
#define KL_FLEET_STRAGGLER 0.05 /* slower than the median by more than 5 % */
#define KL_FLEET_VERSION 1      /* "fleet_version" of the file */
#define KL_FLEET_SPEC 64        /* room for one member's device spec */

/* One member as it ran: filled by the spawner or the MPI gather. */
struct kl_fleet_member {
    char spec[KL_FLEET_SPEC]; /* the device as kl_open takes it: "cuda:1", "opencl:0:1" */
    char host[128];
    int rank;      /* MPI rank; -1 outside MPI */
    int exit_code; /* the member's exit code (kladder's: 0, 1, 2, 3, 4, 130) */
    char *json;    /* its run JSON, malloc'd; NULL when it wrote none */
    char *log;     /* what it said on standard error, malloc'd; NULL when nothing */
};

/* 1 when spec names several devices: "all", "cuda:all", or a list "0,2,3". */
int kl_fleet_is_list(const char *spec);

/*
 * The devices of a list, each as a spec kl_open takes ("cuda:1",
 * "opencl:0:1"), in the list's order:
 *   all           every GPU of the default backend (OpenCL), or every device
 *                 where it has no GPU (the rule kl_open follows for one)
 *   cuda:all      every CUDA device (opencl:all likewise)
 *   A,B,...       the items, each as kl_open reads it; a backend prefix on
 *                 the first item holds for the rest ("cuda:0,1"); a bare
 *                 number on OpenCL is the device of that index in `all`
 * A device named twice, or none at all, is an error.
 */
enum kl_status kl_fleet_expand(const char *spec, char (*specs)[KL_FLEET_SPEC], int max, int *n,
                               struct kl_err *e);

/* One rung across the members. */
struct kl_fleet_row {
    const char *rung;
    enum kl_metric metric; /* what value measures (GFLOP/s, GB/s, µs) */
    const char *unit;
    int n;                                 /* members with a timed value */
    double min, median, max;               /* of those values (for µs: lower is better) */
    double value[KL_FLEET_MAX];            /* per member; NaN where it has no timed row */
    const char *status[KL_FLEET_MAX];      /* per member: the row's status; NULL: no such row */
    unsigned char straggler[KL_FLEET_MAX]; /* slower than the median by > KL_FLEET_STRAGGLER,
                                              and than the others beyond noise */
    unsigned char within_noise[KL_FLEET_MAX]; /* past the median's margin, but its launch times
                                                 are not slower than the others' */
    unsigned char failed[KL_FLEET_MAX];    /* its row failed verification (or timed out) */
};

/* A fleet: its members, their runs and the summary. */
struct kl_fleet {
    const char *command; /* "gemm", "peak", ... */
    char created[32];    /* UTC date and time the fleet was gathered */
    int n;
    struct kl_fleet_member member[KL_FLEET_MAX]; /* json and log borrowed, or the file's */
    struct kl_run run[KL_FLEET_MAX];
    int has_run[KL_FLEET_MAX];   /* run[i] was read */
    char why[KL_FLEET_MAX][512]; /* why not, when it was not */
    struct kl_fleet_row *rows;
    int nrows;
    struct kl_json *root; /* the file's tree, when read from one */
};

/*
 * A fleet from its members (copied; their json and log stay the caller's and
 * must outlive f): each member's JSON read as a run, then the summary.
 * KL_ERR_NO_MEMORY or KL_ERR_ARG (too many members) with a sentence.
 */
enum kl_status kl_fleet_build(struct kl_fleet *f, const char *command,
                              const struct kl_fleet_member *m, int n, struct kl_err *e);

/* Reads a fleet file (kl_fleet_json's); 0, or -1 with "PATH: what is wrong" in err. */
int kl_fleet_load(struct kl_fleet *f, const char *path, char *err, size_t n);
/* The same from text already read; name is used in messages. */
int kl_fleet_parse(struct kl_fleet *f, const char *text, size_t len, const char *name, char *err,
                   size_t n);
/* 1 when text is a fleet file rather than one run (it has "fleet_version"). */
int kl_fleet_text_is_fleet(const char *text, size_t len);

void kl_fleet_free(struct kl_fleet *f);

/*
 * The fleet's exit code: the most serious member's (130 interrupted, 4 a
 * timeout, 3 a device error, 2 bad input, 1 a failed verification, 0).
 */
int kl_fleet_exit(const struct kl_fleet *f);

/* The writers: the fleet file (a fleet built from members only), a table, CSV. */
void kl_fleet_json(const struct kl_fleet *f, FILE *out);
void kl_fleet_table(const struct kl_fleet *f, FILE *out);
void kl_fleet_csv(const struct kl_fleet *f, FILE *out);

/*
 * What stands out in a row, for tables and pages: the members whose row
 * failed ("d1 failed") and the stragglers ("d0 (-11.2%)"); else "none", or
 * where no member timed it, why ("skipped on every member"). In out (n bytes)
 * or a constant.
 */
const char *kl_fleet_row_verdict(const struct kl_fleet *f, const struct kl_fleet_row *r, char *out,
                                 size_t n);

/* The name of member i for tables and pages: "cuda:1" or "rank 3 (node7 cuda:1)". */
void kl_fleet_member_name(const struct kl_fleet *f, int i, char *out, size_t n);

#endif /* KL_FLEET_H */
