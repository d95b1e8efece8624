/*
 * The prefix-scan ladder: the inclusive or exclusive prefix sums of n
 * elements (float, or int wrapping modulo 2^32), from Hillis and Steele's
 * scan in one work-group to one pass with decoupled look-back at the copy
 * ceiling. A memory-bound ladder: each element is read once and its sum
 * written once (2n words), where the three-phase rungs read it twice.
 *
 * The folder, read in this order: rungs.c (the table and each rung's
 * launches), data.c (the inputs and the check against the reference),
 * ladder.c (one rung's run, the peers, the entry).
 */
#ifndef KL_SCAN_H
#define KL_SCAN_H

#include "core/context.h"
#include "core/params.h"
#include "core/report.h"
#include "core/user_rung.h"

/* random: uniform values (every 32-bit int); skewed: magnitudes over 2^±20 (ints mostly
   small, one in 1024 near ±2^30); constant: every element 1 (float) or 65537 (int) */
enum kl_scan_data { KL_SCAN_RANDOM, KL_SCAN_SKEWED, KL_SCAN_CONSTANT };

/* How a rung covers the array with work-groups. */
enum kl_scan_geometry {
    KL_SCAN_HOST,      /* a loop on the host */
    KL_SCAN_ONE_GROUP, /* one work-group walks the array (state unused) */
    KL_SCAN_PHASES,    /* tile_sums, scan_sums (one group), scan: a group per tile */
    KL_SCAN_LOOK_BACK  /* scan_init, then scan: a group per tile, tiles in the order taken */
};

struct kl_scan_rung {
    const char *name;
    const char *summary;
    const char *file; /* NULL: the host rung */
    enum kl_scan_geometry geometry;
    int per;             /* KL_SCAN_ONE_GROUP: elements per work-item of a tile */
    int needs_subgroups; /* built only where the device has sub-groups */
    struct kl_param_def params[KL_MAX_PARAMS];
};

int kl_scan_rung_count(void);
const struct kl_scan_rung *kl_scan_rung_at(int i);
const struct kl_rung_table *kl_scan_rungs(void); /* the registry's view */

/* Elements of one tile of rung r (values v): what one work-group takes at a time. */
long kl_scan_tile(const struct kl_scan_rung *r, const int *v);
/* Work-groups of rung r's main launch (values v) over n elements. */
long kl_scan_groups(const struct kl_scan_rung *r, const int *v, long n);
/* Words of state rung r's launches use over n elements (at least 1). */
long kl_scan_state_words(const struct kl_scan_rung *r, const int *v, long n);
/* Bytes of local memory a work-group of rung r's scan kernel declares (values v). */
long kl_scan_local_bytes(const struct kl_scan_rung *r, const int *v);

struct kl_ladder_tuner;

struct kl_scan_request {
    int n;
    enum kl_type type; /* float or int */
    int exclusive;
    enum kl_scan_data data;
    int checks; /* runs verified after the timed ones (at least 1) */
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

enum kl_status kl_scan_ladder(struct kl_context *kl, const struct kl_scan_request *req,
                              struct kl_report *report);

#endif /* KL_SCAN_H */
