/*
 * One kernel launch, described once and run many times by the timing
 * protocol: the kernel, its arguments and its geometry.
 */
#ifndef KL_LAUNCH_H
#define KL_LAUNCH_H

#include "core/context.h"

/* the most a launch passes: rung 22's INT8 products with stream-K pass 13 (rung 20's 12 and
   a modulus), as rung 20 does with EPI=1 and stream-K */
#define KL_MAX_ARGS 16

struct kl_launch {
    struct kl_context *kl;
    struct kl_kernel *kernel;
    struct kl_arg args[KL_MAX_ARGS];
    int nargs;
    int dims;
    size_t global[3], local[3];
};

/* A kl_launch_fn (core/measure.h): runs the launch, *seconds its event time. */
enum kl_status kl_launch_timed(void *launch, double *seconds, struct kl_err *e);

/*
 * Checks the work-group against the device's limits (before building) and,
 * when l->kernel is set, against the compiled kernel's own limit.
 * KL_ERR_UNSUPPORTED with a message naming rung when it does not fit.
 */
enum kl_status kl_launch_check(const struct kl_launch *l, const char *rung, struct kl_err *e);

/* Two launches timed as one (a kernel and its second pass); b may be NULL. */
/* Launches timed as one: a, then b (NULL: none), then the nmore of more. */
struct kl_launch_pair {
    struct kl_launch *a, *b;
    struct kl_launch *const *more;
    int nmore;
};

/* A kl_launch_fn over a struct kl_launch_pair: the event times of all added. */
enum kl_status kl_launch_pair_timed(void *pair, double *seconds, struct kl_err *e);

/* A 1-D launch of groups work-groups of wg work-items each. */
void kl_launch_1d(struct kl_launch *l, size_t groups, size_t wg);

/* A float or double argument of type t holding v. */
struct kl_arg kl_arg_scalar(enum kl_type t, double v);

/* Rounds x up to a multiple of m (m > 0). */
size_t kl_round_up(size_t x, size_t m);

#endif /* KL_LAUNCH_H */
