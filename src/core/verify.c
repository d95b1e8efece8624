#include "core/verify.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/util.h"

void kl_poison(enum kl_type t, void *data, size_t n)
{
    /* a narrow float type's NaN, its bits found once */
    unsigned nan_bits =
        t == KL_HALF || t == KL_BF16 || kl_type_fp8(t) ? kl_narrow_round(t, NAN) : 0;
    for (size_t i = 0; i < n; i++) {
        switch (t) {
        case KL_FLOAT: ((float *)data)[i] = NAN; break;
        case KL_DOUBLE: ((double *)data)[i] = NAN; break;
        case KL_INT: ((int32_t *)data)[i] = INT32_MAX; break;
        case KL_HALF:
        case KL_BF16: ((uint16_t *)data)[i] = (uint16_t)nan_bits; break;
        case KL_FP8:
        case KL_FP8E5M2: ((uint8_t *)data)[i] = (uint8_t)nan_bits; break;
        case KL_INT8: ((int8_t *)data)[i] = INT8_MAX; break;
        case KL_UCHAR: ((uint8_t *)data)[i] = UINT8_MAX; break;
        }
    }
}

double kl_dot_tolerance(enum kl_type t, long k)
{
    double root = sqrt((double)(k > 1 ? k : 1));
    switch (t) {
    case KL_FLOAT: return 4.0 * (FLT_EPSILON / 2) * root;
    case KL_DOUBLE: return 8.0 * (DBL_EPSILON / 2) * root;
    case KL_INT:
    case KL_INT8:
    case KL_UCHAR: return 0.0;
    default: return 4.0 * (FLT_EPSILON / 2) * root; /* narrow floating inputs: fp32 sums */
    }
}

/* The unit roundoff of a 16-bit floating type: 2^-(mantissa bits + 1). */
static double unit_roundoff(enum kl_type t)
{
    return t == KL_HALF ? ldexp(1.0, -11) : t == KL_BF16 ? ldexp(1.0, -8) : 0.0;
}

double kl_narrow_tolerance(enum kl_type t, long k)
{
    if (kl_type_fp8(t))
        return kl_fp8_tolerance(k, 1);
    return t == KL_INT8 ? 0.0 : unit_roundoff(t) + kl_dot_tolerance(KL_FLOAT, k);
}

/* The unit of the FP8 sums' bound: Hopper keeps 13 significant bits of an FP8 sum, truncated
   (errors below 2^-12 of the largest addend); 4·2^-13 puts the errors measured on an H200 at
   0.04 to 0.16 of the promoted bound (docs/RESULTS.md). */
#define FP8_SUM_U 0x1p-13

double kl_fp8_tolerance(long k, long span)
{
    double K = (double)(k > 1 ? k : 1), s = span < 1 || (double)span > K ? K : (double)span;
    return 4.0 * FP8_SUM_U * s / sqrt(32.0 * K) + kl_dot_tolerance(KL_FLOAT, k);
}

double kl_tf32_tolerance(long k)
{
    return ldexp(1.0, -10) + kl_dot_tolerance(KL_FLOAT, k);
}

double kl_get(enum kl_type t, const void *data, size_t i)
{
    switch (t) {
    case KL_FLOAT: return ((const float *)data)[i];
    case KL_DOUBLE: return ((const double *)data)[i];
    case KL_INT: return ((const int32_t *)data)[i];
    case KL_HALF:
    case KL_BF16: return kl_narrow_value(t, ((const uint16_t *)data)[i]);
    case KL_FP8:
    case KL_FP8E5M2: return kl_narrow_value(t, ((const uint8_t *)data)[i]);
    case KL_INT8: return ((const int8_t *)data)[i];
    case KL_UCHAR: return ((const uint8_t *)data)[i];
    }
    return NAN;
}

/* err measured in units of by: infinite for NaN, or for an error where by is 0. */
static double in_units(double err, double by)
{
    return isnan(err) ? INFINITY : by > 0 ? err / by : (err > 0 ? INFINITY : 0.0);
}

/* Keeps one of the first wrong elements (at, what it got, what it should be). */
static void note_wrong(struct kl_check *out, size_t at, double got, double want)
{
    out->first[out->nfirst] = at;
    out->first_got[out->nfirst] = got;
    out->first_want[out->nfirst++] = want;
}

/* 1 for the integer types, whose results compare exactly. */
static int integer_type(enum kl_type t)
{
    return t == KL_INT || t == KL_INT8 || t == KL_UCHAR;
}

