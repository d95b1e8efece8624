/*
 * The reduction's inputs, its reference and its tolerance.
 */
#include "workloads/reduce/data.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "core/util.h"
#include "core/verify.h"

/* Random: every 32-bit int; skewed: mostly small, one in 1024 near ±2^30 (their sum wraps). */
static int32_t int_value(enum kl_reduce_data data, struct kl_rng *rng)
{
    uint32_t bits = (uint32_t)(kl_rng_next(rng) >> 32);
    if (data == KL_REDUCE_RANDOM)
        return (int32_t)bits;
    if (bits % 1024 == 0)
        return (bits & 1024 ? 1 : -1) * (int32_t)((1u << 30) + (bits >> 12));
    return (int32_t)(bits >> 28) - 8;
}

/* Random: uniform in [-1, 1); skewed: 2^e with e uniform in [-20, 20], either sign. */
static double float_value(enum kl_reduce_data data, struct kl_rng *rng)
{
    double u = kl_rng_uniform(rng);
    if (data == KL_REDUCE_RANDOM)
        return u;
    return (u < 0 ? -1 : 1) * ldexp(1.0, kl_rng_int(rng, -20, 20));
}

static void set(enum kl_type t, void *x, size_t i, double v)
{
    if (t == KL_FLOAT)
        ((float *)x)[i] = (float)v;
    else if (t == KL_DOUBLE)
        ((double *)x)[i] = v;
    else
        ((int32_t *)x)[i] = (int32_t)v;
}

void kl_reduce_fill(enum kl_type t, enum kl_reduce_data data, void *x, size_t n,
                    unsigned long long seed)
{
    struct kl_rng rng;
    kl_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++)
        set(t, x, i, t == KL_INT ? (double)int_value(data, &rng) : float_value(data, &rng));
    /* skewed: the largest and the smallest value last, where a kernel's tail handling is */
    if (data == KL_REDUCE_SKEWED && n >= 2) {
        set(t, x, n - 1, t == KL_INT ? INT32_MAX : 0x1.8p21);
        set(t, x, n - 2, t == KL_INT ? INT32_MIN : -0x1.8p21);
    }
}

/*
 * Σ x exactly for ints (modulo 2^32), else with Neumaier's compensation in double: for float
 * inputs exact to double's rounding, for double inputs to about twice double's precision.
 * *scale: √N·‖x‖₂, the tolerance's scale (kl_reduce_tolerance).
 */
static double sum_of(enum kl_type t, const void *x, size_t n, double *scale)
{
    double s = 0, c = 0, squares = 0;
    uint32_t wrapped = 0;
    for (size_t i = 0; i < n; i++) {
        double v = kl_get(t, x, i);
        if (t == KL_INT) {
            wrapped += (uint32_t)((const int32_t *)x)[i];
            continue;
        }
        double u = s + v;
        c += fabs(s) >= fabs(v) ? (s - u) + v : (v - u) + s;
        s = u;
        squares += v * v;
    }
    *scale = sqrt((double)n * squares);
    return t == KL_INT ? (double)(int32_t)wrapped : s + c;
}

double kl_reduce_reference(enum kl_type t, enum kl_reduce_op op, const void *x, size_t n,
                           double *scale)
{
    if (op == KL_REDUCE_SUM)
        return sum_of(t, x, n, scale);
    double r = kl_get(t, x, 0);
    for (size_t i = 1; i < n; i++) {
        double v = kl_get(t, x, i);
        r = op == KL_REDUCE_MIN ? fmin(r, v) : fmax(r, v);
    }
    *scale = fabs(r);
    return r;
}

/*
 * A sum's N - 1 additions each round by at most u of the partial sum they make. On data of
 * random signs (both of kladder's kinds) every partial sum of any order stays within a few
 * ‖x‖₂ (a random walk), and the roundings add as one too: the error stays near u·√N·‖x‖₂
 * over N additions in a row, and near u·√(log N)·‖x‖₂ for a tree. 4u·√N·‖x‖₂ covers the
 * longest order, one addition after the other, with room; a dropped or doubled block of
 * elements, or a result of 0, lands far outside it.
 */
double kl_reduce_tolerance(enum kl_type t, enum kl_reduce_op op)
{
    if (op != KL_REDUCE_SUM || t == KL_INT)
        return 0.0;
    return 4.0 * (t == KL_FLOAT ? FLT_EPSILON / 2 : DBL_EPSILON / 2);
}

void kl_reduce_inputs_text(enum kl_type t, enum kl_reduce_data data, char *out, size_t n)
{
    if (data == KL_REDUCE_SKEWED)
        snprintf(out, n, "x %s, the largest and the smallest last",
                 t == KL_INT ? "integers in [-8, 7], one in 1024 near ±2^30"
                             : "±2^e, e uniform in [-20, 20]");
    else
        snprintf(out, n, "x %s",
                 t == KL_INT ? "every 32-bit integer, uniformly" : "uniform in [-1, 1)");
}

void kl_reduce_reference_text(enum kl_type t, enum kl_reduce_op op, char *out, size_t n)
{
    if (op != KL_REDUCE_SUM || t == KL_INT)
        snprintf(out, n, "%s on the host, exactly%s", kl_reduce_op_name(op),
                 t == KL_INT && op == KL_REDUCE_SUM ? " (modulo 2^32, as uint32 wraps)" : "");
    else
        snprintf(out, n,
                 "sum in double on the host, compensated (Neumaier); tolerance 4u·√N·‖x‖₂, "
                 "any order's roundings on data of random signs");
}
