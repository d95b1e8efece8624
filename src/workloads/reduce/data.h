/*
 * The reduction's inputs and reference (data.c).
 */
#ifndef KL_REDUCE_DATA_H
#define KL_REDUCE_DATA_H

#include <stddef.h>

#include "workloads/reduce/reduce.h"

/* n inputs of type t (float, double or int) drawn from seed. */
void kl_reduce_fill(enum kl_type t, enum kl_reduce_data data, void *x, size_t n,
                    unsigned long long seed);
/* The exact (int, min, max) or compensated (float and double sums) result; *scale the scale
   of its tolerance: √N·‖x‖₂ for sums. */
double kl_reduce_reference(enum kl_type t, enum kl_reduce_op op, const void *x, size_t n,
                           double *scale);
/* The tolerance as a multiple of *scale: 4u for float and double sums, else 0 (exact). */
double kl_reduce_tolerance(enum kl_type t, enum kl_reduce_op op);
/* The report's words for the inputs. */
void kl_reduce_inputs_text(enum kl_type t, enum kl_reduce_data data, char *out, size_t n);
/* The report's words for the reference. */
void kl_reduce_reference_text(enum kl_type t, enum kl_reduce_op op, char *out, size_t n);

#endif /* KL_REDUCE_DATA_H */