/* What kl_check compares: got (of type t) against ref within factor * scale. */
struct check_args {
    enum kl_type t;
    const void *got;
    const double *ref, *scale;
    const size_t *idx;
    double factor;
    struct kl_check part[KL_PARALLEL_MAX]; /* each share's findings, where it is shared */
};

/* kl_check over elements begin .. end - 1 into out, as if they were all there were. */
static void check_range(const struct check_args *a, size_t begin, size_t end, struct kl_check *out)
{
    /* The floor only covers results that are zero up to underflow. */
    int exact = integer_type(a->t);
    double floor = a->t == KL_DOUBLE ? DBL_MIN : exact ? 0.0 : FLT_MIN;
    memset(out, 0, sizeof *out);
    out->checked = end - begin;
    for (size_t i = begin; i < end; i++) {
        size_t at = a->idx ? a->idx[i] : i;
        double g = kl_get(a->t, a->got, at), want = a->ref[i];
        double tol = a->scale && !exact ? a->factor * a->scale[i] + floor : 0.0;
        double err = fabs(g - want);
        if (!(err <= tol) && out->bad++ < KL_CHECK_FIRST)
            note_wrong(out, at, g, want);
        double rel = a->scale ? in_units(err, a->scale[i]) : 0.0, ratio = in_units(err, tol);
        if (rel > out->max_error)
            out->max_error = rel;
        if (ratio > out->worst_ratio || (i == begin && out->bad == 0)) {
            out->worst_ratio = ratio;
            out->worst = at;
            out->worst_got = g;
            out->worst_want = want;
        }
    }
}

static void check_share(void *arg, size_t share, size_t begin, size_t end)
{
    struct check_args *a = arg;
    check_range(a, begin, end, &a->part[share]);
}

/*
 * The shares' findings in order, as one pass would have found them: counts
 * added, the first wrong elements kept in order, the worst the first of the
 * largest ratio.
 */
static void merge_shares(const struct kl_check *part, size_t k, struct kl_check *out)
{
    *out = part[0];
    for (size_t j = 1; j < k; j++) {
        const struct kl_check *c = &part[j];
        for (size_t f = 0; f < c->nfirst && out->nfirst < KL_CHECK_FIRST; f++)
            note_wrong(out, c->first[f], c->first_got[f], c->first_want[f]);
        out->checked += c->checked;
        out->bad += c->bad;
        if (c->max_error > out->max_error)
            out->max_error = c->max_error;
        if (c->worst_ratio > out->worst_ratio) {
            out->worst_ratio = c->worst_ratio;
            out->worst = c->worst;
            out->worst_got = c->worst_got;
            out->worst_want = c->worst_want;
        }
    }
}

/* Past this many elements a check is shared among the host's processors. */
#define CHECK_SHARED (1u << 22)

void kl_check(enum kl_type t, const void *got, const double *ref, const double *scale,
              const size_t *idx, size_t n, double factor, struct kl_check *out)
{
    struct check_args a = {t, got, ref, scale, idx, factor, {{0}}};
    if (n < CHECK_SHARED) {
        check_range(&a, 0, n, out);
        return;
    }
    kl_parallel_for(n, check_share, &a);
    merge_shares(a.part, kl_parallel_shares(n), out);
}

void kl_fill_uniform(enum kl_type t, void *x, size_t n, struct kl_rng *rng)
{
    for (size_t i = 0; i < n; i++) {
        switch (t) {
        case KL_FLOAT: ((float *)x)[i] = (float)kl_rng_uniform(rng); break;
        case KL_DOUBLE: ((double *)x)[i] = kl_rng_uniform(rng); break;
        case KL_INT: ((int32_t *)x)[i] = kl_rng_int(rng, -8, 8); break;
        case KL_HALF:
        case KL_BF16: ((uint16_t *)x)[i] = (uint16_t)kl_narrow_round(t, kl_rng_uniform(rng)); break;
        case KL_FP8:
        case KL_FP8E5M2:
            ((uint8_t *)x)[i] = (uint8_t)kl_narrow_round(t, kl_rng_uniform(rng));
            break;
        case KL_INT8: ((int8_t *)x)[i] = (int8_t)kl_rng_int(rng, -128, 127); break;
        case KL_UCHAR: ((uint8_t *)x)[i] = (uint8_t)kl_rng_int(rng, 0, 255); break;
        }
    }
}
