/*
 * Checking results: poisoning outputs, tolerances that scale with the
 * length of the reduction and the type, element-wise comparison.
 */
#ifndef KL_VERIFY_H
#define KL_VERIFY_H

#include <stddef.h>

#include "kladder.h"

/* Fills n elements with NaN (floating types), INT32_MAX (int) or INT8_MAX (int8). */
void kl_poison(enum kl_type t, void *data, size_t n);

/*
 * Tolerance factor for a sum of k products computed in type t, relative to
 * the sum of the products' magnitudes: |got - exact| <= factor * sum|a*b|.
 * Rounding errors of a k-term sum grow like sqrt(k) for random data, with
 * the unit roundoff u; the factor is 4u·sqrt(k) (8u·sqrt(k) for double,
 * whose reference carries an error of the same order; a narrow floating
 * type's, summed in fp32, float's). 0 for int and int8: exact.
 */
double kl_dot_tolerance(enum kl_type t, long k);

/*
 * The same for float inputs rounded to TF32 before they are multiplied (the
 * tensor cores' TF32 mode): TF32 keeps 10 of float's 23 mantissa bits, so
 * rounding moves a value by at most 2^-11 of itself and a product by at
 * most 2^-10 (plus 2^-22); the fp32 sum adds kl_dot_tolerance's 4u·sqrt(k).
 * A bound that holds for any data: 2^-10 + 4u·sqrt(k).
 */
double kl_tf32_tolerance(long k);

/*
 * The same for inputs of a 16-bit type t (half, bf16) whose products are
 * summed in fp32, as the tensor cores sum them: the inputs are exact in
 * their type and a product of two is exact in fp32, so the bound is the
 * fp32 sum's 4u·sqrt(k) plus u_t, the type's unit roundoff (2^-11, 2^-8):
 * room for the tensor cores' sums, which align their addends and truncate,
 * and no more, so that a result that rounded its inputs to the next
 * narrower type (an error of up to 2·u of that type at k = 1) fails. For
 * fp8 and fp8e5m2, products summed in fp32: kl_fp8_tolerance(k, 1). 0 for
 * int8: exact.
 */
double kl_narrow_tolerance(enum kl_type t, long k);

/*
 * The same for FP8 inputs (e4m3, e5m2) on tensor cores that keep only about
 * 13 bits of an FP8 sum, as Hopper's do (addends aligned to the largest and
 * truncated: u_acc = 2^-13), span elements of K at a time before fp32
 * registers take the sums over ("promotion"; span >= k, or 0 for unknown:
 * all of K, the fast mode; 1: every product in fp32, as on the FMA units).
 * A span's sum of s/32 k-blocks errs by about 4·u_acc·sqrt(s/32) of its own
 * scale (the fp32 bound's form); spans of s/k of the scale each, with
 * independent errors, add to sqrt(k/s) of that. So the bound is
 * 4·u_acc·s / sqrt(32·k), plus the fp32 sum's 4u·sqrt(k) across spans.
 * The products are exact in fp32, so the inputs' own roundoff takes no
 * room: at k = 8192 a result promoted every 128 elements has 1.4e-4, the
 * fast mode 7.8e-3, and a fast result fails the promoted bound.
 */
double kl_fp8_tolerance(long k, long span);

#define KL_CHECK_FIRST 3
struct kl_check {
    size_t checked;               /* elements compared */
    size_t bad;                   /* elements out of tolerance */
    size_t worst;                 /* index (into got) of the worst element */
    double worst_got;             /* its value ... */
    double worst_want;            /* ... the reference ... */
    double worst_ratio;           /* ... and |error| / tolerance (inf for NaN) */
    double max_error;             /* largest |got - ref| / scale: the normwise error (inf for NaN;
                                     0 without scales) */
    size_t nfirst;                /* the first bad elements, in order (up to KL_CHECK_FIRST): */
    size_t first[KL_CHECK_FIRST]; /* index (into got), */
    double first_got[KL_CHECK_FIRST], first_want[KL_CHECK_FIRST]; /* value and reference */
};

/*
 * Compares got (n elements of type t) with ref: element idx[i] of got
 * (i if idx is NULL) against ref[i], with tolerance factor * scale[i] plus a
 * tiny absolute floor; scale NULL means exact comparison. For int, scales
 * give the normwise error but the comparison stays exact.
 */
void kl_check(enum kl_type t, const void *got, const double *ref, const double *scale,
              const size_t *idx, size_t n, double factor, struct kl_check *out);

struct kl_rng;
/*
 * Random inputs: uniform in [-1, 1) for floating types (rounded to the
 * narrow ones), integers in [-8, 8] for int, the whole range [-128, 127]
 * for int8 and [0, 255] for uchar.
 */
void kl_fill_uniform(enum kl_type t, void *x, size_t n, struct kl_rng *rng);

/* Reads element i of a typed array as double. */
double kl_get(enum kl_type t, const void *data, size_t i);

#endif /* KL_VERIFY_H */
