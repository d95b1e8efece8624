/*
 * The weighted row dot product of seed 000, r[y] = f·Σₖ v[k]·M1[y][k]·M2[y][k]
 * for Y rows of length D: a memory-bound ladder (two multiplies and an add
 * per 8 bytes read), from one work-item per row to work-groups per row with
 * vector loads and tree or sub-group reductions.
 */
#ifndef KL_ROWDOT_H
#define KL_ROWDOT_H

#include "core/context.h"
#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"

/* How a rung's launch follows from Y and its parameters. */
enum kl_rowdot_geometry {
    KL_RD_ITEM_PER_ROW,  /* 1-D over rows, local WG */
    KL_RD_GROUP_PER_ROW, /* one work-group of WG per row: global Y·WG */
    KL_RD_ROWS_PER_GROUP /* RPG rows per work-group of WG */
};

struct kl_rowdot_rung {
    const char *name;
    const char *summary;
    const char *file;
    enum kl_rowdot_geometry geometry;
    int local_vc;        /* declares VC elements of local memory */
    int local_wg;        /* declares WG elements of local memory */
    int needs_subgroups; /* built only where the device has cl_khr_subgroups */
    struct kl_param_def params[KL_MAX_PARAMS];
};

int kl_rowdot_rung_count(void);
const struct kl_rowdot_rung *kl_rowdot_rung_at(int i);
const struct kl_rung_table *kl_rowdot_rungs(void); /* the registry's view */

struct kl_ladder_tuner;

struct kl_rowdot_request {
    int rows, d;
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
        *tuner; /* NULL; else the chosen rung is tuned (tune/ladder.c) */
};

enum kl_status kl_rowdot_ladder(struct kl_context *kl, const struct kl_rowdot_request *req,
                                struct kl_report *report);

#endif /* KL_ROWDOT_H */
