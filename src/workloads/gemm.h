/*
 * GEMM, C = A·B for any M, N, K: the ladder of seed 004 (host loop orders,
 * then device rungs from naive to float8) and seed 002's tiled rung.
 */
#ifndef KL_GEMM_H
#define KL_GEMM_H

#include "core/context.h"
#include "core/params.h"
#include "core/report.h"
#include "kladder.h"

/* How the launch geometry follows from M, N, K and the parameters. */
enum kl_geometry {
    KL_GEO_HOST, /* a CPU loop, no launch */
    KL_GEO_2D,   /* dim 0 over rows of C, dim 1 over columns; local WG0 × WG1 */
    KL_GEO_ROWS, /* 1-D over rows of C; local WG */
    KL_GEO_TILE, /* dim 0 over columns, dim 1 over rows; local TS × TS */
};

/* Local memory a rung declares, as a function of its parameters. */
enum kl_local_use { KL_LOCAL_NONE, KL_LOCAL_KC, KL_LOCAL_2TS2 };

struct kl_gemm_rung {
    const char *name;
    const char *summary; /* what changed from the rung before, and why */
    const char *file;    /* kernel file under kernels/, NULL for host rungs */
    void (*host)(enum kl_type t, int M, int N, int K, const void *A, const void *B, void *C);
    int b_col_major; /* the kernel reads B transposed (column-major) */
    enum kl_geometry geometry;
    enum kl_local_use local;
    int private_kc; /* each work-item holds a KC-long private array */
    struct kl_param_def params[KL_MAX_PARAMS];
};

int kl_gemm_rung_count(void);
const struct kl_gemm_rung *kl_gemm_rung_at(int i);
/* Exact name, or a unique prefix such as "10" or "host_i". */
const struct kl_gemm_rung *kl_gemm_rung_find(const char *name);

/* What `kladder gemm` asks for. */
struct kl_gemm_request {
    int M, N, K;
    enum kl_type type;
    unsigned long long seed;
    struct kl_protocol protocol;
    const char *const *params; /* "NAME=VALUE" */
    int nparams;
    const char *const *rungs; /* names or prefixes; NULL: the whole ladder */
    int nrungs;
    int host_rungs; /* 0: when small enough, 1: always, -1: never */
};

/*
 * Runs the requested rungs on the same random data, verifies each against
 * the reference and fills report. Returns an error only for bad requests or
 * broken devices; a rung that fails verification is a FAILED result.
 */
enum kl_status kl_gemm_ladder(struct kl_context *kl, const struct kl_gemm_request *req,
                              struct kl_report *report);

#endif /* KL_GEMM_H */
