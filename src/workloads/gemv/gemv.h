/*
 * GEMV, y = α·A·x + β·y, for A stored row-major and column-major: a
 * memory-bound ladder per layout, with CLBlast and cuBLAS as peers in the
 * same run (--compare).
 */
#ifndef KL_GEMV_H
#define KL_GEMV_H

#include "core/context.h"
#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"
#include "peers/peers.h"

enum kl_gemv_geometry {
    KL_GV_ITEM_PER_ROW,   /* 1-D over rows, local WG */
    KL_GV_GROUP_PER_ROW,  /* one work-group of WG per row */
    KL_GV_ROWS_PER_GROUP, /* RPG rows per work-group of WG */
    KL_GV_SPLIT           /* partial sums over S column splits, then a reduction kernel */
};

struct kl_gemv_rung {
    const char *name;
    const char *summary;
    const char *file;
    enum kl_layout layout;
    enum kl_gemv_geometry geometry;
    int local_wg; /* declares WG elements of local memory */
    int local_xc; /* declares XC elements of local memory */
    struct kl_param_def params[KL_MAX_PARAMS];
};

int kl_gemv_rung_count(void);
const struct kl_gemv_rung *kl_gemv_rung_at(int i);
const struct kl_rung_table *kl_gemv_rungs(void); /* the registry's view */

struct kl_ladder_tuner;

struct kl_gemv_request {
    int M, N;
    enum kl_type type; /* float or double */
    unsigned long long seed;
    struct kl_protocol protocol;
    const char *const *params;
    int nparams;
    const char *const *rungs; /* NULL: the whole ladder */
    int nrungs;
    const struct kl_user_rung *users; /* the user's kernels (--kernel), after the table's */
    int nusers;
    const struct kl_ladder_tuner
        *tuner;               /* NULL; else the chosen rung is tuned (tune/ladder.c) */
    const char *const *peers; /* "clblast", "cublas" */
    int npeers;
};

enum kl_status kl_gemv_ladder(struct kl_context *kl, const struct kl_gemv_request *req,
                              struct kl_report *report);

#endif /* KL_GEMV_H */
