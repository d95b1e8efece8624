/*
 * The transpose ladder: b = aᵀ for an m × n matrix a, row-major, of 2-, 4-
 * or 8-byte elements (half or bf16, float, double), out of place or, where
 * square, in place; from one element per work-item written where it goes to
 * 16-byte vectors through a swizzled tile. A memory-bound ladder: each
 * element is read once and written once, so the copy ceiling is its roof.
 *
 * The folder, read in this order: rungs.c (the table and each rung's
 * work-groups), ladder.c (the data and its check, one rung's run, the
 * peers, the entry).
 */
#ifndef KL_TRANSPOSE_H
#define KL_TRANSPOSE_H

#include "core/context.h"
#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"

struct kl_transpose_rung {
    const char *name;
    const char *summary;
    const char *file; /* NULL: the host rung */
    int tiled;        /* a TILE × TILE tile in local memory */
    int vector;       /* a work-item moves 16 bytes (ELV_N elements) at a time */
    int tma;          /* CUDA C++ on compute capability 9.0: boxes copied by TMA */
    struct kl_param_def params[KL_MAX_PARAMS];
};

int kl_transpose_rung_count(void);
const struct kl_transpose_rung *kl_transpose_rung_at(int i);
const struct kl_rung_table *kl_transpose_rungs(void); /* the registry's view */

/*
 * Rung r's launch (values v) for an m × n matrix of es-byte elements: local
 * size (local[0], local[1]) and groups work-groups, one per TILE × TILE tile
 * (TMA's: one per TILES tiles of 128 / es elements square, down a column).
 */
void kl_transpose_geometry(const struct kl_transpose_rung *r, const int *v, int m, int n, size_t es,
                           size_t local[2], long *groups);

struct kl_ladder_tuner;

struct kl_transpose_request {
    int m, n;
    enum kl_type type; /* float, double, half or bf16 */
    int in_place;      /* m == n: the matrix transposed where it lies */
    unsigned long long seed;
    struct kl_protocol protocol;
    const char *const *params;
    int nparams;
    const char *const *rungs; /* NULL: the whole ladder */
    int nrungs;
    const struct kl_user_rung *users; /* the user's kernels (--kernel), after the table's */
    int nusers;
    const char *const *peers; /* "cublas", "clblast" */
    int npeers;
    const struct kl_ladder_tuner *tuner; /* NULL; else the chosen rung is tuned */
};

enum kl_status kl_transpose_ladder(struct kl_context *kl, const struct kl_transpose_request *req,
                                   struct kl_report *report);

#endif /* KL_TRANSPOSE_H */
