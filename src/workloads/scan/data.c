/*
 * The scan's inputs, and its check against the reference, computed as the
 * check goes (no array of references: 2^30 of them would be 8 GiB).
 */
#include "workloads/scan/data.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util.h"

/* Random: every 32-bit int; skewed: mostly small, one in 1024 near ±2^30; constant: 65537,
   whose sums wrap past 2^32 from 65536 elements on. */
static int32_t int_value(enum kl_scan_data data, struct kl_rng *rng)
{
    uint32_t bits = (uint32_t)(kl_rng_next(rng) >> 32);
    if (data == KL_SCAN_CONSTANT)
        return 65537;
    if (data == KL_SCAN_RANDOM)
        return (int32_t)bits;
    if (bits % 1024 == 0)
        return (bits & 1024 ? 1 : -1) * (int32_t)((1u << 30) + (bits >> 12));
    return (int32_t)(bits >> 28) - 8;
}

/* Random: uniform in [-1, 1); skewed: 2^e with e uniform in [-20, 20], either sign;
   constant: 1, whose sums are exact in float up to 2^24 elements. */
static float float_value(enum kl_scan_data data, struct kl_rng *rng)
{
    if (data == KL_SCAN_CONSTANT)
        return 1.0f;
    double u = kl_rng_uniform(rng);
    if (data == KL_SCAN_RANDOM)
        return (float)u;
    return (float)((u < 0 ? -1 : 1) * ldexp(1.0, kl_rng_int(rng, -20, 20)));
}

void kl_scan_fill(enum kl_type t, enum kl_scan_data data, void *x, size_t n,
                  unsigned long long seed)
{
    struct kl_rng rng;
    kl_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) {
        if (t == KL_INT)
            ((int32_t *)x)[i] = int_value(data, &rng);
        else
            ((float *)x)[i] = float_value(data, &rng);
    }
}

/* Records element i (got g, want w; r2 its |error|² over its tolerance², NaN or above 1
   where out of it): the first bad one, and the worst good one. */
static void record(struct kl_scan_check *c, size_t i, double g, double w, double r2)
{
    if (r2 <= 1.0) {
        if (r2 > c->worst_ratio)
            c->worst_ratio = r2;
        return;
    }
    if (c->bad++ == 0) {
        c->first = i;
        c->first_got = g;
        c->first_want = w;
    }
}

/* Int sums wrap modulo 2^32: every result exactly the reference's bits. */
static void check_int(int exclusive, const int32_t *x, const int32_t *got, size_t n,
                      struct kl_scan_check *c)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t before = sum;
        sum += (uint32_t)x[i];
        uint32_t want = exclusive ? before : sum;
        if ((uint32_t)got[i] != want)
            record(c, i, got[i], (int32_t)want, INFINITY);
    }
}

/*
 * Float sums: Neumaier's compensated sum in double as the reference, the tolerance
 * 4u·√m·‖x₁..ₘ‖₂ over the m elements summed (see kl_scan_reference_text), or 0 where exact.
 * Compared squared, so that 2^30 elements take no square root.
 */
static void check_float(int exclusive, int exact, const float *x, const float *got, size_t n,
                        struct kl_scan_check *c)
{
    const double u4 = 4.0 * (FLT_EPSILON / 2);
    double s = 0, comp = 0, squares = 0;
    for (size_t i = 0; i < n; i++) {
        double want = s + comp, m = (double)i, sq = squares;
        double v = x[i], t = s + v;
        comp += fabs(s) >= fabs(v) ? (s - t) + v : (v - t) + s;
        s = t;
        squares += v * v;
        if (!exclusive) {
            want = s + comp;
            m = (double)(i + 1);
            sq = squares;
        }
        double err = (double)got[i] - want, tol2 = exact ? 0.0 : u4 * u4 * m * sq;
        record(c, i, got[i], want, err == 0 ? 0.0 : tol2 > 0 ? err * err / tol2 : INFINITY);
    }
}

void kl_scan_check(enum kl_type t, int exclusive, int exact, const void *x, const void *got,
                   size_t n, struct kl_scan_check *c)
{
    *c = (struct kl_scan_check){0};
    if (t == KL_INT)
        check_int(exclusive, x, got, n, c);
    else
        check_float(exclusive, exact, x, got, n, c);
    c->worst_ratio = sqrt(c->worst_ratio);
}

void kl_scan_inputs_text(enum kl_type t, enum kl_scan_data data, char *out, size_t n)
{
    if (data == KL_SCAN_CONSTANT)
        snprintf(out, n, "x all %s", t == KL_INT ? "65537" : "1");
    else if (data == KL_SCAN_SKEWED)
        snprintf(out, n, "x %s",
                 t == KL_INT ? "integers in [-8, 7], one in 1024 near ±2^30"
                             : "±2^e, e uniform in [-20, 20]");
    else
        snprintf(out, n, "x %s",
                 t == KL_INT ? "every 32-bit integer, uniformly" : "uniform in [-1, 1)");
}

/*
 * Each result of a float scan is a sum of m elements in some order (a chain, a tree, a
 * chain of trees). Each addition rounds by at most u of the partial sum it makes; on data of
 * random signs (random and skewed) every partial sum stays within a few ‖x₁..ₘ‖₂ and the
 * roundings add as a random walk: u·√m·‖x₁..ₘ‖₂ or below for any order. 4u·√m·‖x₁..ₘ‖₂ covers
 * the longest, the host's one addition after the other, with room. Constant data (ones) sums
 * to integers, exact in float below 2^24, so its results are checked exactly.
 */
void kl_scan_reference_text(enum kl_type t, int exact, char *out, size_t n)
{
    if (t == KL_INT)
        snprintf(out, n, "prefix sums on the host, exactly (modulo 2^32, as uint32 wraps)");
    else if (exact)
        snprintf(out, n, "prefix sums of ones on the host, exactly (integers below 2^24)");
    else
        snprintf(out, n,
                 "prefix sums in double on the host, compensated (Neumaier); tolerance "
                 "4u·√m·‖x₁..ₘ‖₂ for a sum of m elements, any order's roundings on data of "
                 "random signs");
}
