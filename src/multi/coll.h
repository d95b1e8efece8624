/*
 * Collectives between ranks at nccl-tests' standard, for `kladder-mpi peak
 * --collectives`: all-reduce, all-gather, reduce-scatter, broadcast, reduce,
 * all-to-all and send/receive over message sizes, each result checked, each
 * row's algorithm and bus bandwidth as nccl-tests defines them.
 *
 * The ranks are separate processes (one per GPU, started by mpirun or srun),
 * so what moves the data is a transport that kladder-mpi supplies: NCCL
 * between the ranks' CUDA devices (its communicator made from a unique id
 * that MPI broadcasts), or MPI itself on host memory where a rank has no
 * CUDA device or no NCCL. This file knows neither: it sizes, fills, checks
 * and times through the transport's entry points, so every transport is
 * measured and checked the same way. Plain `kladder` has no transport
 * (kl_coll_transport_open is NULL) and refuses the command.
 *
 * Sizes follow nccl-tests: a row's size is the buffer its test names (the
 * all-gather's output, the reduce-scatter's input, the all-to-all's whole
 * send buffer, the others' one buffer), in floats; algbw is size / time and
 * busbw is algbw times 2(n-1)/n for the all-reduce, (n-1)/n for all-gather,
 * reduce-scatter and all-to-all, 1 for broadcast, reduce and send/receive.
 */
#ifndef KL_COLL_H
#define KL_COLL_H

#include <stddef.h>

#include "core/context.h"
#include "core/error.h"
#include "core/report.h"

enum kl_coll_op {
    KL_COLL_ALL_REDUCE,
    KL_COLL_ALL_GATHER,
    KL_COLL_REDUCE_SCATTER,
    KL_COLL_BROADCAST,
    KL_COLL_REDUCE,
    KL_COLL_ALL_TO_ALL,
    KL_COLL_SEND_RECV,
    KL_COLL_OPS
};

/* "all_reduce", ...: the rows' names. */
const char *kl_coll_name(enum kl_coll_op op);
/* nccl-tests' bus bandwidth factor of op over n ranks: busbw = algbw * factor. */
double kl_coll_bus_factor(enum kl_coll_op op, int n);

/*
 * How floats move between the ranks. Every entry is called by every rank in
 * the same order (the collectives are collective), and `count` is per rank
 * as NCCL's calls take it: the all-reduce's, broadcast's, reduce's and send/
 * receive's whole buffer; the floats each rank contributes to an all-gather
 * (its output holds count * n), receives from a reduce-scatter (its input
 * holds count * n), and sends to each peer in an all-to-all (both buffers
 * hold count * n). Broadcast and reduce have root 0; send/receive sends to
 * rank + 1 and receives from rank - 1, round the ring.
 */
struct kl_coll_transport {
    char what[256]; /* "NCCL 2.21.5 between CUDA devices" or "MPI on host memory (...)" */
    int rank, nranks;
    int host_memory; /* the buffers are the host's (MPI): a smaller default top size */
    void *self;
    enum kl_status (*alloc)(void *self, size_t floats, void **buf, struct kl_err *e);
    void (*release)(void *self, void *buf);
    enum kl_status (*put)(void *self, void *buf, const float *host, size_t floats,
                          struct kl_err *e);
    enum kl_status (*get)(void *self, float *host, const void *buf, size_t floats,
                          struct kl_err *e);
    /* Queues (or runs) one collective; wait returns once every queued one is done here. */
    enum kl_status (*run)(void *self, enum kl_coll_op op, const void *send, void *recv,
                          size_t count, struct kl_err *e);
    enum kl_status (*wait)(void *self, struct kl_err *e);
    /* Control between the ranks: a barrier, and the largest of every rank's v. */
    void (*barrier)(void *self);
    double (*max)(void *self, double v);
    void (*close)(void *self);
};

/*
 * Gives t buffers in host memory (malloc'd; put and get copy; wait returns at once, every
 * call having finished; close frees nothing) and sets host_memory: the memory half of a
 * transport whose run moves host buffers (MPI's, a test's). run, barrier, max, what, rank,
 * nranks and self stay the caller's.
 */
void kl_coll_host_memory(struct kl_coll_transport *t);

/*
 * Makes the transport for this rank's device (kl: its context, opened by
 * the command; NULL where this rank could not open it, so that the other
 * ranks hear of it rather than wait) into *t; NULL outside kladder-mpi,
 * which sets it. An error leaves *t unusable; every rank returns an error.
 */
typedef enum kl_status (*kl_coll_open_fn)(struct kl_context *kl, struct kl_coll_transport *t,
                                          struct kl_err *e);
extern kl_coll_open_fn kl_coll_transport_open;

/* What `peak --collectives` asks for. */
struct kl_coll_request {
    size_t min_bytes, max_bytes; /* sizes from min to max, doubling (nccl-tests -b, -e, -f 2) */
    int repeats;                 /* timed loops a size (the row's samples), >= 1 */
    unsigned ops;                /* 1 << op for each collective; 0: all */
};

#define KL_COLL_MIN_BYTES 8
#define KL_COLL_MAX_BYTES ((size_t)1 << 30)
#define KL_COLL_HOST_MAX_BYTES ((size_t)64 << 20) /* MPI on host memory: its default top */

/*
 * Measures every collective at every size into rep (rank 0's rows; every
 * rank builds the same rows): the data checked after one untimed run, then
 * `repeats` loops of nccl-tests' iterations (20 of a small message, fewer
 * from 4 MiB, one from 64 MiB), each loop begun by a barrier and timed as
 * the slowest rank's clock. A row whose result differs on any rank is
 * failed and not timed. kl gives the header's device. Errors: a bad request
 * (KL_ERR_ARG), a transport's failure (every rank stops with it).
 */
enum kl_status kl_coll_measure(struct kl_context *kl, const struct kl_coll_request *req,
                               struct kl_coll_transport *t, struct kl_report *rep,
                               struct kl_err *e);

/*
 * NCCL between ranks, one CUDA device each (kl, a CUDA context): rank 0
 * makes the unique id (kl_coll_nccl_id), the caller gives it to every rank,
 * and each opens its transport with it (ncclCommInitRank); barrier and max
 * are left for the caller (MPI's). KL_ERR_UNSUPPORTED without NCCL or CUDA.
 */
enum kl_status kl_coll_nccl_id(void *id, size_t size, struct kl_err *e);
enum kl_status kl_coll_nccl_open(struct kl_context *kl, int rank, int nranks, const void *id,
                                 struct kl_coll_transport *t, struct kl_err *e);
/* The bytes of NCCL's unique id (ncclUniqueId). */
#define KL_COLL_NCCL_ID_BYTES 128

#endif /* KL_COLL_H */
