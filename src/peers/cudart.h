/*
 * The CUDA runtime as the CUDA peers (cuBLAS, NPP) use it: loaded with
 * dlopen on first use, and a run's device buffers and timing events.
 */
#ifndef KL_PEERS_CUDART_H
#define KL_PEERS_CUDART_H

#include <stddef.h>

#include "core/context.h"
#include "core/measure.h"

/* The few CUDA runtime entry points used, with their C types. */
struct kl_cudart {
    int (*count)(int *);
    int (*set_device)(int);
    int (*malloc_)(void **, size_t);
    int (*free_)(void *);
    int (*memcpy_)(void *, const void *, size_t, int);
    int (*event_create)(void **);
    int (*event_record)(void *, void *);
    int (*event_sync)(void *);
    int (*event_destroy)(void *);
    int (*elapsed)(float *, void *, void *);
    int (*attribute)(int *, int, int);
};
enum { KL_CUDART_H2D = 1, KL_CUDART_D2H = 2 };

/* The runtime, loaded once; NULL with the reason in why when it cannot be. */
const struct kl_cudart *kl_cudart(char *why, size_t n);

/*
 * A CUDA peer must run on the ladder's own GPU: through the CUDA backend its
 * device index; through OpenCL the two APIs' numbering cannot be matched, so
 * only a machine with one CUDA device qualifies. Makes that device current
 * and gives its index in *dev. library names the peer in messages.
 */
enum kl_status kl_cudart_device(const struct kl_context *kl, const char *library, int *dev,
                                struct kl_err *e);

/* One peer's run: device buffers (host[i] uploaded where not NULL; the output is buf[2]). */
struct kl_cudart_run {
    void *start, *stop, *buf[3];
    size_t bytes[3];
};
enum kl_status kl_cudart_run_open(struct kl_cudart_run *r, const void *const host[3],
                                  struct kl_err *e);
void kl_cudart_run_close(struct kl_cudart_run *r);
/* The call's status rc (0: success), then its time from the events recorded around it. */
enum kl_status kl_cudart_run_time(struct kl_cudart_run *r, int rc, const char *call,
                                  double *seconds, struct kl_err *e);
/*
 * Runs once, downloads buf[2] into out (for verification), then times by the protocol,
 * observed as kl's launches are (NVML's clocks and power of its device).
 */
enum kl_status kl_cudart_run_measure(struct kl_context *kl, struct kl_cudart_run *r,
                                     enum kl_status (*once)(void *, double *, struct kl_err *),
                                     void *arg, const struct kl_protocol *proto, void *out,
                                     struct kl_stats *stats, struct kl_err *e);

#endif /* KL_PEERS_CUDART_H */
