/*
 * The ranks of a job that runs one process per device (kladder-mpi under
 * mpirun or srun), as the multi-GPU GEMM needs them: who this process is,
 * and the few host-side exchanges that keep every rank at the same step.
 * NCCL moves the matrices; these move decisions, times and the result to
 * check. kladder-mpi supplies MPI's (cli/mpi_ranks.c) in kl_ranks before a
 * rank runs its command; plain kladder leaves it NULL, and one process then
 * drives every device itself.
 *
 * Every entry but to_root is collective: every rank calls it, in the same
 * order. to_root pairs one rank's call with rank 0's.
 */
#ifndef KL_RANKS_H
#define KL_RANKS_H

#include <stddef.h>

#include "core/error.h"
#include "core/measure.h"
#include "core/stop.h"

struct kl_ranks {
    int rank, size; /* this process and how many there are; rank 0 writes the report */
    int shared;     /* this rank shares its device with another rank of its node */
    char host[128]; /* this rank's host name */
    void (*barrier)(void);
    double (*max)(double v); /* the largest v over the ranks */
    /*
     * 1 where every rank's ok is non-zero. Else 0 on every rank, with why (n bytes, on
     * every rank) the lowest failing rank's own why, as "rank R: ..."
     */
    int (*agree)(int ok, char *why, size_t n);
    void (*bcast)(void *buf, size_t bytes); /* rank 0's bytes into every rank's buf */
    /* Rank `from`'s buf to rank 0's buf (bytes each): rank from sends, rank 0 receives,
       the others return at once. */
    void (*to_root)(void *buf, size_t bytes, int from);
    /* Every rank's mine (up to 1023 bytes of it) joined in rank order into rank 0's all (n
       bytes), "; " between, an empty one left out. */
    void (*texts)(const char *mine, char *all, size_t n);
};

/*
 * One step's status agreed between the ranks (collective; R NULL, one process: st as it is):
 * st where every rank's is KL_OK; else an error on every rank, its own or `other` where only
 * another rank failed, e then holding the first failing rank's sentence.
 */
static inline enum kl_status kl_ranks_agreed(const struct kl_ranks *R, enum kl_status st,
                                             enum kl_status other, struct kl_err *e)
{
    if (!R || R->agree(st == KL_OK, e->msg, sizeof e->msg))
        return st;
    return st != KL_OK ? st : other;
}

/*
 * A stop held on any rank (kl_stop_hold; collective with R; R NULL: this rank's alone, for a
 * run of one rank): 1 when there is one, the stop then taken up on this rank (the loops see
 * it from here on); else 0.
 */
static inline int kl_ranks_stop(const struct kl_ranks *R)
{
    if (!(R ? R->max(kl_stop_held() != 0) > 0 : kl_stop_held() != 0))
        return 0;
    kl_stop_hold(0);
    if (!kl_stop_requested())
        kl_stop_request(0);
    return 1;
}

/*
 * One run of fn(arg) as the ranks time it (collective; R NULL: fn as it is): a stop held on
 * any rank stops every rank here; else every rank starts after a barrier, *seconds is the
 * slowest rank's, so each rank's protocol takes the same runs, and a failure on any rank is
 * every rank's.
 */
static inline enum kl_status kl_ranks_run(const struct kl_ranks *R, kl_launch_fn fn, void *arg,
                                          double *seconds, struct kl_err *e)
{
    if (!R)
        return fn(arg, seconds, e);
    if (kl_ranks_stop(R))
        return kl_stop_fail(e);
    R->barrier();
    *seconds = 0;
    enum kl_status st = fn(arg, seconds, e);
    *seconds = R->max(st == KL_OK ? *seconds : 0);
    return kl_ranks_agreed(R, st, KL_ERR_BACKEND, e);
}

/* Set by kladder-mpi before a rank runs its command; NULL in one process. */
extern const struct kl_ranks *kl_ranks;

#endif /* KL_RANKS_H */
