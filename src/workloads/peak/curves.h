/*
 * The pure pieces of `kladder peak`'s memory hierarchy (peak/curves.c, for
 * peak/memory.c), apart so that tests/test_hierarchy.c checks them without a
 * device: the levels of a curve measured against the working set, and the
 * random cycle of the pointer chase with the arithmetic that says where a
 * chase ends.
 */
#ifndef KL_PEAK_MEMORY_H
#define KL_PEAK_MEMORY_H

#include <stdint.h>

/*
 * One level of a curve over working sets (one cache, or device memory):
 * its points, as indices into the curve, from first to last (its largest
 * working set, where the level ends), and plateau, the point that stands for
 * it.
 */
struct kl_level {
    int first, last;
    int plateau;
};

/* Tolerances: bandwidth stays above 0.75 x a level's best; latency below 1.4 x. */
#define KL_LEVEL_BW_TOL 0.75
#define KL_LEVEL_LAT_TOL 1.4
/* A level between two others spans at least this factor of working sets, else it is a
 * transition. */
#define KL_LEVEL_MIN_SPAN 4.0

/*
 * The levels of the n values y measured at the working sets w (growing)
 * into out, which has room for n; returns their count. Falling curves
 * (bandwidth, rising 0, tol < 1): walking from the smallest working set, a
 * level goes on while a point stays at or above tol x the level's best (its
 * largest value so far); a point below starts the next level. Rising curves
 * (latency, rising 1, tol > 1): the same with "at or below tol x the level's
 * smallest". Then, in order:
 *  - a level whose best is within tol of the previous level's best (a dip
 *    or spike of noise split a plateau) joins the previous level;
 *  - a level between two others whose working sets span less than
 *    KL_LEVEL_MIN_SPAN (its largest over its smallest) is a transition, not
 *    a level: dropped. Past a cache's size the loads still hit it in part
 *    for a while; a cache is larger than the one before by more than that.
 * The plateau of the first level is its best point; of a later level, its
 * median (of its points ordered from best to worst, the one at half its
 * count): at the first working sets of a later level the loads still hit
 * the level before in part, so its best point would overstate it.
 */
int kl_levels_find(const double *w, const double *y, int n, int rising, double tol,
                   struct kl_level *out);

/*
 * Sattolo's algorithm: next[i] (i < n) links the n nodes into one random
 * cycle through all of them, from kladder's generator seeded by seed.
 */
void kl_chase_cycle(uint32_t *next, uint32_t n, uint64_t seed);

/*
 * The cycle's order from node 0: order[k] is the node k links after node 0
 * and rank[order[k]] = k. Returns 1 when next is one cycle through all n
 * nodes, else 0 (order and rank then undefined).
 */
int kl_chase_order(const uint32_t *next, uint32_t n, uint32_t *order, uint32_t *rank);

/* The node `steps` links after node `from` on the cycle of kl_chase_order. */
uint32_t kl_chase_after(const uint32_t *order, const uint32_t *rank, uint32_t n, uint32_t from,
                        uint64_t steps);

#endif /* KL_PEAK_MEMORY_H */
