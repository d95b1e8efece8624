/*
 * The schedules of the multi-GPU GEMM (multi/mgemm.c's rows): where each
 * device's blocks live, how they are scattered there (setup, untimed), what
 * one run queues on every device, and the gather of C for the check.
 * Internal to src/multi; CUDA only.
 */
#ifndef KL_SUMMA_H
#define KL_SUMMA_H

#include "core/context.h"
#include "core/report.h"
#include "multi/dist.h"
#include "multi/nccl.h"
#include "multi/ranks.h"

#define KL_MAX_DEVICES 64 /* devices one process drives */

/* One device of the ladder and the streams and events every schedule shares. */
struct kl_mdev {
    struct kl_context *kl;
    void *comp, *comm;       /* streams: the multiplies; the overlapped broadcasts */
    void *recv[2], *used[2]; /* events: panel buffer b has arrived; buffer b is free again */
};

/*
 * The ladder's devices, communicators and host inputs. In one process every device is
 * here; with ranks (one process a device, multi/ranks.h) device d is rank d's, and this
 * process holds only its own: dev[d].kl is NULL for the others, whose blocks it still
 * plans (the plan is arithmetic) but never touches.
 */
struct kl_menv {
    int G;
    struct kl_mdev *dev;
    const struct kl_backend_ops *ops; /* dev's backend (one for all): its streams and events */
    const struct kl_nccl *nccl;       /* NULL: no NCCL (only KL_SCHED_ONE runs) */
    kl_nccl_comm *comms;              /* rank d on dev[d] */
    const struct kl_ranks *ranks;     /* NULL: one process drives every device */
    int same_devices;                 /* every device has device 0's name */
    int M, N, K;
    const float *A, *B; /* row-major host inputs */
};

/* 1 when device d is this process's to drive. */
static inline int kl_menv_here(const struct kl_menv *env, int d)
{
    return env->dev[d].kl != NULL;
}

/* 1 on the process that writes the report: the one process, or rank 0. */
static inline int kl_menv_root(const struct kl_menv *env)
{
    return !env->ranks || env->ranks->rank == 0;
}

/*
 * Opens "cuda:I" for each of the G devices (1 to KL_MAX_DEVICES, distinct) (env->dev[d] is
 * devices[d]) with its streams and events, then NCCL's communicators over all of them; where NCCL
 * cannot be loaded or set up, env->nccl is NULL and why_no_nccl (n bytes) says why. Errors: a
 * device that cannot be opened (the sentence names it), streams or events that cannot be made.
 * With ranks, G is 1 (this rank's device, which becomes dev[rank] of ranks->size) and every
 * rank opens together: one communicator a rank from a unique id rank 0 makes, and an error
 * on any rank is every rank's. kl_menv_close undoes it all, also after a failure.
 */
enum kl_status kl_menv_open(struct kl_menv *env, const int *devices, int G,
                            const struct kl_ranks *ranks, char *why_no_nccl, size_t n,
                            struct kl_err *e);
void kl_menv_close(struct kl_menv *env);
/* The first device this process drives (device 0 in one process and on rank 0). */
struct kl_context *kl_menv_first(const struct kl_menv *env);

/*
 * Appends to a report's ceilings line (n bytes) how the devices are joined (multi/links.h:
 * NVLink, the PCIe path, the network) where that is known, and with ranks where each rank ran
 * (its host and device; `index`, this rank's CUDA device index). With ranks, collective.
 */
void kl_menv_note(const struct kl_menv *env, int index, char *line, size_t n);

/* Makes res a skipped row whose note is why (cut to fit). */
void kl_mrow_skip(struct kl_result *res, const char *why);

enum kl_sched {
    KL_SCHED_ONE,     /* device 0 alone, the whole product (SUMMA on 1×1, one panel) */
    KL_SCHED_ROWS,    /* A's rows split, B broadcast, C gathered to device 0 */
    KL_SCHED_SUMMA,   /* SUMMA: panel broadcasts, then the multiply, on one stream */
    KL_SCHED_OVERLAP, /* SUMMA with panel p + 1's broadcasts beside panel p's multiply */
};

/* A schedule with its buffers scattered and its launches described, ready to run. */
struct kl_mrun;

/*
 * Plans sched over env's devices (SUMMA with panels of kb), checks that
 * each device has room, allocates and fills its blocks (the untimed scatter)
 * and describes every launch: local names the GEMM rung of the multiplies,
 * NULL for cublasSgemm. KL_ERR_UNSUPPORTED or KL_ERR_NO_MEMORY where a
 * device or library cannot take it (the row is skipped with the reason).
 * *config gets the grid and panels; *options the local rung's build options.
 */
enum kl_status kl_mrun_open(const struct kl_menv *env, enum kl_sched sched, int kb,
                            const char *local, struct kl_mrun **out, struct kl_err *e);
/* What the row's columns show: "grid 2×4 kb 2048 ...", and the multiply's build options. */
/*
 * The bytes the busiest device receives in one run (B and C's rows for the
 * rows schedule, A's and B's panels for SUMMA); 0 on one device. At the link
 * roof that is a lower bound on the run's communication time.
 */
double kl_mrun_recv_bytes(const struct kl_mrun *r);
const char *kl_mrun_config(const struct kl_mrun *r);
const char *kl_mrun_options(const struct kl_mrun *r);
double kl_mrun_build_s(const struct kl_mrun *r);

/*
 * A kl_launch_fn: one whole distributed multiply, queued on every device
 * and waited for; *seconds the host's clock from the first call queued to
 * the last device done (events of one device cannot see the others' work).
 */
enum kl_status kl_mrun_once(void *run, double *seconds, struct kl_err *e);

/* Poisons C's blocks, runs once, and gathers C (M×N, row-major) to the host. */
enum kl_status kl_mrun_verify(struct kl_mrun *r, float *C, struct kl_err *e);

void kl_mrun_close(struct kl_mrun *r);

#endif /* KL_SUMMA_H */
