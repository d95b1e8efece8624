/*
 * kladder-mpi's transports for peak --collectives (multi/coll.h): NCCL
 * between the ranks' CUDA devices where every rank has one and NCCL, its
 * communicator from a unique id rank 0 makes and MPI broadcasts; else MPI
 * itself on host memory, and the run's header says why.
 */
#include "cli/mpi_coll.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "cli/mpi_ranks.h"
#include "multi/nccl.h"
#include "multi/ranks.h"

static void barrier(void *self)
{
    (void)self;
    MPI_Barrier(MPI_COMM_WORLD);
}

static double max_of(void *self, double v)
{
    (void)self;
    return kl_mpi_max(v);
}

/* ---- MPI on host memory ---- */

static int mpi_call(enum kl_coll_op op, const void *send, void *recv, int count, int rank, int size)
{
    MPI_Comm w = MPI_COMM_WORLD;
    switch (op) {
    case KL_COLL_ALL_REDUCE: return MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, w);
    case KL_COLL_ALL_GATHER:
        return MPI_Allgather(send, count, MPI_FLOAT, recv, count, MPI_FLOAT, w);
    case KL_COLL_REDUCE_SCATTER:
        return MPI_Reduce_scatter_block(send, recv, count, MPI_FLOAT, MPI_SUM, w);
    case KL_COLL_BROADCAST: /* out of place, as NCCL's: the root's send into every recv */
        if (rank == 0)
            memcpy(recv, send, (size_t)count * sizeof(float));
        return MPI_Bcast(recv, count, MPI_FLOAT, 0, w);
    case KL_COLL_REDUCE: return MPI_Reduce(send, recv, count, MPI_FLOAT, MPI_SUM, 0, w);
    case KL_COLL_ALL_TO_ALL: return MPI_Alltoall(send, count, MPI_FLOAT, recv, count, MPI_FLOAT, w);
    case KL_COLL_SEND_RECV:
        return MPI_Sendrecv(send, count, MPI_FLOAT, (rank + 1) % size, 0, recv, count, MPI_FLOAT,
                            (rank + size - 1) % size, 0, w, MPI_STATUS_IGNORE);
    default: return MPI_ERR_OP;
    }
}

static enum kl_status host_run(void *self, enum kl_coll_op op, const void *send, void *recv,
                               size_t count, struct kl_err *e)
{
    const struct kl_coll_transport *t = self;
    if (count > INT_MAX)
        return kl_fail(e, KL_ERR_ARG, "MPI counts are ints: %zu floats is too many", count);
    int rc = mpi_call(op, send, recv, (int)count, t->rank, t->nranks);
    if (rc == MPI_SUCCESS)
        return KL_OK;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return kl_fail(e, KL_ERR_BACKEND, "MPI's %s failed: %.*s", kl_coll_name(op), len, text);
}

static void open_host(struct kl_coll_transport *t, const char *why)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = '\0'; /* its first words: "Open MPI v4.1.4" */
    snprintf(t->what, sizeof t->what, "MPI on host memory (%.60s; %.160s)", lib, why);
    kl_coll_host_memory(t);
    t->self = t;
    t->run = host_run; /* MPI's calls return once done here: host memory's wait does */
}

/* ---- the choice ---- */

/* Why this rank cannot use NCCL (why, n bytes), or 0 where it can. */
static int no_nccl_here(struct kl_context *kl, char *why, size_t n)
{
    struct kl_err e;
    if (kl_ranks && kl_ranks->shared)
        return snprintf(why, n, "ranks share a device here; NCCL needs one GPU a rank"), 1;
    if (!kl->ops->device_ptr || !kl->ops->stream_create) /* device addresses and streams */
        return snprintf(why, n, "NCCL needs a CUDA device on every rank; this one's is %s's",
                        kl->ops->name),
               1;
    if (!kl_nccl_load(&e))
        return snprintf(why, n, "%.400s", e.msg), 1;
    return 0;
}

/* NCCL on every rank: rank 0's unique id to all, then each rank's communicator. */
static enum kl_status open_nccl(struct kl_context *kl, struct kl_coll_transport *t, int rank,
                                int size, struct kl_err *e)
{
    char id[KL_COLL_NCCL_ID_BYTES];
    int ok = rank != 0 || kl_coll_nccl_id(id, sizeof id, e) == KL_OK;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok)
        return rank == 0 ? KL_ERR_BACKEND
                         : kl_fail(e, KL_ERR_BACKEND, "rank 0 could not make NCCL's unique id");
    MPI_Bcast(id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    enum kl_status st = kl_coll_nccl_open(kl, rank, size, id, t, e);
    if (!kl_mpi_all(st == KL_OK)) {
        if (st == KL_OK)
            t->close(t->self);
        return st != KL_OK ? st
                           : kl_fail(e, KL_ERR_BACKEND, "another rank's NCCL communicator failed");
    }
    return KL_OK;
}

enum kl_status kl_mpi_coll_open(struct kl_context *kl, struct kl_coll_transport *t,
                                struct kl_err *e)
{
    int rank = 0, size = 1;
    char why[512] = "";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!kl_mpi_all(kl != NULL))
        return kl_fail(e, KL_ERR_NO_DEVICE, "%s",
                       kl ? "another rank could not open its device" : "no device here");
    int nccl = kl_mpi_all(!no_nccl_here(kl, why, sizeof why));
    /* Rank 0's reason speaks for the run where it has one. */
    int reason_at_0 = why[0] != '\0';
    MPI_Bcast(&reason_at_0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (reason_at_0)
        MPI_Bcast(why, sizeof why, MPI_CHAR, 0, MPI_COMM_WORLD);
    else if (!nccl)
        snprintf(why, sizeof why, "another rank has no CUDA device or no NCCL");
    t->rank = rank, t->nranks = size;
    t->barrier = barrier, t->max = max_of; /* MPI's, whichever moves the data */
    if (nccl)
        return open_nccl(kl, t, rank, size, e);
    open_host(t, why);
    return KL_OK;
}
