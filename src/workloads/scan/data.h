/*
 * The scan's inputs and its check against the reference (data.c).
 */
#ifndef KL_SCAN_DATA_H
#define KL_SCAN_DATA_H

#include <stddef.h>

#include "workloads/scan/scan.h"

/* n inputs of type t (float or int) drawn from seed. */
void kl_scan_fill(enum kl_type t, enum kl_scan_data data, void *x, size_t n,
                  unsigned long long seed);

/* What a check found: the elements out of tolerance, the first of them, the worst. */
struct kl_scan_check {
    size_t bad, first;
    double first_got, first_want;
    double worst_ratio; /* the largest |error| / tolerance (0 where every result is exact) */
};

/*
 * Checks got[0 .. n) against the prefix sums of x, computed as it goes: exactly for int
 * (modulo 2^32) and for float data whose every partial sum is exact (constant, exact set),
 * else within 4u·√m·‖x₁..ₘ‖₂ of a compensated double sum of the m elements it adds up.
 */
void kl_scan_check(enum kl_type t, int exclusive, int exact, const void *x, const void *got,
                   size_t n, struct kl_scan_check *c);

/* The report's words for the inputs. */
void kl_scan_inputs_text(enum kl_type t, enum kl_scan_data data, char *out, size_t n);
/* The report's words for the reference. */
void kl_scan_reference_text(enum kl_type t, int exact, char *out, size_t n);

#endif /* KL_SCAN_DATA_H */
