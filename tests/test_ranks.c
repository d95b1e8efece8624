/*
 * MPI's ranks (cli/mpi_ranks.c), the controls that keep kladder-mpi mgemm's
 * ranks in step, under `mpirun -n 3 test_ranks`: the agreement (every rank
 * told the lowest failing rank's sentence, and 1 where none fails), the
 * maximum, rank 0's broadcast, one rank's buffer to rank 0 (in pieces past
 * MPI's int counts where KL_TEST_RANKS_BIG is set), and every rank's words
 * joined on rank 0. Each rank prints its failures; rank 0 the count line.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/mpi_ranks.h"

static int fails, checks;

static void check(int ok, int rank, const char *what)
{
    checks++;
    if (!ok) {
        fails++;
        printf("FAIL (rank %d): %s\n", rank, what);
    }
}

/* A buffer of bytes from rank `from` to rank 0, the pattern naming the rank. */
static void one_to_root(const struct kl_ranks *R, size_t bytes, int from)
{
    unsigned char *buf = malloc(bytes);
    int same = 1;
    if (!buf) {
        check(0, R->rank, "memory for to_root");
        return;
    }
    memset(buf, R->rank == from ? 0x10 + from : 0xee, bytes);
    R->to_root(buf, bytes, from);
    unsigned char want = (unsigned char)(R->rank == 0 || R->rank == from ? 0x10 + from : 0xee);
    for (size_t i = 0; i < bytes; i += 4093)
        same &= buf[i] == want;
    same &= buf[bytes - 1] == want;
    check(same, R->rank, "to_root: rank 0 has the sender's bytes, the others kept theirs");
    free(buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char host[32];
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(host, sizeof host, "node%d", 7);
    const struct kl_ranks *R = kl_mpi_ranks(host, 0);
    char why[256];

    check(R->size == size && R->size == 3, R->rank, "three ranks");
    check(strcmp(R->host, "node7") == 0 && !R->shared, R->rank, "host and shared kept");

    /* Agreement: none fails; rank 1 and rank 2 fail (the lower speaks); only rank 2. */
    snprintf(why, sizeof why, "unused");
    check(R->agree(1, why, sizeof why) == 1 && strcmp(why, "unused") == 0, R->rank,
          "agree: every rank ok is 1, why untouched");
    snprintf(why, sizeof why, "my own reason %d", R->rank);
    check(R->agree(R->rank == 0, why, sizeof why) == 0 &&
              strcmp(why, "rank 1: my own reason 1") == 0,
          R->rank, "agree: the lowest failing rank's sentence on every rank");
    snprintf(why, sizeof why, "disk full");
    check(R->agree(R->rank != 2, why, sizeof why) == 0 && strcmp(why, "rank 2: disk full") == 0,
          R->rank, "agree: a failure on the last rank only");
    check(R->agree(R->rank != 1, NULL, 0) == 0, R->rank, "agree: no room for a reason");

    /* The maximum and rank 0's broadcast. */
    check(R->max(1.5 + R->rank) == 3.5, R->rank, "max over the ranks");
    int value = R->rank == 0 ? 4242 : -1;
    R->bcast(&value, sizeof value);
    check(value == 4242, R->rank, "bcast from rank 0");

    /* One rank's buffer to rank 0; rank 0's own call does nothing. */
    one_to_root(R, 100000, 2);
    one_to_root(R, 5, 1);
    one_to_root(R, 64, 0);
    if (getenv("KL_TEST_RANKS_BIG")) /* past 2^31 bytes: three pieces of MPI's counts */
        one_to_root(R, ((size_t)5 << 29) + 3, 1);

    /* Every rank's words on rank 0, in rank order. */
    char mine[64], all[256] = "untouched";
    snprintf(mine, sizeof mine, "rank %d here", R->rank);
    R->texts(mine, all, sizeof all);
    check(R->rank != 0 || strcmp(all, "rank 0 here; rank 1 here; rank 2 here") == 0, R->rank,
          "texts joined on rank 0");
    check(R->rank == 0 || strcmp(all, "untouched") == 0, R->rank, "texts: others untouched");
    R->texts(R->rank == 1 ? "" : mine, all, sizeof all);
    check(R->rank != 0 || strcmp(all, "rank 0 here; rank 2 here") == 0, R->rank,
          "texts: an empty one left out");

    int total[2] = {fails, checks};
    MPI_Allreduce(MPI_IN_PLACE, total, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (R->rank == 0)
        printf("test_ranks: %d of %d checks passed\n", total[1] - total[0], total[1]);
    MPI_Finalize();
    return total[0] != 0;
}
