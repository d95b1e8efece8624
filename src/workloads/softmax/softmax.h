/*
 * The softmax ladder: softmax, layer norm or RMS norm over each row of a
 * rows × cols matrix of floats, halfs or bf16s, computed in float and
 * written in the input's type; from a work-item walking its row three
 * times to a cluster of blocks that holds a long row in registers. A
 * memory-bound ladder: at best each element is read once and written once,
 * so the copy ceiling is its roof.
 *
 * The folder, read in this order: rungs.c (the table and each rung's
 * work-groups), ladder.c (the data, its reference and bound, one rung's
 * run, the entry). The arithmetic the kernels share is in
 * kernels/opencl/softmax/row.h.
 */
#ifndef KL_SOFTMAX_H
#define KL_SOFTMAX_H

#include "core/context.h"
#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"

enum kl_softmax_op { KL_SOFTMAX, KL_LAYERNORM, KL_RMSNORM };

/* "softmax", "layernorm", "rmsnorm"; the op named, or -1. */
const char *kl_softmax_op_name(enum kl_softmax_op op);
int kl_softmax_op_parse(const char *name);

enum kl_softmax_shape {
    KL_ROW_PER_ITEM,  /* a work-item per row */
    KL_ROW_PER_GROUP, /* a work-group of WG per row */
    KL_ROW_IN_GROUP,  /* a work-group of NT per row, V vectors each held */
    KL_ROW_IN_CLUSTER /* CL blocks of NT per row (a CUDA cluster), V vectors each held */
};

struct kl_softmax_rung {
    const char *name;
    const char *summary;
    const char *file;
    enum kl_softmax_shape shape;
    struct kl_param_def params[KL_MAX_PARAMS];
};

int kl_softmax_rung_count(void);
const struct kl_softmax_rung *kl_softmax_rung_at(int i);
const struct kl_rung_table *kl_softmax_rungs(void); /* the registry's view */

/* Rung r's launch (values v) for rows rows: *wg work-items a work-group, *groups of them. */
void kl_softmax_geometry(const struct kl_softmax_rung *r, const int *v, int rows, size_t *wg,
                         long *groups);

/*
 * The values rung r runs with for rows of cols elements of the given bytes where --param sets
 * none of its own: for the rungs that hold a row, NT (and CL and VS) sized to hold it, V
 * vectors a work-item; the table's defaults for the others. Into v; config says which (n
 * bytes).
 */
void kl_softmax_rule(const struct kl_softmax_rung *r, int cols, int bytes, int *v, char *config,
                     size_t n);

struct kl_ladder_tuner;

struct kl_softmax_request {
    int rows, cols;
    enum kl_type type; /* float, half or bf16 */
    enum kl_softmax_op op;
    double gamma, beta, eps; /* layer norm: all three; RMS norm: gamma and eps */
    unsigned long long seed;
    struct kl_protocol protocol;
    const char *const *params;
    int nparams;
    const char *const *rungs; /* NULL: the whole ladder */
    int nrungs;
    const struct kl_user_rung *users; /* the user's kernels (--kernel), after the table's */
    int nusers;
    const struct kl_ladder_tuner *tuner; /* NULL; else the chosen rung is tuned */
    const char *const *peers;            /* vendor libraries run beside the ladder ("cudnn") */
    int npeers;
};

enum kl_status kl_softmax_ladder(struct kl_context *kl, const struct kl_softmax_request *req,
                                 struct kl_report *report);

#endif /* KL_SOFTMAX_H */
