/*
 * The histogram ladder: the counts of n bytes in BINS even bins over the
 * byte's 256 values (2..256 bins), from one global atomic per byte to
 * privatized counts that aggregate runs of one bin. A memory-bound ladder:
 * each byte is read once.
 *
 * The folder, read in this order: rungs.c (the table and each rung's
 * work-groups), ladder.c (the data and reference, one rung's run, the
 * peers, the entry).
 */
#ifndef KL_HISTOGRAM_H
#define KL_HISTOGRAM_H

#include "core/context.h"
#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"

/* uniform: random bytes; skewed: 90% one value, the rest random; constant: one value */
enum kl_histogram_data { KL_HIST_UNIFORM, KL_HIST_SKEWED, KL_HIST_CONSTANT };

/* How a rung covers the bytes with work-groups. */
enum kl_histogram_geometry {
    KL_HIST_HOST,     /* a loop on the host */
    KL_HIST_PER_BYTE, /* a work-item per byte: div_up(n, WG) groups */
    KL_HIST_RESIDENT  /* min(GPC·compute units, div_up(n / per, WG)) groups striding */
};

struct kl_histogram_rung {
    const char *name;
    const char *summary;
    const char *file; /* NULL: the host rung */
    enum kl_histogram_geometry geometry;
    int per; /* KL_HIST_RESIDENT: bytes per work-item per load */
    struct kl_param_def params[KL_MAX_PARAMS];
};

int kl_histogram_rung_count(void);
const struct kl_histogram_rung *kl_histogram_rung_at(int i);
const struct kl_rung_table *kl_histogram_rungs(void); /* the registry's view */

/* Work-groups of rung r (values v) for n bytes on a device of cus compute units. */
long kl_histogram_groups(const struct kl_histogram_rung *r, const int *v, long n, unsigned cus);

struct kl_ladder_tuner;

struct kl_histogram_request {
    int n;
    int bins; /* 2..256 */
    enum kl_histogram_data data;
    unsigned long long seed;
    struct kl_protocol protocol;
    const char *const *params;
    int nparams;
    const char *const *rungs; /* NULL: the whole ladder */
    int nrungs;
    const struct kl_user_rung *users; /* the user's kernels (--kernel), after the table's */
    int nusers;
    const char *const *peers; /* "cub" */
    int npeers;
    const struct kl_ladder_tuner *tuner; /* NULL; else the chosen rung is tuned */
};

enum kl_status kl_histogram_ladder(struct kl_context *kl, const struct kl_histogram_request *req,
                                   struct kl_report *report);

#endif /* KL_HISTOGRAM_H */
