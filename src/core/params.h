/*
 * Rung parameters: declared by each rung with a default and a range, set
 * from the command line as NAME=VALUE, passed to kernels as -DNAME=VALUE.
 */
#ifndef KL_PARAMS_H
#define KL_PARAMS_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "kladder.h"

#define KL_MAX_PARAMS 10

struct kl_param_def {
    const char *name; /* NULL ends a rung's list */
    int def, min, max;
    int multiple; /* the value must be a multiple of this (1: any) */
    int pow2;     /* the value must be a power of two */
    const char *help;
};

/*
 * A constraint between two parameters of one rung: the value of name must be
 * a multiple of the value of of (e.g. BM of TM: whole work-item blocks per
 * work-group). A rung lists up to KL_MAX_MULTIPLES; NULL name ends the list.
 */
#define KL_MAX_MULTIPLES 4
struct kl_param_multiple {
    const char *name, *of;
};

/* Fails (KL_ERR_ARG, naming both values) unless every constraint in m holds. */
enum kl_status kl_params_check_multiples(const char *rung, const struct kl_param_def *defs,
                                         const int *values, const struct kl_param_multiple *m,
                                         struct kl_err *e);

/* Number of parameters in a rung's list (at most KL_MAX_PARAMS). */
int kl_param_count(const struct kl_param_def *defs);
/* Index of name in the list, or -1. */
int kl_param_index(const struct kl_param_def *defs, const char *name);
/* The value of name among values (resolved for defs), or 0 if absent. */
int kl_param_value(const struct kl_param_def *defs, const int *values, const char *name);

/* 1 when one of items ("NAME=VALUE") names a parameter of defs. */
int kl_params_mention(const char *const *items, int nitems, const struct kl_param_def *defs);

/* Splits "NAME=VALUE" and parses VALUE strictly as an integer. */
enum kl_status kl_param_split(const char *item, char *name, size_t n, long *value,
                              struct kl_err *e);

/*
 * The values of a rung's parameters: defaults, overridden by the items that
 * name one of them (items naming other parameters are left to the caller).
 * *explicit_mask gets bit i for each parameter the user set.
 */
enum kl_status kl_params_resolve(const char *rung, const struct kl_param_def *defs,
                                 const char *const *items, int nitems, int *values,
                                 unsigned *explicit_mask, struct kl_err *e);

/* "-DKL_T_<TYPE> -DNAME=VALUE ..." for the kernel build. */
void kl_params_options(const struct kl_param_def *defs, const int *values, enum kl_type t,
                       char *out, size_t n);

/* Fails unless every item names a parameter declared in one of the lists. */
enum kl_status kl_params_check_known(const char *const *items, int nitems,
                                     const struct kl_param_def *const *lists, int nlists,
                                     struct kl_err *e);

/* Prints "--param NAME=default (min..max ...): help" lines, indented past a name column. */
void kl_params_print(const struct kl_param_def *defs, int indent, FILE *out);

#endif /* KL_PARAMS_H */
