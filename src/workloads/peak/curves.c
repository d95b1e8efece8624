/*
 * The pure pieces of `kladder peak`'s memory hierarchy (peak/memory.c, whose
 * header peak/curves.h declares them): the levels of a curve measured
 * against the working set, and the random cycle of the pointer chase with the
 * arithmetic that says where a chase ends. Apart from the device code so
 * tests/test_hierarchy.c checks them without a device.
 */
#include "workloads/peak/curves.h"

#include <stdint.h>

#include "core/util.h"

/* ---- the levels of a curve ------------------------------------------------------ */

/* 1 when v is within tolerance of a level whose best value is b. */
static int level_within(double v, double b, int rising, double tol)
{
    return rising ? v <= tol * b : v >= tol * b;
}

static int level_better(double a, double b, int rising)
{
    return rising ? a < b : a > b;
}

/* The median of a level: the point with half the level's count of points better than it
 * (ties ordered by index), so of two middle points the worse. */
static int level_median(const double *y, const struct kl_level *l, int rising)
{
    int count = l->last - l->first + 1;
    for (int i = l->first; i <= l->last; i++) {
        int better = 0;
        for (int j = l->first; j <= l->last; j++)
            better += level_better(y[j], y[i], rising) || (y[j] == y[i] && j < i);
        if (better == count / 2)
            return i;
    }
    return l->first; /* not reached */
}

int kl_levels_find(const double *w, const double *y, int n, int rising, double tol,
                   struct kl_level *out)
{
    int raw = 0, m = 0, kept = 0;
    /* The walk: plateau holds the level's best point for now. */
    for (int i = 0; i < n; i++) {
        struct kl_level *cur = raw ? &out[raw - 1] : NULL;
        if (cur && level_within(y[i], y[cur->plateau], rising, tol)) {
            cur->last = i;
            if (level_better(y[i], y[cur->plateau], rising))
                cur->plateau = i;
        } else {
            out[raw++] = (struct kl_level){i, i, i};
        }
    }
    /* Noise: a level within tolerance of the one before joins it (as a stack, so a
     * joined level is compared with its own predecessor again). */
    for (int k = 0; k < raw; k++) {
        out[m++] = out[k];
        while (m >= 2 && level_within(y[out[m - 1].plateau], y[out[m - 2].plateau], rising, tol)) {
            out[m - 2].last = out[m - 1].last;
            if (level_better(y[out[m - 1].plateau], y[out[m - 2].plateau], rising))
                out[m - 2].plateau = out[m - 1].plateau;
            m--;
        }
    }
    /* Transitions: a short level between two others (its best lies between theirs, as the
     * joining above leaves every level beyond tolerance of its neighbours). */
    for (int k = 0; k < m; k++)
        if (!(k > 0 && k < m - 1 && w[out[k].last] < KL_LEVEL_MIN_SPAN * w[out[k].first]))
            out[kept++] = out[k];
    for (int k = 1; k < kept; k++)
        out[k].plateau = level_median(y, &out[k], rising);
    return kept;
}

/* ---- the chase's cycle ----------------------------------------------------------- */

void kl_chase_cycle(uint32_t *next, uint32_t n, uint64_t seed)
{
    struct kl_rng rng;
    kl_rng_seed(&rng, seed);
    for (uint32_t i = 0; i < n; i++)
        next[i] = i;
    /* Sattolo: swap each element with one strictly before it: a single cycle. */
    for (uint32_t i = n ? n - 1 : 0; i > 0; i--) {
        uint32_t j = (uint32_t)(kl_rng_next(&rng) % i), t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
}

int kl_chase_order(const uint32_t *next, uint32_t n, uint32_t *order, uint32_t *rank)
{
    uint32_t p = 0;
    for (uint32_t k = 0; k < n; k++) {
        if ((k > 0 && p == 0) || p >= n)
            return 0; /* back at node 0 early, or a link out of the buffer */
        order[k] = p;
        rank[p] = k;
        p = next[p];
    }
    /* Back at node 0 after exactly n links, and not before: the nodes met are distinct. */
    return n > 0 && p == 0;
}

uint32_t kl_chase_after(const uint32_t *order, const uint32_t *rank, uint32_t n, uint32_t from,
                        uint64_t steps)
{
    return order[((uint64_t)rank[from] + steps % n) % n];
}
