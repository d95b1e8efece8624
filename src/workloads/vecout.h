/*
 * The output side of the memory-bound ladders (rowdot, gemv): a vector of n
 * results on the device with a poisoned guard band after it, the reference
 * and tolerance scale per element, and one rung's run: a verified launch on
 * a poisoned (or initialised) output, then the timing protocol.
 */
#ifndef KL_VECOUT_H
#define KL_VECOUT_H

#include "core/launch.h"
#include "core/report.h"

struct kl_vecout {
    struct kl_context *kl;
    enum kl_type type;
    size_t n;
    double *ref, *scale; /* n each: expected value and |terms| sum per element */
    const void *init;    /* n elements the output holds before a run; NULL: poison */
    void *host, *fill;   /* n + guard elements: read back, and written before a run */
    struct kl_buf *dev;  /* n + guard elements */
};

void kl_vecout_init(struct kl_vecout *o, struct kl_context *kl, enum kl_type t, size_t n);
/* Allocates the reference arrays and the host and device buffers. */
enum kl_status kl_vecout_alloc(struct kl_vecout *o, struct kl_err *e);
void kl_vecout_free(struct kl_vecout *o);

/*
 * Runs l (then l2, when not NULL) once, checks the output against the
 * reference within factor·scale and the guard band, and records a FAILED
 * result, or times l (+ l2, their event times added) by proto into res.
 * Returns an error only when the device or API fails.
 */
enum kl_status kl_vecout_run(struct kl_vecout *o, struct kl_launch *l, struct kl_launch *l2,
                             const struct kl_protocol *proto, double factor, struct kl_result *res);

/* The same for launches timed as one (a kernel's passes): p's launches in order. */
enum kl_status kl_vecout_run_all(struct kl_vecout *o, struct kl_launch_pair *p,
                                 const struct kl_protocol *proto, double factor,
                                 struct kl_result *res);

/*
 * kl_vecout_run_all, then p's launches once more on a poisoned output, verified: a kernel
 * whose result depends on what an earlier launch left (a counter left set, counts added to)
 * fails there, where the timed launches have moved that state on, and not only in the first
 * run; res says so.
 */
enum kl_status kl_vecout_run_twice(struct kl_vecout *o, struct kl_launch_pair *p,
                                   const struct kl_protocol *proto, double factor,
                                   struct kl_result *res);

/* Checks a result computed elsewhere (a peer's) against the reference. */
void kl_vecout_judge(const struct kl_vecout *o, const void *got, double factor,
                     struct kl_result *res);

struct kl_err;
struct kl_stats;
/*
 * A peer's row after its run returned st (e the reason; what the library and call) with its
 * result in o->host: skipped or failed with the reason (kl_peer_row), else judged as a
 * rung's, and where verified its times and launches kept.
 */
void kl_vecout_peer(const struct kl_vecout *o, enum kl_status st, const struct kl_err *e,
                    const char *what, const struct kl_stats *stats, double factor,
                    struct kl_result *res);

#endif /* KL_VECOUT_H */
