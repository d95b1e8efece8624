/*
 * MPI's kl_ranks (multi/ranks.h) over MPI_COMM_WORLD, for the commands whose
 * ranks work together: the multi-GPU GEMM, and the collectives' barrier and
 * maximum. Messages past MPI's int counts go in pieces.
 */
#include "cli/mpi_ranks.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define PIECE ((size_t)1 << 30) /* bytes a call: MPI's counts are ints */

static void barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

double kl_mpi_max(double v)
{
    double m = v;
    MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

int kl_mpi_all(int ok)
{
    int m = ok != 0;
    MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return m;
}

static void bcast(void *buf, size_t bytes)
{
    for (size_t done = 0; done < bytes; done += PIECE) {
        size_t n = bytes - done < PIECE ? bytes - done : PIECE;
        MPI_Bcast((char *)buf + done, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
    }
}

static int agree(int ok, char *why, size_t n)
{
    int rank = 0, size = 1, first;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    first = ok ? size : rank;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == size)
        return 1;
    char said[1024] = "";
    if (rank == first)
        snprintf(said, sizeof said, "rank %d: %.1000s", rank, why && why[0] ? why : "failed");
    MPI_Bcast(said, sizeof said, MPI_CHAR, first, MPI_COMM_WORLD);
    if (why && n)
        snprintf(why, n, "%s", said);
    return 0;
}

static void to_root(void *buf, size_t bytes, int from)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (from == 0 || (rank != 0 && rank != from))
        return;
    for (size_t done = 0; done < bytes; done += PIECE) {
        size_t n = bytes - done < PIECE ? bytes - done : PIECE;
        if (rank == from)
            MPI_Send((char *)buf + done, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        else
            MPI_Recv((char *)buf + done, (int)n, MPI_BYTE, from, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
}

#define TEXT 1024 /* each rank's words in texts(), at most */

static void texts(const char *mine, char *all, size_t n)
{
    int rank = 0, size = 1;
    char one[TEXT], many[64][TEXT];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(one, sizeof one, "%s", mine);
    for (int r = 0; r < size; r++) { /* in turn, so rank 0 needs no room for thousands */
        char got[TEXT];
        memcpy(got, one, sizeof got);
        if (r != 0)
            to_root(got, sizeof got, r);
        if (rank == 0 && r < 64)
            memcpy(many[r], got, sizeof got);
    }
    if (rank != 0 || !n)
        return;
    all[0] = '\0';
    for (int r = 0; r < size && r < 64; r++) {
        size_t used = strlen(all);
        if (many[r][0])
            snprintf(all + used, n - used, "%s%s", used ? "; " : "", many[r]);
    }
    if (size > 64) {
        size_t used = strlen(all);
        snprintf(all + used, n - used, "; and %d more ranks", size - 64);
    }
}

static struct kl_ranks mpi_ranks = {
    .barrier = barrier,
    .max = kl_mpi_max,
    .agree = agree,
    .bcast = bcast,
    .to_root = to_root,
    .texts = texts,
};

const struct kl_ranks *kl_mpi_ranks(const char *host, int shared)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi_ranks.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi_ranks.size);
    mpi_ranks.shared = shared;
    snprintf(mpi_ranks.host, sizeof mpi_ranks.host, "%s", host);
    return &mpi_ranks;
}
